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
 */
const { defineView, bump, memoryPart } = require('./view');
const { BYTES, entryBytes } = require('../memory-account');
const { MeanAccumulator, topByCount, keepBest, byCountThenKey, describePrefix } = require('./aggregates');

const TRACE = 9;
const MAX_HOPS = 63; // 6-bit hop count in the path-length byte
const TOP_REPEATERS = 20;
const TOP_PAIRS = 15;

// One observer's reach entry: the object, its histogram and its hops Map.
const REACH_BYTES = BYTES.object + 4 * BYTES.field + BYTES.typedArray + (MAX_HOPS + 1) * 8 + BYTES.map + BYTES.mapEntry;

function createState(store) {
  const snrByHops = [];
  for (let hops = 0; hops <= MAX_HOPS; hops++) snrByHops.push(new MeanAccumulator(4));
  return {
    observations: 0,
    traceObservations: 0,
    hopHistogram: new Float64Array(MAX_HOPS + 1),
    snrByHops,
    hopCounts: new Map(), // hop hash -> appearances
    // from hop -> (to hop -> appearances): nested by interned hop strings, so no "a,b" string is
    // built and hashed per hop of every report.
    pairCounts: new Map(),
    observers: new Map(), // observer id -> { observer, observations, hopHistogram, hops: Map hop -> appearances }
    part: memoryPart(store, 'topology'),
  };
}

function countPair(state, from, to, sign) {
  let targets = state.pairCounts.get(from);
  if (targets === undefined) {
    if (sign < 0) return;
    targets = new Map();
    state.pairCounts.set(from, targets);
    if (state.part) state.part.add(BYTES.map + entryBytes(from));
  }
  bump(targets, to, sign, state.part);
  if (targets.size === 0) {
    state.pairCounts.delete(from);
    if (state.part) state.part.add(-(BYTES.map + entryBytes(from)));
  }
}

/** The `limit` busiest pairs as ["from,to", appearances], ties by the joined key. */
function topPairs(state, limit) {
  const best = [];
  for (const [from, targets] of state.pairCounts) {
    for (const [to, appearances] of targets) {
      // A lower count cannot enter a full list: skip it before joining its key.
      if (best.length === limit && appearances < best[limit - 1][1]) continue;
      keepBest(best, [`${from},${to}`, appearances], limit, byCountThenKey);
    }
  }
  return best;
}

function count(state, observation, sign) {
  const path = observation.path;
  const hops = Math.min(path.length, MAX_HOPS);
  state.observations += sign;
  state.hopHistogram[hops] += sign;
  if (observation.snr !== null) state.snrByHops[hops].add(observation.snr, sign);

  let reach = state.observers.get(observation.observer.id);
  if (!reach) {
    reach = { observer: observation.observer, observations: 0, hopHistogram: new Float64Array(MAX_HOPS + 1), hops: new Map() };
    state.observers.set(observation.observer.id, reach);
    if (state.part) state.part.add(REACH_BYTES);
  }
  reach.observations += sign;
  reach.hopHistogram[hops] += sign;
  for (let i = 0; i < path.length; i++) {
    bump(state.hopCounts, path[i], sign, state.part);
    bump(reach.hops, path[i], sign, state.part);
    if (i > 0) countPair(state, path[i - 1], path[i], sign);
  }
  if (reach.observations === 0) {
    state.observers.delete(observation.observer.id);
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
      distinctHops: reach.hops.size,
      meanHops: own.mean,
      maxHops: own.max,
    });
  }
  observers.sort((a, b) => b.observations - a.observations || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

  return {
    units: {
      hops: 'observation (hop count of the path one observer heard); TRACE excluded',
      repeaters: 'appearances of the hop hash in observed paths',
      pairs: 'appearances of "from,to" adjacent in observed paths, in travel order',
      hopsVsSnr: 'observations per hop count; meanSnr over those with SNR (dB)',
      observers: 'per observer: observations, distinct hop hashes heard, mean and max hop count',
    },
    observations: state.observations,
    traceObservations: state.traceObservations,
    hops: { ...figures, distribution },
    repeaters: topByCount(state.hopCounts, TOP_REPEATERS).map(([hop, appearances]) => ({ ...hopRow(store, hop), count: appearances })),
    pairs: topPairs(state, pairLimit).map(([pair, appearances]) => {
      const [from, to] = pair.split(',');
      return { pair, from: hopRow(store, from), to: hopRow(store, to), count: appearances };
    }),
    hopsVsSnr,
    observers,
  };
}

module.exports = defineView({
  name: 'topology',
  description: 'Hop counts, top repeaters and adjacent pairs, SNR by hop count, reach per observer.',
  // `pairs`: how many adjacent pairs to list (the map draws links from them).
  params: { pairs: { type: 'int', min: 1, max: 500, default: TOP_PAIRS } },
  createState,
  apply,
  evict,
  snapshot,
});
