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
 * Kept incrementally: one count per distinct subpath (a Map entry per length), so a path of h
 * hops costs at most 7h Map updates and ~70 bytes per distinct subpath, charged to the memory
 * account and freed when the count returns to zero. On a large public mesh the distinct runs
 * number in the hundreds of thousands, so per-subpath observer, neighbour and hour lists would
 * cost more than the packets themselves: the detail of one subpath is instead read from the
 * store, over the transmissions of its rarest hop (store.byPrefix), which is exact and bounded
 * by that hop's traffic.
 */
const { defineView, ParamError, memoryPart } = require('./view');
const { describePrefix, keepBest, byCountThenKey } = require('./aggregates');
const { BYTES } = require('../memory-account');

const MIN_LENGTH = 2;
const MAX_LENGTH = 8;
const SUBPATH_RE = /^[0-9a-f]{2,6}(,[0-9a-f]{2,6}){1,7}$/i;

// A counted run: its Map entry (a small-integer key), the entry object and its hop array.
const ENTRY_BYTES = BYTES.mapEntry + BYTES.object + 2 * BYTES.field + BYTES.object;

/**
 * Runs are counted under a 30-bit hash of their hops (a small integer, so the Map never hashes
 * a freshly joined string: on a large mesh that hashing was a third of all ingest time), with
 * the hops kept in the entry to tell colliding runs apart (a rare collision holds an array of
 * entries). Hop strings are interned by the decoder, so comparing runs is comparing references.
 */
function createState(store) {
  const byLength = [];
  const distinct = [];
  const repeated = [];
  for (let length = 0; length <= MAX_LENGTH; length++) {
    byLength.push(new Map()); // hash -> { hops, count } or [{ hops, count }, ...]
    distinct.push(0);
    // Runs counted more than once: on a large mesh most runs are seen once, so the top list
    // walks these first and reads the single ones only when it must (ties at 1, short lists).
    repeated.push(new Set());
  }
  return { totalPaths: 0, byLength, distinct, repeated, part: memoryPart(store, 'subpaths') };
}

/** A hop's code for hashing: its value and its width (so 'ab' and '00ab' differ). */
function hopCode(hop) {
  return (parseInt(hop, 16) * 4 + (hop.length >> 1)) | 0;
}

function sameRun(entryHops, path, start, length) {
  if (entryHops.length !== length) return false;
  for (let i = 0; i < length; i++) if (entryHops[i] !== path[start + i]) return false;
  return true;
}

/** The entry counting path[start .. start + length - 1] in `map` under `hash`, or undefined. */
function findEntry(map, hash, path, start, length) {
  const slot = map.get(hash);
  if (slot === undefined) return undefined;
  if (!Array.isArray(slot)) return sameRun(slot.hops, path, start, length) ? slot : undefined;
  for (const entry of slot) if (sameRun(entry.hops, path, start, length)) return entry;
  return undefined;
}

function countRun(state, hash, path, start, length, sign) {
  const map = state.byLength[length];
  let entry = findEntry(map, hash, path, start, length);
  if (entry === undefined) {
    if (sign < 0) return; // never counted: nothing to undo
    entry = { hops: path.slice(start, start + length), count: 0 };
    const slot = map.get(hash);
    if (slot === undefined) map.set(hash, entry);
    else if (Array.isArray(slot)) slot.push(entry);
    else map.set(hash, [slot, entry]);
    state.distinct[length]++;
    if (state.part) state.part.add(ENTRY_BYTES + length * BYTES.arraySlot);
  }
  entry.count += sign;
  if (entry.count === 2 && sign > 0) {
    state.repeated[length].add(entry);
    if (state.part) state.part.add(BYTES.mapEntry);
  } else if (entry.count === 1 && sign < 0) {
    state.repeated[length].delete(entry);
    if (state.part) state.part.add(-BYTES.mapEntry);
  }
  if (entry.count > 0) return;
  const slot = map.get(hash);
  if (slot === entry) map.delete(hash);
  else {
    slot.splice(slot.indexOf(entry), 1);
    if (slot.length === 1) map.set(hash, slot[0]);
  }
  state.distinct[length]--;
  if (state.part) state.part.add(-(ENTRY_BYTES + length * BYTES.arraySlot));
}

function hasRepeatedHop(path) {
  for (let i = 1; i < path.length; i++) {
    for (let j = 0; j < i; j++) if (path[i] === path[j]) return true;
  }
  return false;
}

const scratchCodes = [];

function countPath(state, observation, sign) {
  const path = observation.path;
  const hops = path.length;
  if (hops < MIN_LENGTH) return false;
  state.totalPaths += sign;
  for (let i = 0; i < hops; i++) scratchCodes[i] = hopCode(path[i]);
  // Only a path with a repeated hop can hold one run twice: only then deduplicate.
  const seen = hasRepeatedHop(path) ? new Set() : null;
  for (let start = 0; start < hops - 1; start++) {
    let hash = Math.imul(0x811c9dc5 ^ scratchCodes[start], 16777619);
    const stop = Math.min(hops, start + MAX_LENGTH);
    for (let end = start + 1; end < stop; end++) {
      hash = Math.imul(hash ^ scratchCodes[end], 16777619);
      const length = end - start + 1;
      if (seen) {
        const key = path.slice(start, end + 1).join(',');
        if (seen.has(key)) continue;
        seen.add(key);
      }
      countRun(state, hash & 0x3fffffff, path, start, length, sign);
    }
  }
  return true;
}

/** The count of one run given as its hops (0 when not stored). */
function countOf(state, hops) {
  let hash = Math.imul(0x811c9dc5 ^ hopCode(hops[0]), 16777619);
  for (let i = 1; i < hops.length; i++) hash = Math.imul(hash ^ hopCode(hops[i]), 16777619);
  const entry = findEntry(state.byLength[hops.length], hash & 0x3fffffff, hops, 0, hops.length);
  return entry ? entry.count : 0;
}

/** Every counted run of the given lengths: visit(entry). */
function forEachRun(state, minLength, maxLength, visit) {
  for (let length = minLength; length <= maxLength; length++) {
    for (const slot of state.byLength[length].values()) {
      if (Array.isArray(slot)) for (const entry of slot) visit(entry);
      else visit(slot);
    }
  }
}

/** The `limit` runs with the highest counts (ties: smaller joined key first), joined lazily. */
function topRuns(state, minLength, maxLength, limit) {
  const best = []; // [key, count], best first
  const consider = (entry) => {
    // A lower count cannot enter a full list: skip it before joining its key.
    if (best.length === limit && entry.count < best[limit - 1][1]) return;
    keepBest(best, [entry.hops.join(','), entry.count], limit, byCountThenKey);
  };
  for (let length = minLength; length <= maxLength; length++) for (const entry of state.repeated[length]) consider(entry);
  // Runs seen once can only enter a list that is short or ends at a count of 1.
  if (best.length < limit || best[best.length - 1][1] <= 1) {
    forEachRun(state, minLength, maxLength, (entry) => {
      if (entry.count === 1) consider(entry);
    });
  }
  return best;
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
  if (minLength > maxLength) throw new ParamError('subpaths', 'minLength', `must not exceed maxLength (${maxLength})`);
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

function countRows(counts) {
  const keyOf = (row) => (row.hop === null ? '' : row.hop);
  return Array.from(counts, ([hop, count]) => ({ hop, count }))
    .sort((a, b) => b.count - a.count || (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
}

// The detail scan reads at most this many transmissions (newest first) of the rarest hop, so a
// detail costs a few milliseconds however large the store; `scan.complete` says whether it saw
// every stored path (the subpath's own `count` is always exact).
const MAX_SCAN = 5000;

/**
 * One subpath read from the store: the stored paths containing it, found through the
 * transmissions of its rarest hop, newest first (up to MAX_SCAN transmissions). Returns counts
 * per observer, previous and next hop, and the earliest and latest report time among them.
 */
function scanSubpath(store, hops) {
  let source = null;
  for (const hop of hops) {
    const deque = store.byPrefix.get(hop);
    if (!deque) return null;
    if (!source || deque.length < source.length) source = deque;
  }
  const found = { count: 0, observers: new Map(), previous: new Map(), next: new Map(), firstSeen: null, lastSeen: null, transmissions: 0, complete: true };
  source.forEachNewest((tx) => {
    if (found.transmissions === MAX_SCAN) {
      found.complete = false;
      return false;
    }
    found.transmissions++;
    for (const observation of tx.observations) {
      const path = observation.path;
      if (path.length < hops.length) continue;
      const starts = occurrences(path, hops);
      if (starts.length === 0) continue;
      found.count++;
      const id = observation.observer.id;
      found.observers.set(id, (found.observers.get(id) || 0) + 1);
      const before = new Set();
      const after = new Set();
      for (const start of starts) {
        before.add(start > 0 ? path[start - 1] : null);
        after.add(start + hops.length < path.length ? path[start + hops.length] : null);
      }
      for (const hop of before) found.previous.set(hop, (found.previous.get(hop) || 0) + 1);
      for (const hop of after) found.next.set(hop, (found.next.get(hop) || 0) + 1);
      if (found.firstSeen === null || observation.time < found.firstSeen) found.firstSeen = observation.time;
      if (found.lastSeen === null || observation.time > found.lastSeen) found.lastSeen = observation.time;
    }
    return true;
  });
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
      scan: `observers, previous, next and first/last seen come from the newest ${MAX_SCAN} transmissions of the subpath's rarest hop; complete = every stored path was read`,
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
    scan: { transmissions: found ? found.transmissions : 0, paths: found ? found.count : 0, complete: found ? found.complete : true },
  };
}

module.exports = defineView({
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
});
