'use strict';
/**
 * distances: how long the radio links are. A link is two consecutive hops of an observed path
 * that each name exactly one known node (store.uniqueNodeFor) with a position. Per unordered
 * node pair: sightings, length (haversine km between the advertised positions), last seen.
 *
 * State counts consecutive hop *prefix* pairs (directory-free, so evict undoes apply exactly,
 * as in neighbours.js); the prefixes are turned into nodes and positions at snapshot time, with
 * the directory as it is then. Why not at apply time: a view added late (and every
 * region-scoped instance, which catches up on a filled store) would resolve with a directory
 * that already knows later adverts, and so differ from the same view fed live. Resolving in
 * snapshot() makes the answer a function of the stored packets and the directory: a late view
 * equals a live one, and a hop that becomes unique when its advert arrives counts from then on
 * for every stored packet. Not the full hop resolver: its answer depends on learnt adjacency.
 *
 * TRACE paths carry SNRs, not hops: not counted. A position at 0,0 or non-finite is treated as
 * none (firmware sends 0,0 for "not set"). `lastSeen` is the first-heard time of the newest
 * stored transmission showing the link: eviction is oldest-first, so it stays exact.
 * Snapshot cost: one pass over the distinct hop pairs (bounded by the mesh, not by packets).
 */
const { defineView, memoryPart } = require('./view');
const { withSnapshotCache } = require('./snapshot-cache');
const { BYTES, keyBytes } = require('../memory-account');
const { distanceKm } = require('../hop-resolver');

const TRACE = 9;
const BIN_EDGES_KM = [1, 2, 5, 10, 20, 40, 80]; // bins: 0-1, 1-2, 2-5, 5-10, 10-20, 20-40, 40-80, 80+
const BIN_LABELS = ['0-1', '1-2', '2-5', '5-10', '10-20', '20-40', '40-80', '80+'];
// A hop pair: object with 5 fields, its Map entry and its key string (two prefixes, a separator).
const HOP_PAIR_BYTES = BYTES.object + 5 * BYTES.field + BYTES.mapEntry + BYTES.heapNumber;

function createState(store) {
  return {
    hopPairs: new Map(), // "x|y" (x < y, hop prefixes) -> { x, y, count, lastSeen }
    observations: 0, // observations whose path has at least one pair of distinct adjacent hops
    part: memoryPart(store, 'distances'),
  };
}

/** Apply (sign 1) or undo (sign -1) one observation's adjacent hop pairs. */
function count(state, tx, path, sign) {
  let any = false;
  for (let i = 1; i < path.length; i++) {
    const p = path[i - 1];
    const q = path[i];
    if (typeof p !== 'string' || typeof q !== 'string' || p === q) continue;
    const [x, y] = p < q ? [p, q] : [q, p];
    const key = `${x}|${y}`;
    let pair = state.hopPairs.get(key);
    if (pair === undefined) {
      if (sign < 0) continue; // nothing to undo (cannot happen while apply and evict mirror)
      pair = { x, y, count: 0, lastSeen: 0 };
      state.hopPairs.set(key, pair);
      if (state.part) state.part.add(HOP_PAIR_BYTES + keyBytes(key));
    }
    pair.count += sign;
    if (sign > 0 && tx.time > pair.lastSeen) pair.lastSeen = tx.time;
    if (pair.count === 0) {
      state.hopPairs.delete(key);
      if (state.part) state.part.add(-(HOP_PAIR_BYTES + keyBytes(key)));
    }
    any = true;
  }
  if (any) state.observations += sign;
  return any;
}

function apply(state, tx, observation) {
  if (tx.payloadType === TRACE || !observation || !Array.isArray(observation.path)) return false;
  return count(state, tx, observation.path, 1);
}

function evict(state, tx) {
  if (tx.payloadType === TRACE) return false;
  let any = false;
  for (const observation of tx.observations) if (Array.isArray(observation.path) && count(state, tx, observation.path, -1)) any = true;
  return any;
}

function placed(node) {
  return node !== null && node !== undefined && typeof node.lat === 'number' && typeof node.lon === 'number'
    && Number.isFinite(node.lat) && Number.isFinite(node.lon) && (node.lat !== 0 || node.lon !== 0);
}

/** The placed node a hop names uniquely now, or null; memoised for one snapshot. */
function placedNodeFor(store, hop, memo) {
  let node = memo.get(hop);
  if (node === undefined) {
    node = store.uniqueNodeFor(hop);
    if (!placed(node)) node = null;
    memo.set(hop, node);
  }
  return node;
}

/** Node pairs from the hop pairs, with the directory as it is now. */
function nodePairs(state, store) {
  const memo = new Map();
  const pairs = new Map();
  for (const hopPair of state.hopPairs.values()) {
    const m = placedNodeFor(store, hopPair.x, memo);
    if (m === null) continue;
    const n = placedNodeFor(store, hopPair.y, memo);
    if (n === null || n === m) continue;
    const [first, second] = m.pubKey < n.pubKey ? [m, n] : [n, m];
    const key = `${first.pubKey}|${second.pubKey}`;
    let pair = pairs.get(key);
    if (pair === undefined) {
      pair = { key, a: first, b: second, km: distanceKm(first, second), count: 0, lastSeen: 0 };
      pairs.set(key, pair);
    }
    pair.count += hopPair.count;
    if (hopPair.lastSeen > pair.lastSeen) pair.lastSeen = hopPair.lastSeen;
  }
  return Array.from(pairs.values());
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

function snapshot(state, params, store) {
  const pairs = nodePairs(state, store);
  let sightings = 0;
  const histogram = BIN_LABELS.map((label) => ({ bin: label, links: 0, sightings: 0 }));
  let weightedKm = 0;
  for (const pair of pairs) {
    const bin = histogram[binOf(pair.km)];
    bin.links++;
    bin.sightings += pair.count;
    weightedKm += pair.km * pair.count;
    sightings += pair.count;
  }
  pairs.sort(byLength);
  // Traffic-weighted median: the length at which half the sightings (rounded up) are reached, shortest first.
  let medianKm = null;
  if (sightings > 0) {
    const half = Math.ceil(sightings / 2);
    let seen = 0;
    for (let i = pairs.length - 1; i >= 0; i--) {
      seen += pairs[i].count;
      if (seen >= half) {
        medianKm = pairs[i].km;
        break;
      }
    }
  }
  const longest = pairs.slice(0, params.limit).map((pair) => ({
    a: brief(pair.a), b: brief(pair.b), km: pair.km, count: pair.count, lastSeen: pair.lastSeen,
  }));
  return {
    units: {
      km: 'great-circle length between the two nodes\' advertised positions',
      count: 'sightings: adjacent hops in stored observations whose prefixes each name one placed node now',
      observations: 'stored observations (not TRACE) with at least two distinct adjacent hops, resolved or not',
      lastSeen: 'first-heard time of the newest stored transmission showing the link (ms)',
    },
    links: pairs.length,
    observations: state.observations,
    sightings,
    histogram,
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
