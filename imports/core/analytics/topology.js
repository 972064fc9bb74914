'use strict';
/**
 * topology: how far packets travel and through whom. Hop-count distribution, mean, median and
 * max; the busiest repeaters (hop hashes, resolved to nodes at snapshot, candidates listed when a
 * prefix is ambiguous); the busiest adjacent hop pairs; mean SNR per hop count; reach per observer.
 *
 * Unit: an observation, with the path that observer heard (hop count = its length). TRACE
 * observations are left out (their header path carries SNRs, not hops) and counted in
 * `traceObservations`. Repeaters and pairs count appearances in observed paths (a hop heard by
 * three observers counts three times). Pairs are ordered as the packet travelled: "a,b" means
 * b repeated what a sent. All figures are exact.
 *
 * Each listed pair also carries `resolved`: the nodes behind its two hops as hop-resolver.js
 * resolves the two-hop path on its own (no observer or source to anchor it), each end
 * { pubKey, name, role, by } or null where it stays ambiguous or unknown. `by` says how:
 * `prefix` (one repeater carries the hash), `range` (one combination within radio range) or
 * `nearest` (the clearly shortest combination: a likely answer, not a certain one). The map
 * draws its links from them: on a big mesh most 1-byte hashes are shared, and pairs resolved by
 * prefix alone drew none of the 200 busiest. A pair whose hashes many repeaters share is
 * resolved by prefix alone (MAX_PAIR_COMBINATIONS), which bounds the snapshot's cost.
 */
const { defineView, memoryPart } = require('./view');
const { withSnapshotCache } = require('./snapshot-cache');
const { BYTES, keyBytes } = require('../memory-account');
const { MeanAccumulator, describePrefix, nodeBrief } = require('./aggregates');
const { TopTracker } = require('./top-tracker');
const { PairCounts } = require('./pair-counts');
const { resolvePath } = require('../hop-resolver');

const TRACE = 9;
const MAX_HOPS = 63; // 6-bit hop count in the path-length byte
const TOP_REPEATERS = 20;
const TOP_PAIRS = 15;

// One observer's reach entry: the object, its histogram, its id and its list of hops.
const REACH_BYTES = BYTES.object + 7 * BYTES.field + BYTES.typedArray + (MAX_HOPS + 1) * 8 + BYTES.object + BYTES.field + BYTES.mapEntry;
// A hop's entry: the entry, an object with its hop, id, count, Map of next hops (made on first
// use) and top-list flag.
const HOP_BYTES = BYTES.mapEntry + BYTES.object + 5 * BYTES.field;
// A pair's counter under its first hop: the entry and { from, to, count, ranked }.
const PAIR_BYTES = BYTES.mapEntry + BYTES.object + 4 * BYTES.field;

function hopOrder(x, y) {
  return y.count - x.count || (x.hop < y.hop ? -1 : x.hop > y.hop ? 1 : 0);
}

// Pairs tie by their joined key "from,to"; comparing from, then to, gives the same order (',' sorts before every hex digit).
function pairOrder(x, y) {
  return y.count - x.count || (x.from < y.from ? -1 : x.from > y.from ? 1 : x.to < y.to ? -1 : x.to > y.to ? 1 : 0);
}

function createState(store) {
  const snrByHops = [];
  for (let hops = 0; hops <= MAX_HOPS; hops++) snrByHops.push(new MeanAccumulator(4));
  const state = {
    observations: 0,
    traceObservations: 0,
    hopHistogram: new Float64Array(MAX_HOPS + 1),
    snrByHops,
    // hop hash -> { count: appearances, next: Map to hop -> { count } (pairs "hop,to"), or null }:
    // pairs nested under their first hop's entry by interned hop strings, so no "a,b" string is
    // built and hashed per hop of every report, and a hop and its pair cost one lookup each.
    hopCounts: new Map(),
    pairs: 0, // distinct pairs
    observers: new Map(), // observer id -> { observer, id, observations, hopHistogram, distinctHops, hops }
    part: memoryPart(store, 'topology'),
  };
  // Appearances of each hop per observer, keyed by (reach id, hop entry id) in one typed-array
  // table (pair-counts.js) rather than a Map of counter objects per observer: a probe per hop.
  state.reachHops = new PairCounts(1, state.part);
  state.hopIds = { free: [], next: 0 };
  state.reachIds = { free: [], next: 0 };
  // The busiest hops and pairs without a pass over all of them per snapshot (top-tracker.js).
  state.topHops = new TopTracker({
    countOf: (entry) => entry.count,
    compare: hopOrder,
    forEach: (visit) => {
      for (const entry of state.hopCounts.values()) visit(entry);
    },
  });
  state.topPairs = new TopTracker({
    countOf: (pair) => pair.count,
    compare: pairOrder,
    forEach: (visit) => {
      for (const entry of state.hopCounts.values()) if (entry.next !== null) for (const pair of entry.next.values()) visit(pair);
    },
  });
  return state;
}

/** A small id, reused once freed. */
function takeId(ids) {
  return ids.free.length > 0 ? ids.free.pop() : ids.next++;
}

/** Count one appearance of a hop in an observer's paths up or down (distinctHops follows). */
function countReachHop(state, reach, hopEntry, sign) {
  const table = state.reachHops;
  const entry = sign > 0 ? table.entry(reach.id, hopEntry.id, reach.hops) : table.find(reach.id, hopEntry.id);
  if (entry < 0) return; // never counted: nothing to undo
  const values = table.values;
  if (values[entry] === 0) reach.distinctHops++;
  values[entry] += sign;
  if (values[entry] === 0) {
    table.remove(entry, reach.hops);
    reach.distinctHops--;
  }
}

/** The hop's entry, created for a count up; undefined for a count down of a hop not counted. */
function hopEntry(state, hop, sign) {
  let entry = state.hopCounts.get(hop);
  if (entry === undefined && sign > 0) {
    entry = { hop, id: takeId(state.hopIds), count: 0, next: null, ranked: false };
    state.hopCounts.set(hop, entry);
    if (state.part) state.part.add(HOP_BYTES + keyBytes(hop));
  }
  return entry;
}

/** Count the pair from -> to under the first hop's entry (held by the caller, even once deleted). */
function countPair(state, fromEntry, to, sign) {
  if (fromEntry.next === null) {
    if (sign < 0) return;
    fromEntry.next = new Map();
    if (state.part) state.part.add(BYTES.map);
  }
  let pair = fromEntry.next.get(to);
  if (pair === undefined) {
    if (sign < 0) return; // never counted: nothing to undo
    pair = { from: fromEntry.hop, to, count: 0, ranked: false };
    fromEntry.next.set(to, pair);
    state.pairs++;
    if (state.part) state.part.add(PAIR_BYTES + keyBytes(to));
  }
  pair.count += sign;
  if (sign > 0) state.topPairs.raised(pair, pair.count);
  else if (pair.count === 0) {
    fromEntry.next.delete(to);
    state.pairs--;
    if (state.part) state.part.add(-(PAIR_BYTES + keyBytes(to)));
  }
  if (fromEntry.next.size === 0) {
    fromEntry.next = null;
    if (state.part) state.part.add(-BYTES.map);
  }
}

function count(state, observation, sign) {
  const path = observation.path;
  const hops = Math.min(path.length, MAX_HOPS);
  state.observations += sign;
  state.hopHistogram[hops] += sign;
  if (observation.snr !== null) state.snrByHops[hops].add(observation.snr, sign);

  let reach = state.observers.get(observation.observer.id);
  if (!reach) {
    reach = { observer: observation.observer, id: takeId(state.reachIds), observations: 0, hopHistogram: new Float64Array(MAX_HOPS + 1), distinctHops: 0, hops: { head: -1 } };
    state.observers.set(observation.observer.id, reach);
    if (state.part) state.part.add(REACH_BYTES);
  }
  reach.observations += sign;
  reach.hopHistogram[hops] += sign;
  let previous;
  for (let i = 0; i < path.length; i++) {
    const hop = path[i];
    const entry = hopEntry(state, hop, sign);
    if (entry === undefined) break; // nothing of this path was counted (apply and evict mirror)
    entry.count += sign;
    if (sign > 0) state.topHops.raised(entry, entry.count);
    // Before the hop's id can be freed: the observer's count of it is below the hop's own.
    countReachHop(state, reach, entry, sign);
    // A hop's pairs are among its own appearances: at zero it has none left (or its pair from
    // this hop to the next, decremented next through `previous`).
    if (entry.count === 0) {
      state.hopCounts.delete(hop);
      state.hopIds.free.push(entry.id);
      if (state.part) state.part.add(-(HOP_BYTES + keyBytes(hop)));
    }
    if (i > 0) countPair(state, previous, hop, sign);
    previous = entry;
  }
  if (reach.observations === 0) {
    state.observers.delete(observation.observer.id);
    state.reachIds.free.push(reach.id);
    if (state.part) state.part.add(-REACH_BYTES);
  }
}

function apply(state, tx, observation) {
  if (tx.payloadType === TRACE) state.traceObservations++;
  else count(state, observation, 1);
  return true;
}

function evict(state, tx) {
  for (const observation of tx.observations) {
    if (tx.payloadType === TRACE) state.traceObservations--;
    else count(state, observation, -1);
  }
  return true;
}

/** { count, mean, median, max } of a hop-count histogram (index = hops). */
function hopFigures(histogram) {
  let n = 0;
  let sum = 0;
  let max = null;
  for (let hops = 0; hops < histogram.length; hops++) {
    if (histogram[hops] === 0) continue;
    n += histogram[hops];
    sum += hops * histogram[hops];
    max = hops;
  }
  if (n === 0) return { count: 0, mean: null, median: null, max: null };
  const lowRank = Math.floor((n - 1) / 2);
  const highRank = Math.floor(n / 2);
  let seen = 0;
  let low = null;
  let median = null;
  for (let hops = 0; hops <= max; hops++) {
    seen += histogram[hops];
    if (low === null && seen > lowRank) low = hops;
    if (seen > highRank) {
      median = (low + hops) / 2;
      break;
    }
  }
  return { count: n, mean: sum / n, median, max };
}

function hopRow(store, hop) {
  return { hop, hashSize: hop.length / 2, ...describePrefix(store, hop) };
}

// Weighing a pair costs (repeaters carrying one hash) x (the other's): past this many combinations
// a pair is resolved by prefix alone. The large simulated mesh has 2 or 3 repeaters per 1-byte
// hash (well under it). In a directory flooded with random-key adverts (5,009 repeaters, about
// 20 per hash; scratch, 40k hostile adverts then 60k large-mesh reports) a 500-pair snapshot took
// 32-47 ms uncapped, 4-14 ms capped, 4-7 ms by prefix alone. With that many repeaters per hash,
// a pair with no anchor could not be told apart reliably anyway.
const MAX_PAIR_COMBINATIONS = 64;

/** The node behind one end of a pair, as listed in `resolved` (see the header). */
function endOf(entry) {
  return entry.status === 'resolved' ? { ...nodeBrief(entry.node), by: entry.by } : null;
}

/**
 * The nodes behind a listed pair's hops (rows from hopRow): the two-hop path resolved on its
 * own, or, past MAX_PAIR_COMBINATIONS, only the ends a single repeater carries.
 */
function resolvedEnds(store, fromRow, toRow) {
  if (fromRow.candidateCount * toRow.candidateCount > MAX_PAIR_COMBINATIONS) {
    const byPrefix = (row) => (row.node === null ? null : { ...row.node, by: 'prefix' });
    return { from: byPrefix(fromRow), to: byPrefix(toRow) };
  }
  const [first, second] = resolvePath(store, [fromRow.hop, toRow.hop], {});
  return { from: endOf(first), to: endOf(second) };
}

/** One listed pair: its hops' rows and the nodes behind them. */
function pairRow(store, pair) {
  const from = hopRow(store, pair.from);
  const to = hopRow(store, pair.to);
  return { pair: `${pair.from},${pair.to}`, from, to, count: pair.count, resolved: resolvedEnds(store, from, to) };
}

function snapshot(state, params, store) {
  const pairLimit = params.pairs;
  const figures = hopFigures(state.hopHistogram);
  const distribution = [];
  if (figures.max !== null) for (let hops = 0; hops <= figures.max; hops++) distribution.push({ hops, count: state.hopHistogram[hops] });

  const hopsVsSnr = [];
  for (let hops = 0; hops <= MAX_HOPS; hops++) {
    if (state.hopHistogram[hops] === 0) continue;
    const snr = state.snrByHops[hops];
    hopsVsSnr.push({ hops, observations: state.hopHistogram[hops], snrCount: snr.count, meanSnr: snr.mean });
  }

  const observers = [];
  for (const [id, reach] of state.observers) {
    const own = hopFigures(reach.hopHistogram);
    observers.push({
      id,
      name: reach.observer.name,
      region: reach.observer.region,
      observations: reach.observations,
      distinctHops: reach.distinctHops,
      meanHops: own.mean,
      maxHops: own.max,
    });
  }
  observers.sort((a, b) => b.observations - a.observations || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

  return {
    units: {
      hops: 'observation (hop count of the path one observer heard); TRACE excluded',
      repeaters: 'appearances of the hop hash in observed paths',
      pairs: 'appearances of "from,to" adjacent in observed paths, in travel order; resolved: the nodes behind the two hops (by prefix, range or nearest), null where ambiguous',
      hopsVsSnr: 'observations per hop count; meanSnr over those with SNR (dB)',
      observers: 'per observer: observations, distinct hop hashes heard, mean and max hop count',
    },
    observations: state.observations,
    traceObservations: state.traceObservations,
    hops: { ...figures, distribution },
    repeaters: state.topHops.top(TOP_REPEATERS).map((entry) => ({ ...hopRow(store, entry.hop), count: entry.count })),
    pairs: state.topPairs.top(pairLimit).map((pair) => pairRow(store, pair)),
    hopsVsSnr,
    observers,
  };
}

module.exports = defineView(withSnapshotCache({
  name: 'topology',
  description: 'Hop counts, top repeaters and adjacent pairs, SNR by hop count, reach per observer.',
  // `pairs`: how many adjacent pairs to list (the map draws links from them).
  params: { pairs: { type: 'int', min: 1, max: 500, default: TOP_PAIRS } },
  createState,
  apply,
  evict,
  snapshot,
}));

module.exports.MAX_PAIR_COMBINATIONS = MAX_PAIR_COMBINATIONS;
