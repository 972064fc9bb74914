'use strict';
/**
 * rf: radio figures. SNR and RSSI statistics and histograms, packet sizes, packets per hour,
 * counts and mean SNR per payload type, and an SNR x RSSI scatter.
 *
 * Units: SNR, RSSI and the scatter count observations (one observer's report; reports without
 * the figure are left out); sizes and payload-type counts count transmissions (a packet heard by
 * several observers once); `perBucket` gives both, transmissions by first-heard time and
 * observations by report time, per minute, 5 or 15 minutes or hour (`bucket` parameter,
 * time-buckets.js; the snapshot's `bucket` says which size and since when it is exact).
 *
 * Exactness: SNR (0.25 dB steps) and RSSI (whole dBm) are counted on integer grids, so every
 * figure is exact; off-grid or out-of-range values are kept exactly in a fallback of up to 4,096
 * distinct values, past which they are rounded to the grid (error <= 0.125 dB / 0.5 dBm inside
 * the range) and counted in `approximated` (see ValueDistribution).
 * Mean SNRs per payload type sum SNR*4 as integers. The scatter holds the 500 most recent
 * observations with both SNR and RSSI, exactly, "most recent" ordered by (time, transmission
 * seq, position in the transmission's observations).
 */
const { defineView, memoryPart } = require('./view');
const { withSnapshotCache } = require('./snapshot-cache');
const { TimeCounts, chooseBucket, describeBucket, bucketParam, newestTime } = require('./time-buckets');
const { ValueDistribution, MeanAccumulator } = require('./aggregates');
const { PAYLOAD_TYPES } = require('../decode');
const { isFirstObservation, observationIndexOf } = require('../stored-records');

const SIGNAL_BINS = 20;
const SIZE_BINS = 25;
const SCATTER_POINTS = 500;
// The scatter keeps up to this many candidates, so evicting a few points rarely needs a rebuild.
const SCATTER_BUFFER = 1000;
const SCATTER_SLACK = 500;

function scatterOrder(a, b) {
  return a.time - b.time || a.seq - b.seq || a.index - b.index;
}

// Fields of a time row.
const TRANSMISSIONS = 0;
const OBSERVATIONS = 1;

function createState(store) {
  const part = memoryPart(store, 'rf');
  return {
    part,
    transmissions: 0,
    observations: 0,
    snr: new ValueDistribution({ scale: 4, min: -128, max: 127.75 }),
    rssi: new ValueDistribution({ scale: 1, min: -256, max: 63 }),
    size: new ValueDistribution({ scale: 1, min: 0, max: 255 }),
    perTime: new TimeCounts({ width: 2, part }), // [transmissions, observations] per bucket
    byType: new Map(), // payload type -> { transmissions, observations, snr: MeanAccumulator }
    // Scatter candidates ascending by scatterOrder: always the top entries.length of all stored
    // observations with both figures (the invariant every update below keeps).
    // minSeq: the lowest transmission seq among the entries (Infinity when none), so that an
    // eviction (the oldest transmission) tells at once whether any entry is its.
    // spare: entries trimmed off the front, reused by the next observations (see scatterAdd).
    scatter: { entries: [], eligible: 0, minSeq: Infinity, spare: [] },
  };
}

function typeEntry(state, payloadType) {
  let entry = state.byType.get(payloadType);
  if (!entry) {
    entry = { transmissions: 0, observations: 0, snr: new MeanAccumulator(4) };
    state.byType.set(payloadType, entry);
  }
  return entry;
}

function hasBoth(observation) {
  return observation.snr !== null && observation.rssi !== null;
}

function scatterAdd(scatter, tx, observation, time, snr, rssi) {
  const complete = scatter.entries.length === scatter.eligible;
  scatter.eligible++;
  const entries = scatter.entries;
  const index = observationIndexOf(tx, observation);
  // An entry below every kept one may only join while we hold every eligible observation.
  if (!complete) {
    const first = entries[0];
    if ((time - first.time || tx.seq - first.seq || index - first.index) < 0) return;
  }
  // An entry trimmed earlier is reused: a new one per observation lived ~1,000 observations,
  // long enough to be copied by the young-generation GC and promoted, then dropped.
  let entry = scatter.spare.pop();
  if (entry === undefined) entry = { time, seq: tx.seq, index, snr, rssi, tx, point: undefined };
  else {
    entry.time = time;
    entry.seq = tx.seq;
    entry.index = index;
    entry.snr = snr;
    entry.rssi = rssi;
    entry.tx = tx;
    entry.point = undefined; // a snapshot's frozen point stays with that snapshot
  }
  let at = entries.length;
  entries.push(entry);
  while (at > 0 && scatterOrder(entry, entries[at - 1]) < 0) {
    entries[at] = entries[at - 1];
    at--;
  }
  entries[at] = entry;
  if (tx.seq < scatter.minSeq) scatter.minSeq = tx.seq;
  if (entries.length > SCATTER_BUFFER + SCATTER_SLACK) {
    const trimmed = entries.length - SCATTER_BUFFER;
    for (let i = 0; i < trimmed; i++) {
      const spare = entries[i];
      spare.tx = null; // no evicted transmission kept alive by a spare
      scatter.spare.push(spare);
    }
    entries.copyWithin(0, trimmed);
    entries.length = SCATTER_BUFFER;
    scatter.minSeq = minSeqOf(entries);
  }
}

function minSeqOf(entries) {
  let min = Infinity;
  for (let i = 0; i < entries.length; i++) if (entries[i].seq < min) min = entries[i].seq;
  return min;
}

function scatterEvict(scatter, tx, store) {
  for (const observation of tx.observations) if (hasBoth(observation)) scatter.eligible--;
  if (tx.seq < scatter.minSeq) return; // none of the entries is this transmission's
  const kept = scatter.entries.filter((entry) => entry.tx !== tx);
  if (kept.length === scatter.entries.length) return;
  scatter.entries = kept;
  scatter.minSeq = minSeqOf(kept);
  if (scatter.entries.length < SCATTER_POINTS && scatter.entries.length < scatter.eligible) scatterRebuild(scatter, tx, store);
}

/**
 * Rare: evictions took away points while older-but-stored ones exist (the oldest transmission
 * was heard among the newest observations, i.e. a tiny store). Recollect from the store, O(n).
 */
function scatterRebuild(scatter, leaving, store) {
  const all = [];
  store.fifo.forEachOldest((tx) => {
    if (tx === leaving) return;
    tx.observations.forEach((observation, index) => {
      if (hasBoth(observation)) all.push({ time: observation.time, seq: tx.seq, index, snr: observation.snr, rssi: observation.rssi, tx, point: undefined });
    });
  });
  all.sort(scatterOrder);
  scatter.entries = all.slice(Math.max(0, all.length - SCATTER_BUFFER));
  scatter.minSeq = minSeqOf(scatter.entries);
}

function apply(state, tx, observation) {
  const type = typeEntry(state, tx.payloadType);
  // Each figure read once (the stored records' getters unpack them).
  const time = observation.time;
  const snr = observation.snr;
  const rssi = observation.rssi;
  if (isFirstObservation(tx, observation)) {
    state.transmissions++;
    state.size.add(tx.size);
    state.perTime.add(tx.time, null, TRANSMISSIONS, 1);
    type.transmissions++;
  }
  state.observations++;
  type.observations++;
  state.perTime.add(time, null, OBSERVATIONS, 1);
  if (snr !== null) {
    state.snr.add(snr);
    type.snr.add(snr);
  }
  if (rssi !== null) state.rssi.add(rssi);
  if (snr !== null && rssi !== null) scatterAdd(state.scatter, tx, observation, time, snr, rssi);
  return true;
}

function evict(state, tx, store) {
  const type = state.byType.get(tx.payloadType);
  state.transmissions--;
  state.size.remove(tx.size);
  state.perTime.add(tx.time, null, TRANSMISSIONS, -1);
  type.transmissions--;
  for (const observation of tx.observations) {
    state.observations--;
    type.observations--;
    state.perTime.add(observation.time, null, OBSERVATIONS, -1);
    if (observation.snr !== null) {
      state.snr.remove(observation.snr);
      type.snr.remove(observation.snr);
    }
    if (observation.rssi !== null) state.rssi.remove(observation.rssi);
  }
  if (type.transmissions === 0) state.byType.delete(tx.payloadType);
  scatterEvict(state.scatter, tx, store);
  return true;
}

function snapshot(state, params, store) {
  const oldest = store.fifo.length ? store.fifo.first().time : null;
  const newest = newestTime(store);
  const size = chooseBucket(params.bucket, { oldest, newest, counts: state.perTime });
  const perBucket = state.perTime.series(size, { newest }).map(({ start, row }) => ({
    time: start,
    transmissions: row[TRANSMISSIONS],
    observations: row[OBSERVATIONS],
  }));
  const payloadTypes = Array.from(state.byType.keys()).sort((a, b) => a - b).map((payloadType) => {
    const entry = state.byType.get(payloadType);
    return {
      payloadType,
      name: PAYLOAD_TYPES[payloadType] || `TYPE_${payloadType}`,
      transmissions: entry.transmissions,
      observations: entry.observations,
      snrCount: entry.snr.count,
      meanSnr: entry.snr.mean,
    };
  });
  const entries = state.scatter.entries;
  const points = [];
  for (let i = entries.length - 1; i >= 0 && points.length < SCATTER_POINTS; i--) {
    const entry = entries[i];
    // Made once per entry and frozen: the publish hub's chunker then stringifies a point once
    // (field-chunks.js keeps the text of frozen flat items), not on every refresh.
    if (entry.point === undefined) entry.point = Object.freeze({ time: entry.time, snr: entry.snr, rssi: entry.rssi, hash: entry.tx.hash });
    points.push(entry.point);
  }
  return {
    units: {
      snr: 'observation (dB)',
      rssi: 'observation (dBm)',
      size: 'transmission (bytes)',
      perBucket: 'transmissions by first-heard time, observations by report time, per bucket (see bucket)',
      payloadTypes: 'transmissions and observations; meanSnr over observations with SNR',
      scatter: `the ${SCATTER_POINTS} most recent observations with both SNR and RSSI, newest first`,
    },
    transmissions: state.transmissions,
    observations: state.observations,
    snr: state.snr.summary(SIGNAL_BINS),
    rssi: state.rssi.summary(SIGNAL_BINS),
    size: state.size.summary(SIZE_BINS),
    bucket: describeBucket(size, params.bucket, state.perTime.fromOf(size, newest)),
    perBucket,
    payloadTypes,
    scatter: { eligible: state.scatter.eligible, points },
  };
}

module.exports = defineView(withSnapshotCache({
  name: 'rf',
  description: 'SNR/RSSI statistics and histograms, packet sizes, packets per time bucket (minute to hour), per payload type, SNR x RSSI scatter.',
  params: { bucket: bucketParam },
  createState,
  apply,
  evict,
  snapshot,
}));

module.exports.SCATTER_POINTS = SCATTER_POINTS;
