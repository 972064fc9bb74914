'use strict';
/**
 * distances: how long the radio links are. A link is two consecutive hops of an observed path
 * that each name exactly one known node (store.uniqueNodeFor) with a position. Per unordered
 * node pair: sightings, length (haversine km between the advertised positions), last seen.
 *
 * State counts consecutive hop *prefix* pairs (directory-free, so evict undoes apply exactly,
 * as in neighbours.js); which node a prefix names is read from the directory as it is at
 * snapshot time. Why not fixed at apply time: a view added late (and every region-scoped
 * instance, which catches up on a filled store) would resolve with a directory that already
 * knows later adverts, and so differ from the same view fed live. The answer is a function of
 * the stored packets and the directory now: a late view equals a live one, and a hop that
 * becomes unique when its advert arrives counts from then on for every stored packet.
 * Not the full hop resolver: its answer depends on learnt adjacency.
 *
 * What a snapshot returns is kept as the packets arrive, so a snapshot does not rebuild it:
 *   - each hop prefix remembers the placed node it named when last checked, and each hop pair
 *     the node pair it counts for; a snapshot re-checks (one lookup each) the prefixes created
 *     since the last check and those of the nodes changed since (added, removed, re-roled,
 *     moved: the directory's node changes, directory.js); every prefix when that list no longer
 *     reaches back, and at most 1 s apart, as snapshot-cache.js; it moves only the hop pairs of
 *     a prefix whose node or position changed;
 *   - node pairs carry their length, bin and sightings; the histogram, link and sighting totals
 *     move with every sighting; the node pairs are kept longest first (new ones merged and
 *     emptied ones dropped at the next snapshot), so the longest links are the first `limit`.
 * A snapshot then costs the re-checks (rare), one pass over the ordered node pairs for the
 * weighted median and mean (a flat array, nothing allocated), and the `limit` rows it returns.
 *
 * TRACE paths carry SNRs, not hops: not counted. A position at 0,0 or non-finite is treated as
 * none (firmware sends 0,0 for "not set"). `lastSeen` is the first-heard time of the newest
 * stored transmission showing the link: eviction is oldest-first, so it stays exact.
 */
const { defineView, memoryPart } = require('./view');
const { withSnapshotCache, nodesVersion, MAX_AGE_MS } = require('./snapshot-cache');
const { BYTES, keyBytes } = require('../memory-account');
const { distanceKm } = require('../hop-resolver');
const { PREFIX_LENGTHS } = require('../directory');

const TRACE = 9;
const BIN_EDGES_KM = [1, 2, 5, 10, 20, 40, 80]; // bins: 0-1, 1-2, 2-5, 5-10, 10-20, 20-40, 40-80, 80+
const BIN_LABELS = ['0-1', '1-2', '2-5', '5-10', '10-20', '20-40', '40-80', '80+'];
// A hop prefix: object with 6 fields, its partners Map, its entry in the prefixes Map, a boxed lat and lon.
const PREFIX_BYTES = BYTES.object + 6 * BYTES.field + BYTES.map + BYTES.mapEntry + 2 * BYTES.heapNumber;
// A hop pair: object with 6 fields, one entry in each prefix's partners Map, a boxed lastSeen.
const HOP_PAIR_BYTES = BYTES.object + 6 * BYTES.field + 2 * BYTES.mapEntry + BYTES.heapNumber;
// A node pair: object with 7 fields, boxed km, its Map entry, its members array (one slot
// typical) and its slot in the length order; plus its key string (keyBytes).
const NODE_PAIR_BYTES = BYTES.object + 7 * BYTES.field + BYTES.heapNumber + BYTES.mapEntry + BYTES.object + 2 * BYTES.arraySlot + BYTES.arraySlot;
// Node pairs waiting to be merged into the length order (or emptied ones waiting to leave it)
// are tidied at ingest once they outnumber it by this much, so no snapshot still leaves them bounded.
const TIDY_SLACK = 1024;

function createState(store) {
  return {
    prefixes: new Map(), // hop prefix -> { prefix, partners: Map otherPrefix -> hop pair, node, lat, lon }
    hopPairs: 0, // hop pairs with a count: { x, y (prefix entries), count, lastSeen, nodePair, mark }
    nodePairs: new Map(), // "keyA|keyB" (keyA < keyB) -> { key, a, b, km, bin, count, members: [hop pair] }
    byLength: [], // live node pairs, longest first (byLength), plus emptied ones until the next tidy
    added: [], // node pairs created since the last tidy (not yet in byLength)
    emptied: 0, // node pairs in byLength or added whose count went to 0
    links: 0, // node pairs with a count
    sightings: 0,
    binLinks: BIN_LABELS.map(() => 0),
    binSightings: BIN_LABELS.map(() => 0),
    observations: 0, // observations whose path has at least one pair of distinct adjacent hops
    fresh: [], // prefix entries created since the last check of what prefixes name
    checkedVersion: null, // the directory's node version at the last check (null: check every prefix)
    checkedAt: 0,
    moveMark: 0,
    // Charges made while a snapshot moves hop pairs, settled at the next apply or evict: a
    // snapshot must not push the store over its budget (it evicts only on ingest).
    deferredBytes: 0,
    inSnapshot: false,
    part: memoryPart(store, 'distances'),
  };
}

function charge(state, bytes) {
  if (state.part === null) return;
  if (state.inSnapshot) state.deferredBytes += bytes;
  else state.part.add(bytes);
}

function settleCharges(state) {
  if (state.deferredBytes !== 0 && state.part !== null) state.part.add(state.deferredBytes);
  state.deferredBytes = 0;
}

function placed(node) {
  return node !== null && node !== undefined && typeof node.lat === 'number' && typeof node.lon === 'number'
    && Number.isFinite(node.lat) && Number.isFinite(node.lon) && (node.lat !== 0 || node.lon !== 0);
}

/** The placed node a hop names uniquely now, or null. */
function placedNodeFor(store, hop) {
  const node = store.uniqueNodeFor(hop);
  return placed(node) ? node : null;
}

function prefixEntry(state, store, prefix) {
  let entry = state.prefixes.get(prefix);
  if (entry === undefined) {
    const node = placedNodeFor(store, prefix);
    entry = { prefix, partners: new Map(), node, lat: node === null ? 0 : node.lat, lon: node === null ? 0 : node.lon };
    state.prefixes.set(prefix, entry);
    // Checked again at the next snapshot (the directory may change before it, stamp unchanged).
    if (state.fresh.length > state.prefixes.size + TIDY_SLACK) {
      state.fresh.length = 0;
      state.checkedVersion = null; // too many to list: the next snapshot checks every prefix
    }
    state.fresh.push(entry);
    charge(state, PREFIX_BYTES + keyBytes(prefix));
  }
  return entry;
}

function dropIfUnused(state, entry) {
  if (entry.partners.size > 0) return;
  state.prefixes.delete(entry.prefix);
  charge(state, -(PREFIX_BYTES + keyBytes(entry.prefix)));
}

/** Add `delta` sightings to a node pair, moving the totals and its bin with it. */
function adjust(state, nodePair, delta) {
  const before = nodePair.count;
  nodePair.count = before + delta;
  state.sightings += delta;
  state.binSightings[nodePair.bin] += delta;
  if (before === 0) {
    state.links++;
    state.binLinks[nodePair.bin]++;
  } else if (nodePair.count === 0) {
    state.links--;
    state.binLinks[nodePair.bin]--;
  }
}

/** Count a hop pair for the node pair its prefixes name (if both name distinct placed nodes). */
function attach(state, hopPair) {
  const m = hopPair.x.node;
  const n = hopPair.y.node;
  if (m === null || n === null || m === n) return;
  const first = m.pubKey < n.pubKey ? m : n;
  const second = first === m ? n : m;
  const key = `${first.pubKey}|${second.pubKey}`;
  let nodePair = state.nodePairs.get(key);
  if (nodePair === undefined) {
    const km = distanceKm(first, second);
    nodePair = { key, a: first, b: second, km, bin: binOf(km), count: 0, members: [] };
    state.nodePairs.set(key, nodePair);
    state.added.push(nodePair);
    charge(state, NODE_PAIR_BYTES + keyBytes(key));
  }
  nodePair.members.push(hopPair);
  hopPair.nodePair = nodePair;
  if (hopPair.count > 0) adjust(state, nodePair, hopPair.count);
}

/** Undo attach(); a node pair left without hop pairs is gone (it leaves byLength at the next tidy). */
function detach(state, hopPair) {
  const nodePair = hopPair.nodePair;
  if (nodePair === null) return;
  hopPair.nodePair = null;
  const members = nodePair.members;
  const at = members.indexOf(hopPair);
  members[at] = members[members.length - 1];
  members.pop();
  if (hopPair.count > 0) adjust(state, nodePair, -hopPair.count);
  if (members.length === 0) {
    state.nodePairs.delete(nodePair.key);
    state.emptied++;
    charge(state, -(NODE_PAIR_BYTES + keyBytes(nodePair.key)));
  }
}

/**
 * One sighting of the adjacent hops p, q (p !== q). `left`: p's entry when the caller has it
 * (undefined: looked up). Returns q's entry, so that the path's next sighting starts from it
 * without a lookup (as neighbours.js does).
 */
function sight(state, store, left, p, q, time) {
  if (left === undefined) left = prefixEntry(state, store, p);
  let hopPair = left.partners.get(q);
  let right;
  if (hopPair !== undefined) {
    right = hopPair.x === left ? hopPair.y : hopPair.x;
  } else {
    right = prefixEntry(state, store, q);
    hopPair = { x: left, y: right, count: 0, lastSeen: 0, nodePair: null, mark: 0 };
    left.partners.set(q, hopPair);
    right.partners.set(p, hopPair);
    state.hopPairs++;
    charge(state, HOP_PAIR_BYTES);
    attach(state, hopPair);
  }
  hopPair.count++;
  if (time > hopPair.lastSeen) hopPair.lastSeen = time;
  if (hopPair.nodePair !== null) adjust(state, hopPair.nodePair, 1);
  return right;
}

/** Undo one sight(); frees the hop pair (and prefixes nothing else uses) at zero. */
function unsight(state, p, q) {
  const left = state.prefixes.get(p);
  const hopPair = left === undefined ? undefined : left.partners.get(q);
  if (hopPair === undefined) return; // nothing to undo (cannot happen while apply and evict mirror)
  hopPair.count--;
  if (hopPair.nodePair !== null) adjust(state, hopPair.nodePair, -1);
  if (hopPair.count > 0) return;
  detach(state, hopPair);
  hopPair.x.partners.delete(hopPair.y.prefix);
  hopPair.y.partners.delete(hopPair.x.prefix);
  state.hopPairs--;
  charge(state, -HOP_PAIR_BYTES);
  dropIfUnused(state, hopPair.x);
  dropIfUnused(state, hopPair.y);
}

/** Apply (sign 1) or undo (sign -1) one observation's adjacent hop pairs. */
function count(state, store, tx, path, sign) {
  let any = false;
  let carried; // path[i - 1]'s entry, from the previous sighting (counts only go up while applying)
  for (let i = 1; i < path.length; i++) {
    const p = path[i - 1];
    const q = path[i];
    if (typeof p !== 'string' || typeof q !== 'string' || p === q) {
      carried = undefined;
      continue;
    }
    if (sign > 0) carried = sight(state, store, carried, p, q, tx.time);
    else unsight(state, p, q);
    any = true;
  }
  if (any) state.observations += sign;
  if (state.added.length + state.emptied > state.byLength.length + TIDY_SLACK) tidy(state);
  return any;
}

function apply(state, tx, observation, store) {
  settleCharges(state);
  if (tx.payloadType === TRACE || !observation || !Array.isArray(observation.path)) return false;
  return count(state, store, tx, observation.path, 1);
}

function evict(state, tx, store) {
  settleCharges(state);
  if (tx.payloadType === TRACE) return false;
  let any = false;
  for (const observation of tx.observations) if (Array.isArray(observation.path) && count(state, store, tx, observation.path, -1)) any = true;
  return any;
}

/**
 * Bring the prefixes' nodes up to the directory as it is now: those created since the last check
 * and those of the nodes changed since (directory.js's nodeChanges), or every prefix when that
 * list no longer reaches back, after MAX_AGE_MS, or on the first check. Hop pairs of a prefix
 * whose node (or its position) changed move to their new node pair.
 */
function checkPrefixes(state, store) {
  const version = nodesVersion(store);
  const at = Date.now();
  let full = state.checkedVersion === null || at - state.checkedAt > MAX_AGE_MS;
  let changedKeys = [];
  if (!full && version !== state.checkedVersion) {
    changedKeys = store.directory.nodeChanges.since(state.checkedVersion);
    if (changedKeys === null) full = true;
  }
  let entries = state.fresh;
  if (full) {
    entries = state.prefixes.values();
    state.checkedAt = at;
  } else if (changedKeys.length > 0) {
    // A node's change can change only what the prefixes of its own key name.
    entries = state.fresh.slice();
    for (const key of changedKeys) {
      for (const length of PREFIX_LENGTHS) {
        const entry = state.prefixes.get(key.slice(0, length));
        if (entry !== undefined) entries.push(entry);
      }
    }
  }
  state.checkedVersion = version;
  let changed = null;
  for (const entry of entries) {
    const node = placedNodeFor(store, entry.prefix);
    if (node === entry.node && (node === null || (node.lat === entry.lat && node.lon === entry.lon))) continue;
    if (state.prefixes.get(entry.prefix) !== entry) continue; // a fresh entry already dropped
    entry.node = node;
    entry.lat = node === null ? 0 : node.lat;
    entry.lon = node === null ? 0 : node.lon;
    (changed || (changed = [])).push(entry);
  }
  state.fresh.length = 0;
  if (changed === null) return;
  // Detach every hop pair of a changed prefix first, then attach them with both ends current.
  const mark = ++state.moveMark;
  const moved = [];
  for (const entry of changed) {
    for (const hopPair of entry.partners.values()) {
      if (hopPair.mark === mark) continue;
      hopPair.mark = mark;
      detach(state, hopPair);
      moved.push(hopPair);
    }
  }
  for (const hopPair of moved) attach(state, hopPair);
}

const isLive = (nodePair) => nodePair.count > 0;

/** Merge the node pairs added since the last tidy into the length order and drop emptied ones. */
function tidy(state) {
  if (state.added.length === 0 && state.emptied === 0) return;
  const order = state.byLength;
  const added = state.added.length === 0 ? state.added : state.added.filter(isLive).sort(byLength);
  if (added.length === 0) {
    let kept = 0;
    for (let i = 0; i < order.length; i++) if (order[i].count > 0) order[kept++] = order[i];
    order.length = kept;
  } else {
    const merged = [];
    let i = 0;
    let j = 0;
    while (i < order.length || j < added.length) {
      if (i < order.length && order[i].count === 0) {
        i++;
      } else if (j === added.length || (i < order.length && byLength(order[i], added[j]) < 0)) {
        merged.push(order[i++]);
      } else {
        merged.push(added[j++]);
      }
    }
    state.byLength = merged;
  }
  state.added = [];
  state.emptied = 0;
}

function binOf(km) {
  let bin = 0;
  while (bin < BIN_EDGES_KM.length && km >= BIN_EDGES_KM[bin]) bin++;
  return bin;
}

function byLength(x, y) {
  return y.km - x.km || (x.key < y.key ? -1 : x.key > y.key ? 1 : 0);
}

function brief(node) {
  return { pubKey: node.pubKey, name: node.name || null };
}

function lastSeenOf(nodePair) {
  let lastSeen = 0;
  for (const hopPair of nodePair.members) if (hopPair.lastSeen > lastSeen) lastSeen = hopPair.lastSeen;
  return lastSeen;
}

function snapshot(state, params, store) {
  state.inSnapshot = true;
  try {
    checkPrefixes(state, store);
    tidy(state);
  } finally {
    state.inSnapshot = false;
  }
  const order = state.byLength;
  const sightings = state.sightings;
  // Traffic-weighted median: the length at which half the sightings (rounded up) are reached,
  // shortest first; the mean summed over the same walk.
  let medianKm = null;
  let weightedKm = 0;
  const half = Math.ceil(sightings / 2);
  let seen = 0;
  for (let i = order.length - 1; i >= 0; i--) {
    const nodePair = order[i];
    weightedKm += nodePair.km * nodePair.count;
    if (seen < half) {
      seen += nodePair.count;
      if (seen >= half) medianKm = nodePair.km;
    }
  }
  const longest = [];
  for (let i = 0; i < order.length && i < params.limit; i++) {
    const pair = order[i];
    longest.push({ a: brief(pair.a), b: brief(pair.b), km: pair.km, count: pair.count, lastSeen: lastSeenOf(pair) });
  }
  return {
    units: {
      km: 'great-circle length between the two nodes\' advertised positions',
      count: 'sightings: adjacent hops in stored observations whose prefixes each name one placed node now',
      observations: 'stored observations (not TRACE) with at least two distinct adjacent hops, resolved or not',
      lastSeen: 'first-heard time of the newest stored transmission showing the link (ms)',
    },
    links: state.links,
    observations: state.observations,
    sightings,
    histogram: BIN_LABELS.map((label, i) => ({ bin: label, links: state.binLinks[i], sightings: state.binSightings[i] })),
    meanKm: sightings > 0 ? weightedKm / sightings : null,
    medianKm,
    longest,
  };
}

module.exports = defineView(withSnapshotCache({
  name: 'distances',
  description: 'Lengths of links between adjacent hops that name one known, placed node each: histogram, traffic-weighted mean and median, longest links.',
  params: {
    limit: { type: 'int', min: 1, max: 200, default: 20 },
  },
  createState,
  apply,
  evict,
  snapshot,
}));
