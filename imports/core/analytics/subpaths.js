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
const { topByCount, describePrefix } = require('./aggregates');
const { countIn } = require('../memory-account');

const MIN_LENGTH = 2;
const MAX_LENGTH = 8;
const SUBPATH_RE = /^[0-9a-f]{2,6}(,[0-9a-f]{2,6}){1,7}$/i;

// A count's Map entry and its key: a joined key is kept with the cons-string cells that built it.
const ENTRY_BYTES = 100;

function createState(store) {
  const byLength = [];
  for (let length = 0; length <= MAX_LENGTH; length++) byLength.push(new Map()); // "a,b,c" -> paths containing it
  return { totalPaths: 0, byLength, part: memoryPart(store, 'subpaths') };
}

function hasRepeatedHop(path) {
  for (let i = 1; i < path.length; i++) {
    for (let j = 0; j < i; j++) if (path[i] === path[j]) return true;
  }
  return false;
}

function countPath(state, observation, sign) {
  const path = observation.path;
  const hops = path.length;
  if (hops < MIN_LENGTH) return false;
  state.totalPaths += sign;
  // Only a path with a repeated hop can hold one run twice: only then deduplicate.
  const seen = hasRepeatedHop(path) ? new Set() : null;
  for (let start = 0; start < hops - 1; start++) {
    let key = path[start];
    const stop = Math.min(hops, start + MAX_LENGTH);
    for (let end = start + 1; end < stop; end++) {
      key += `,${path[end]}`;
      if (seen) {
        if (seen.has(key)) continue;
        seen.add(key);
      }
      const map = state.byLength[end - start + 1];
      const count = countIn(map, key, sign, null);
      if (state.part && (count === 0 || (count === sign && sign > 0))) state.part.add(sign * (ENTRY_BYTES + key.length));
    }
  }
  return true;
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
  const maps = state.byLength.slice(minLength, maxLength + 1);
  let distinct = 0;
  for (const map of maps) distinct += map.size;
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
    subpaths: topByCount(maps, limit).map(([subpath, count]) => {
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
const MAX_SCAN = 20000;

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
  const count = state.byLength[hops.length].get(key) || 0;
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
