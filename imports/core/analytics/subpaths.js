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
 * Everything is exact and uncapped, kept per distinct subpath: count, per-observer counts,
 * previous/next hop counts and per-hour counts (small flat lists). A path of h hops touches at
 * most 7h entries, so apply and evict are O(hops); memory is about half a kilobyte per distinct
 * subpath in the store, bounded by the mesh's routes rather than by packet count (the
 * simulator's default mesh has ~2,200 at 1M packets). First/last seen are exact too: the hour
 * lists say which hour holds them, and only that hour of the rarest hop's transmissions
 * (store.byPrefix) is scanned, widened by the longest report delay seen (`maxLateness`).
 */
const { defineView, ParamError, hourBucket, HOUR_MS, memoryPart } = require('./view');
const { BYTES } = require('../memory-account');
const { topByCount, describePrefix } = require('./aggregates');

const MIN_LENGTH = 2;
const MAX_LENGTH = 8;
const SUBPATH_RE = /^[0-9a-f]{2,6}(,[0-9a-f]{2,6}){1,7}$/i;

// A subpath entry: object, four list arrays, Map entry (its key string is charged by length).
const ENTRY_BYTES = BYTES.object + 5 * BYTES.field + 4 * (BYTES.object + 2 * BYTES.field) + BYTES.mapEntry + BYTES.string;
const PAIR_BYTES = 2 * BYTES.arraySlot; // one [key, count] pair in a flat list

function createState(store) {
  const byLength = [];
  for (let length = 0; length <= MAX_LENGTH; length++) byLength.push(new Map()); // "a,b,c" -> entry
  // maxLateness: longest gap between a transmission's first hearing and a later report of it;
  // only ever grows, so it stays an upper bound for every stored observation.
  return { totalPaths: 0, byLength, maxLateness: 0, part: memoryPart(store, 'subpaths') };
}

// ---- Flat [key, count, key, count, ...] lists: small, and cheaper than a Map per subpath ----

function listBump(list, key, delta, part) {
  for (let i = 0; i < list.length; i += 2) {
    if (list[i] !== key) continue;
    const next = list[i + 1] + delta;
    if (next === 0) {
      list.splice(i, 2);
      if (part) part.add(-PAIR_BYTES);
    } else list[i + 1] = next;
    return;
  }
  list.push(key, delta);
  if (part) part.add(PAIR_BYTES);
}

/**
 * Hours stay ascending. Apply counts the current hour, at the end; evict the oldest, at the
 * front: each searches from its own end.
 */
function hourBump(list, hour, delta, part) {
  let i;
  if (delta < 0) {
    i = 0;
    while (i < list.length && list[i] !== hour) i += 2;
    if (i >= list.length) return; // never counted: nothing to undo
  } else {
    i = list.length - 2;
    while (i >= 0 && list[i] > hour) i -= 2;
    if (i < 0 || list[i] !== hour) {
      list.splice(i + 2, 0, hour, delta);
      if (part) part.add(PAIR_BYTES + BYTES.heapNumber);
      return;
    }
  }
  const next = list[i + 1] + delta;
  if (next === 0) {
    list.splice(i, 2);
    if (part) part.add(-(PAIR_BYTES + BYTES.heapNumber));
  } else list[i + 1] = next;
}

/** Count one path in a subpath's entry; returns the entry, or null once nothing is left of it. */
function touch(state, length, key, observerId, hour, sign) {
  const map = state.byLength[length];
  let entry = map.get(key);
  const part = state.part;
  if (!entry) {
    entry = { count: 0, observers: [], previous: [], next: [], hours: [] };
    map.set(key, entry);
    if (part) part.add(ENTRY_BYTES + key.length);
  }
  entry.count += sign;
  if (entry.count === 0) {
    // What the entry's lists still hold goes with it (their pairs were charged one by one).
    if (part) part.add(-(ENTRY_BYTES + key.length + (entry.observers.length + entry.previous.length + entry.next.length) / 2 * PAIR_BYTES + entry.hours.length / 2 * (PAIR_BYTES + BYTES.heapNumber)));
    map.delete(key);
    return null;
  }
  listBump(entry.observers, observerId, sign, part);
  hourBump(entry.hours, hour, sign, part);
  return entry;
}

function hasRepeatedHop(path) {
  for (let i = 1; i < path.length; i++) {
    for (let j = 0; j < i; j++) if (path[i] === path[j]) return true;
  }
  return false;
}

function countPath(state, tx, observation, sign) {
  const path = observation.path;
  const hops = path.length;
  if (hops < MIN_LENGTH) return false;
  state.totalPaths += sign;
  if (sign > 0 && observation.time - tx.time > state.maxLateness) state.maxLateness = observation.time - tx.time;
  const observerId = observation.observer.id;
  const hour = hourBucket(observation.time);
  // Only a path with a repeated hop can hold one run twice: only then group occurrences.
  const groups = hasRepeatedHop(path) ? new Map() : null;
  for (let start = 0; start < hops - 1; start++) {
    let key = path[start];
    const before = start > 0 ? path[start - 1] : null;
    const stop = Math.min(hops, start + MAX_LENGTH);
    for (let end = start + 1; end < stop; end++) {
      key += `,${path[end]}`;
      const after = end + 1 < hops ? path[end + 1] : null;
      if (groups) {
        let group = groups.get(key);
        if (!group) {
          group = { length: end - start + 1, previous: new Set(), next: new Set() };
          groups.set(key, group);
        }
        group.previous.add(before);
        group.next.add(after);
      } else {
        const entry = touch(state, end - start + 1, key, observerId, hour, sign);
        if (entry) {
          listBump(entry.previous, before, sign, state.part);
          listBump(entry.next, after, sign, state.part);
        }
      }
    }
  }
  if (groups) {
    for (const [key, group] of groups) {
      const entry = touch(state, group.length, key, observerId, hour, sign);
      if (!entry) continue;
      for (const hop of group.previous) listBump(entry.previous, hop, sign, state.part);
      for (const hop of group.next) listBump(entry.next, hop, sign, state.part);
    }
  }
  return true;
}

function apply(state, tx, observation) {
  return countPath(state, tx, observation, 1);
}

function evict(state, tx) {
  let changed = false;
  for (const observation of tx.observations) changed = countPath(state, tx, observation, -1) || changed;
  return changed;
}

function nameOf(store, hop) {
  const candidates = store.resolvePrefix(hop);
  return candidates.length === 1 ? candidates[0].name : null;
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
    subpaths: topByCount(maps, limit, (entry) => entry.count).map(([subpath, count]) => {
      const hops = subpath.split(',');
      return { subpath, hops, length: hops.length, count, share: total ? count / total : 0, names: hops.map((hop) => nameOf(store, hop)) };
    }),
  };
}

function contains(path, hops) {
  for (let start = 0; start + hops.length <= path.length; start++) {
    let k = 0;
    while (k < hops.length && path[start + k] === hops[k]) k++;
    if (k === hops.length) return true;
  }
  return false;
}

/**
 * Earliest (pick = -1) or latest (pick = 1) report time of the subpath within `hour`: a report in
 * that hour belongs to a transmission first heard at most maxLateness before it.
 */
function seenIn(state, store, hops, hour, pick) {
  let source = null;
  for (const hop of hops) {
    const deque = store.byPrefix.get(hop);
    if (!deque) return null;
    if (!source || deque.length < source.length) source = deque;
  }
  let best = null;
  for (let i = source.lowerBoundTime(hour - state.maxLateness); i < source.length; i++) {
    const tx = source.at(i);
    if (tx.time >= hour + HOUR_MS || (pick < 0 && best !== null && tx.time >= best)) break;
    for (const observation of tx.observations) {
      const time = observation.time;
      if (time < hour || time >= hour + HOUR_MS || observation.path.length < hops.length) continue;
      if (best !== null && (pick < 0 ? time >= best : time <= best)) continue;
      if (contains(observation.path, hops)) best = time;
    }
  }
  return best;
}

function countRows(list) {
  const rows = [];
  for (let i = 0; i < list.length; i += 2) rows.push({ hop: list[i], count: list[i + 1] });
  const keyOf = (row) => (row.hop === null ? '' : row.hop);
  return rows.sort((a, b) => b.count - a.count || (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
}

function detailSnapshot(state, params, store) {
  const hops = params.subpath.split(',');
  const key = hops.join(',');
  const entry = state.byLength[hops.length].get(key);
  const observers = [];
  if (entry) {
    for (let i = 0; i < entry.observers.length; i += 2) {
      const observer = store.observers.get(entry.observers[i]);
      observers.push({ id: observer.id, name: observer.name, region: observer.region, count: entry.observers[i + 1] });
    }
    observers.sort((a, b) => b.count - a.count || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
  const count = entry ? entry.count : 0;
  return {
    units: {
      count: 'stored paths (one per observation) containing the subpath at least once; share = count / totalPaths',
      observers: 'paths each observer reported containing the subpath',
      previous: 'paths per hop heard just before the subpath (null: the subpath starts the path)',
      next: 'paths per hop heard just after the subpath (null: the subpath ends the path)',
      firstSeen: 'earliest and latest report time (ms) of a stored path containing it',
    },
    subpath: key,
    length: hops.length,
    count,
    share: state.totalPaths ? count / state.totalPaths : 0,
    totalPaths: state.totalPaths,
    hops: hops.map((hop) => ({ hop, hashSize: hop.length / 2, ...describePrefix(store, hop) })),
    observers,
    firstSeen: entry ? seenIn(state, store, hops, entry.hours[0], -1) : null,
    lastSeen: entry ? seenIn(state, store, hops, entry.hours[entry.hours.length - 2], 1) : null,
    previous: entry ? countRows(entry.previous) : [],
    next: entry ? countRows(entry.next) : [],
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
