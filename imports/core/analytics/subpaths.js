'use strict';
/**
 * subpaths: the most frequent runs of consecutive hops (2 to 8 long) in observed paths, and a
 * detail view of one run: who heard it, when, the nodes behind its hops and which hops come
 * before and after it.
 *
 * Unit: a path is one observation's hop list (the path that observer heard). A subpath's
 * `count` is the number of stored paths containing it at least once (a run repeated inside
 * one path counts once); `share` = count / `totalPaths`, the stored paths with at least 2 hops.
 * Observers, previous and next hops count paths the same way (each distinct neighbour once per
 * path; null where the run starts or ends the path).
 *
 * Kept incrementally: one count per distinct subpath (one table per length), so a path of h
 * hops costs at most 7h table updates and ~70 bytes per distinct subpath, charged to the memory
 * account and freed when the count returns to zero. On a large public mesh the distinct runs
 * number in the hundreds of thousands, so per-subpath observer, neighbour and hour lists would
 * cost more than the packets themselves: the detail of one subpath is instead read from the
 * store, over the transmissions of its rarest hop (store.byPrefix), which is exact and bounded
 * by that hop's traffic.
 */
const { defineView, wrapNormalizeParams, ParamError, memoryPart } = require('./view');
const { withSnapshotCache } = require('./snapshot-cache');
const { describePrefix, keepBest } = require('./aggregates');
const { TopTracker } = require('./top-tracker');
const { BYTES } = require('../memory-account');
const { observationCountOf, observationAt } = require('../stored-records');

const MIN_LENGTH = 2;
const MAX_LENGTH = 8;
const SUBPATH_RE = /^[0-9a-f]{2,6}(,[0-9a-f]{2,6}){1,7}$/i;

// A counted run: its table slots (a hash and a reference, the table at most half full) and the
// entry object { prefix, last, count, ranked, key } (the last two for the top list:
// top-tracker.js; key is joined only while ranked).
const ENTRY_BYTES = 2 * (4 + BYTES.arraySlot) + BYTES.object + 5 * BYTES.field;
const MIN_TABLE = 256;

/**
 * The runs of one length: open addressing over an Int32Array of hashes and an array of entries
 * (null: empty slot), linear probing, deletion by shifting the probe run back. On a large mesh a
 * length holds hundreds of thousands of runs; a Map lookup there missed the cache several times
 * per run of every path, a probe here reads one hash and, on a match, its entry.
 */
class RunTable {
  constructor() {
    this.reset(MIN_TABLE);
  }

  reset(capacity) {
    this.hashes = new Int32Array(capacity);
    this.entries = new Array(capacity).fill(null);
    this.mask = capacity - 1;
    this.shift = 32 - Math.log2(capacity);
    this.size = 0;
  }

  home(hash) {
    return Math.imul(hash, 0x9e3779b1) >>> this.shift;
  }

  /** The entry of the run `prefix` + `last` under `hash`, or undefined. */
  find(hash, prefix, last) {
    const hashes = this.hashes;
    const entries = this.entries;
    const mask = this.mask;
    for (let slot = this.home(hash); ; slot = (slot + 1) & mask) {
      const entry = entries[slot];
      if (entry === null) return undefined;
      if (hashes[slot] === hash && entry.prefix === prefix && entry.last === last) return entry;
    }
  }

  insert(hash, entry) {
    if ((this.size + 1) * 2 > this.entries.length) this.resize(this.entries.length * 2);
    const entries = this.entries;
    const mask = this.mask;
    let slot = this.home(hash);
    while (entries[slot] !== null) slot = (slot + 1) & mask;
    entries[slot] = entry;
    this.hashes[slot] = hash;
    this.size++;
  }

  remove(hash, entry) {
    const hashes = this.hashes;
    const entries = this.entries;
    const mask = this.mask;
    let hole = this.home(hash);
    while (entries[hole] !== entry) hole = (hole + 1) & mask;
    for (let slot = (hole + 1) & mask; entries[slot] !== null; slot = (slot + 1) & mask) {
      const home = this.home(hashes[slot]);
      // Stays unless its home lies cyclically outside (hole, slot].
      const stays = hole <= slot ? home > hole && home <= slot : home > hole || home <= slot;
      if (!stays) {
        entries[hole] = entries[slot];
        hashes[hole] = hashes[slot];
        hole = slot;
      }
    }
    entries[hole] = null;
    this.size--;
    if (this.size === 0 && this.entries.length > MIN_TABLE) this.reset(MIN_TABLE);
  }

  resize(capacity) {
    const { hashes, entries } = this;
    this.reset(capacity);
    for (let slot = 0; slot < entries.length; slot++) if (entries[slot] !== null) this.insert(hashes[slot], entries[slot]);
  }

  forEach(visit) {
    const entries = this.entries;
    for (let slot = 0; slot < entries.length; slot++) if (entries[slot] !== null) visit(entries[slot]);
  }
}

/**
 * Runs are counted under a 30-bit hash of their hops (a small integer, so the Map never hashes
 * a freshly joined string: on a large mesh that hashing was a third of all ingest time). An
 * entry is told apart from a colliding one (colliding runs take separate slots) by its
 * last hop and its prefix: the run one hop shorter, as that run's own entry (or, for a 2-hop
 * run, its first hop). A path walks its runs from each start, one hop longer at a time, so the
 * shorter run's entry is at hand and telling entries apart is two reference comparisons (hop
 * strings are interned by the decoder). A run's prefix is in every path the run is in, so the
 * prefix's count is never below the run's: an entry never outlives the prefix it points to.
 */
/** Best first: higher count, then the smaller joined key (hop strings, comma-separated). */
function runOrder(a, b) {
  return b.count - a.count || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
}

function joinKey(entry) {
  if (entry.key === null) entry.key = hopsOf(entry).join(',');
}

function dropKey(entry) {
  entry.key = null;
}

function createState(store) {
  const byLength = [];
  const distinct = [];
  const tops = [];
  for (let length = 0; length <= MAX_LENGTH; length++) {
    const table = new RunTable(); // { prefix, last, count, ranked, key } by hash
    byLength.push(table);
    distinct.push(0);
    // The busiest runs of this length, kept without a pass over every run per snapshot.
    tops.push(new TopTracker({
      countOf: (entry) => entry.count,
      compare: runOrder,
      forEach: (visit) => table.forEach(visit),
      prepare: joinKey,
      release: dropKey,
    }));
  }
  return { totalPaths: 0, byLength, distinct, tops, part: memoryPart(store, 'subpaths') };
}

/**
 * A hop's code for hashing: its value and its width (so 'ab' and '00ab' differ). Read digit by
 * digit (a third of parseInt's time here); hops are hex, and any other character still gives a
 * code, only a different one (the code picks a slot: the hops themselves are compared).
 */
function hopCode(hop) {
  let value = 0;
  for (let i = 0; i < hop.length; i++) {
    const c = hop.charCodeAt(i);
    value = value * 16 + (c <= 57 ? c - 48 : (c | 32) - 87);
  }
  return (value * 4 + (hop.length >> 1)) | 0;
}

/** The hops of a counted run, first to last. */
function hopsOf(entry) {
  const hops = [];
  let run = entry;
  while (typeof run !== 'string') {
    hops.push(run.last);
    run = run.prefix;
  }
  hops.push(run);
  return hops.reverse();
}

/** Count the run `prefix` + `last` (of `length` hops) up or down; returns its entry (undefined: nothing to undo). */
function countRun(state, hash, prefix, last, length, sign) {
  const table = state.byLength[length];
  let entry = table.find(hash, prefix, last);
  if (entry === undefined) {
    if (sign < 0) return undefined; // never counted: nothing to undo
    entry = { prefix, last, count: 0, ranked: false, key: null };
    table.insert(hash, entry);
    state.distinct[length]++;
    if (state.part) state.part.add(ENTRY_BYTES);
  }
  const count = entry.count + sign;
  entry.count = count;
  if (sign > 0) state.tops[length].raised(entry, count);
  if (count > 0) return entry;
  table.remove(hash, entry);
  state.distinct[length]--;
  if (state.part) state.part.add(-ENTRY_BYTES);
  return entry; // still the prefix of the longer runs of this path, which go next
}

function hasRepeatedHop(path) {
  for (let i = 1; i < path.length; i++) {
    for (let j = 0; j < i; j++) if (path[i] === path[j]) return true;
  }
  return false;
}

const scratchCodes = [];
// The runs already counted in the path being counted, when it repeats a hop: run i is its
// prefix's entry (or first hop) seenPrefix[i] followed by hop seenLast[i], and its entry is
// seenEntry[i]. Equal hop sequences have the same prefix entry (by induction on their length),
// so comparing the pair by reference tells equal runs apart without joining their hops.
const seenPrefix = [];
const seenLast = [];
const seenEntry = [];

function countPath(state, observation, sign) {
  const path = observation.path;
  const hops = path.length;
  if (hops < MIN_LENGTH) return false;
  state.totalPaths += sign;
  for (let i = 0; i < hops; i++) scratchCodes[i] = hopCode(path[i]);
  // Only a path with a repeated hop can hold one run twice: only then deduplicate (each run
  // counted so far and its entry, which the longer runs from a later start still need as their
  // prefix; a few dozen at most, searched linearly).
  const dedupe = hasRepeatedHop(path);
  let seenCount = 0;
  for (let start = 0; start < hops - 1; start++) {
    let hash = Math.imul(0x811c9dc5 ^ scratchCodes[start], 16777619);
    let prefix = path[start];
    const stop = Math.min(hops, start + MAX_LENGTH);
    for (let end = start + 1; end < stop; end++) {
      hash = Math.imul(hash ^ scratchCodes[end], 16777619);
      const length = end - start + 1;
      if (dedupe) {
        const last = path[end];
        let counted;
        for (let i = 0; i < seenCount; i++) {
          if (seenPrefix[i] === prefix && seenLast[i] === last) {
            counted = seenEntry[i];
            break;
          }
        }
        if (counted !== undefined) {
          prefix = counted;
          continue;
        }
        const entry = countRun(state, hash & 0x3fffffff, prefix, last, length, sign);
        if (entry === undefined) break;
        seenPrefix[seenCount] = prefix;
        seenLast[seenCount] = last;
        seenEntry[seenCount] = entry;
        seenCount++;
        prefix = entry;
        continue;
      }
      const entry = countRun(state, hash & 0x3fffffff, prefix, path[end], length, sign);
      if (entry === undefined) break;
      prefix = entry;
    }
  }
  // Hold no entry past this path (an evicted one would stay reachable).
  for (let i = 0; i < seenCount; i++) {
    seenPrefix[i] = null;
    seenEntry[i] = null;
  }
  return true;
}

/** The count of one run given as its hops (0 when not stored). */
function countOf(state, hops) {
  let hash = Math.imul(0x811c9dc5 ^ hopCode(hops[0]), 16777619);
  let prefix = hops[0];
  let entry;
  for (let i = 1; i < hops.length; i++) {
    hash = Math.imul(hash ^ hopCode(hops[i]), 16777619);
    entry = state.byLength[i + 1].find(hash & 0x3fffffff, prefix, hops[i]);
    if (entry === undefined) return 0;
    prefix = entry;
  }
  return entry.count;
}

/** The `limit` runs with the highest counts (ties: smaller joined key first), as [key, count]. */
function topRuns(state, minLength, maxLength, limit) {
  const best = [];
  for (let length = minLength; length <= maxLength; length++) {
    for (const entry of state.tops[length].top(limit)) {
      if (best.length === limit && entry.count < best[limit - 1].count) break; // the rest of this length are lower still
      keepBest(best, entry, limit, runOrder);
    }
  }
  return best.map((entry) => [entry.key, entry.count]);
}

function apply(state, tx, observation) {
  return countPath(state, observation, 1);
}

function evict(state, tx) {
  let changed = false;
  for (const observation of tx.observations) changed = countPath(state, observation, -1) || changed;
  return changed;
}

/** The name of the one repeater behind a hop, or null (unknown or ambiguous). */
function nameOf(store, hop) {
  const { node } = describePrefix(store, hop);
  return node ? node.name : null;
}

function listSnapshot(state, params, store) {
  const { minLength, maxLength, limit } = params;
  let distinct = 0;
  for (let length = minLength; length <= maxLength; length++) distinct += state.distinct[length];
  const total = state.totalPaths;
  return {
    units: {
      count: 'stored paths (one per observation) containing the subpath at least once',
      share: 'count / totalPaths, the stored paths with at least 2 hops',
    },
    totalPaths: total,
    minLength,
    maxLength,
    distinct,
    subpaths: topRuns(state, minLength, maxLength, limit).map(([subpath, count]) => {
      const hops = subpath.split(',');
      return { subpath, hops, length: hops.length, count, share: total ? count / total : 0, names: hops.map((hop) => nameOf(store, hop)) };
    }),
  };
}

/** Start indexes of `hops` inside `path` (empty when it is not there). */
function occurrences(path, hops) {
  const starts = [];
  for (let start = 0; start + hops.length <= path.length; start++) {
    let k = 0;
    while (k < hops.length && path[start + k] === hops[k]) k++;
    if (k === hops.length) starts.push(start);
  }
  return starts;
}

/**
 * Where `hops` first occurs in `path` (-1: nowhere), or -2 when it occurs more than once (rare:
 * a run repeated inside one path). Allocates nothing: it runs over every observation the detail
 * scan reads (up to tens of thousands per snapshot on a large mesh).
 */
function soleOccurrence(path, hops) {
  const length = hops.length;
  const head = hops[0];
  let found = -1;
  for (let start = 0, last = path.length - length; start <= last; start++) {
    if (path[start] !== head) continue;
    let k = 1;
    while (k < length && path[start + k] === hops[k]) k++;
    if (k === length) {
      if (found >= 0) return -2;
      found = start;
    }
  }
  return found;
}

function countRows(counts) {
  const keyOf = (row) => (row.hop === null ? '' : row.hop);
  return Array.from(counts, ([hop, count]) => ({ hop, count }))
    .sort((a, b) => b.count - a.count || (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
}

function increment(map, key) {
  map.set(key, (map.get(key) || 0) + 1);
}

// The detail scan reads the newest transmissions of the rarest hop, up to either bound, so a
// detail costs a few milliseconds however large the store and however many observers hear each
// packet: its cost is per observation read, and a large mesh's busy hops carry ~14 observations
// per transmission (5,000 transmissions were 55k observations, ~17 ms). `scan.complete` says
// whether it saw every stored path (the subpath's own `count` is always exact).
const SCAN_LIMITS = Object.freeze({ transmissions: 5000, observations: 20000 });

/**
 * One subpath read from the store: the stored paths containing it, found through the
 * transmissions of its rarest hop, newest first (within SCAN_LIMITS). Returns counts
 * per observer, previous and next hop, and the earliest and latest report time among them.
 *
 * This is the slowest snapshot on a large mesh (a busy hop's transmissions carry ~14 observations), so
 * the loop reads observations without building a transmission's list (observationAt), tests a
 * path with soleOccurrence (no array per path), and counts a path's one neighbour on each side
 * directly; only a path holding the run twice takes the general way (sets of neighbours).
 */
function scanSubpath(store, hops, limits = SCAN_LIMITS) {
  let source = null;
  for (const hop of hops) {
    const deque = store.byPrefix.get(hop);
    if (!deque) return null;
    if (!source || deque.length < source.length) source = deque;
  }
  const found = { count: 0, observers: new Map(), previous: new Map(), next: new Map(), firstSeen: null, lastSeen: null, transmissions: 0, observationsRead: 0, complete: true };
  const length = hops.length;
  let firstSeen = Infinity;
  let lastSeen = -Infinity;
  source.forEachNewest((tx) => {
    const observationCount = observationCountOf(tx);
    // Whole transmissions only: a path's neighbours and observers are never half-counted.
    if (found.transmissions === limits.transmissions || (found.transmissions > 0 && found.observationsRead + observationCount > limits.observations)) {
      found.complete = false;
      return false;
    }
    found.transmissions++;
    found.observationsRead += observationCount;
    for (let o = 0; o < observationCount; o++) {
      const observation = observationAt(tx, o);
      const path = observation.path;
      if (path.length < length) continue;
      const start = soleOccurrence(path, hops);
      if (start === -1) continue;
      found.count++;
      increment(found.observers, observation.observer.id);
      if (start >= 0) {
        increment(found.previous, start > 0 ? path[start - 1] : null);
        increment(found.next, start + length < path.length ? path[start + length] : null);
      } else {
        // The run occurs more than once in this path: each distinct neighbour once per path.
        const before = new Set();
        const after = new Set();
        for (const at of occurrences(path, hops)) {
          before.add(at > 0 ? path[at - 1] : null);
          after.add(at + length < path.length ? path[at + length] : null);
        }
        for (const hop of before) increment(found.previous, hop);
        for (const hop of after) increment(found.next, hop);
      }
      const time = observation.time;
      if (time < firstSeen) firstSeen = time;
      if (time > lastSeen) lastSeen = time;
    }
    return true;
  });
  if (found.count > 0) {
    found.firstSeen = firstSeen;
    found.lastSeen = lastSeen;
  }
  return found;
}

function detailSnapshot(state, params, store) {
  const hops = params.subpath.split(',');
  const key = hops.join(',');
  const count = countOf(state, hops);
  const found = count > 0 ? scanSubpath(store, hops) : null;
  const observers = [];
  if (found) {
    for (const [id, paths] of found.observers) {
      const observer = store.observers.get(id);
      observers.push({ id, name: observer ? observer.name : id, region: observer ? observer.region : null, count: paths });
    }
    observers.sort((a, b) => b.count - a.count || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
  return {
    units: {
      count: 'stored paths (one per observation) containing the subpath at least once; share = count / totalPaths',
      observers: 'paths each observer reported containing the subpath',
      previous: 'paths per hop heard just before the subpath (null: the subpath starts the path)',
      next: 'paths per hop heard just after the subpath (null: the subpath ends the path)',
      firstSeen: 'earliest and latest report time (ms) of a stored path containing it',
      scan: `observers, previous, next and first/last seen come from the newest transmissions of the subpath's rarest hop, at most ${SCAN_LIMITS.transmissions} of them and ${SCAN_LIMITS.observations} observations; complete = every stored path was read`,
    },
    subpath: key,
    length: hops.length,
    count,
    share: state.totalPaths ? count / state.totalPaths : 0,
    totalPaths: state.totalPaths,
    hops: hops.map((hop) => ({ hop, hashSize: hop.length / 2, ...describePrefix(store, hop) })),
    observers,
    firstSeen: found ? found.firstSeen : null,
    lastSeen: found ? found.lastSeen : null,
    previous: found ? countRows(found.previous) : [],
    next: found ? countRows(found.next) : [],
    scan: { transmissions: found ? found.transmissions : 0, observations: found ? found.observationsRead : 0, paths: found ? found.count : 0, complete: found ? found.complete : true },
  };
}

const definition = defineView(withSnapshotCache({
  name: 'subpaths',
  description: 'Most frequent hop sequences (2-8 hops) with counts and share; one subpath in detail.',
  params: {
    minLength: { type: 'int', min: MIN_LENGTH, max: MAX_LENGTH, default: MIN_LENGTH },
    maxLength: { type: 'int', min: MIN_LENGTH, max: MAX_LENGTH, default: MAX_LENGTH },
    limit: { type: 'int', min: 1, max: 100, default: 20 },
    subpath: { type: 'string', maxLength: 62, pattern: SUBPATH_RE, lowerCase: true },
  },
  createState,
  apply,
  evict,
  snapshot(state, params, store) {
    return params.subpath !== null ? { detail: detailSnapshot(state, params, store) } : listSnapshot(state, params, store);
  },
}));

/**
 * minLength above maxLength is a bad parameter (400 over REST, bad-params from a method or a
 * subscription), checked with the others: thrown in the snapshot it was a failed snapshot, a
 * 500 counted among the server's own errors.
 */
function withLengthsChecked(normalize) {
  return (raw) => {
    const params = normalize(raw);
    if (params.minLength > params.maxLength) throw new ParamError('subpaths', 'minLength', `must not exceed maxLength (${params.maxLength})`);
    return params;
  };
}
wrapNormalizeParams(definition, withLengthsChecked, { inSnapshot: true });

module.exports = definition;
// For tests: the detail scan with other bounds.
module.exports.scanSubpath = scanSubpath;
module.exports.SCAN_LIMITS = SCAN_LIMITS;
