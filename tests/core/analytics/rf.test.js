'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { checkAgainstBruteForce, assertClose } = require('../../helpers/mesh');
const { PAYLOAD_TYPES } = require('../../../imports/core/decode');
const { PacketStore } = require('../../../imports/core/store');
const rf = require('../../../imports/core/analytics/rf');
const { ValueDistribution } = require('../../../imports/core/analytics/aggregates');
const { bruteNewest, bruteChoose, bruteDescribe, bruteRows, checkStretched } = require('./bucket-brute');

/** Statistics of a plain list of numbers, recomputed from scratch by sorting. */
function bruteSummary(list, bins) {
  if (list.length === 0) return { count: 0, min: null, max: null, mean: null, median: null, stdDev: null, histogram: [], approximated: 0 };
  const sorted = list.slice().sort((a, b) => a - b);
  const n = sorted.length;
  const mean = sorted.reduce((sum, v) => sum + v, 0) / n;
  const variance = sorted.reduce((sum, v) => sum + (v - mean) * (v - mean), 0) / n;
  const median = n % 2 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  const min = sorted[0];
  const max = sorted[n - 1];
  const width = (max - min) / bins;
  const histogram = Array.from({ length: bins }, (_, i) => ({ from: min + i * width, to: min + (i + 1) * width, count: 0 }));
  for (const v of sorted) histogram[width > 0 ? Math.min(bins - 1, Math.floor((v - min) / width)) : 0].count++;
  return { count: n, min, max, mean, median, stdDev: Math.sqrt(variance), histogram, approximated: 0 };
}

/** The view's `units` labels are documentation, not figures. */
const withoutUnits = ({ units, ...figures }) => figures;

function bruteRf(store, params = { bucket: 'auto' }) {
  const txs = store.transmissions();
  const snrs = [];
  const rssis = [];
  const sizes = [];
  const times = []; // [{ time, add(row) }]: transmissions by first-heard time, observations by report time
  const types = new Map();
  const both = [];
  let observations = 0;
  for (const tx of txs) {
    sizes.push(tx.size);
    times.push({ time: tx.time, add: (row) => { row[0]++; } });
    if (!types.has(tx.payloadType)) types.set(tx.payloadType, { payloadType: tx.payloadType, transmissions: 0, observations: 0, snrs: [] });
    const type = types.get(tx.payloadType);
    type.transmissions++;
    tx.observations.forEach((o, index) => {
      observations++;
      type.observations++;
      times.push({ time: o.time, add: (row) => { row[1]++; } });
      if (o.snr !== null) { snrs.push(o.snr); type.snrs.push(o.snr); }
      if (o.rssi !== null) rssis.push(o.rssi);
      if (o.snr !== null && o.rssi !== null) both.push({ key: [o.time, tx.seq, index], point: { time: o.time, snr: o.snr, rssi: o.rssi, hash: tx.hash } });
    });
  }
  both.sort((a, b) => b.key[0] - a.key[0] || b.key[1] - a.key[1] || b.key[2] - a.key[2]);
  const oldest = txs.length ? Math.min(...txs.map((tx) => tx.time)) : null;
  const size = bruteChoose(params.bucket, oldest, bruteNewest(store));
  const perBucket = Array.from(bruteRows(times, size, bruteNewest(store), 2), ([time, row]) => ({ time, transmissions: row[0], observations: row[1] }));
  return {
    transmissions: txs.length,
    observations,
    snr: bruteSummary(snrs, 20),
    rssi: bruteSummary(rssis, 20),
    size: bruteSummary(sizes, 25),
    bucket: bruteDescribe(size, params.bucket, bruteNewest(store)),
    perBucket,
    payloadTypes: Array.from(types.values()).sort((a, b) => a.payloadType - b.payloadType).map((t) => ({
      payloadType: t.payloadType,
      name: PAYLOAD_TYPES[t.payloadType],
      transmissions: t.transmissions,
      observations: t.observations,
      snrCount: t.snrs.length,
      meanSnr: t.snrs.length ? t.snrs.reduce((s, v) => s + v, 0) / t.snrs.length : null,
    })),
    scatter: { eligible: both.length, points: both.slice(0, 500).map((b) => b.point) },
  };
}

const BUCKETS = ['auto', 'minute', '5min', '15min', 'hour'];

test('rf equals a brute-force recomputation after random inserts and evictions', () => {
  checkAgainstBruteForce({ view: 'rf', bruteForce: bruteRf, paramsList: [{}, undefined, ...BUCKETS.map((bucket) => ({ bucket }))], project: withoutUnits });
});

test('rf stays exact on a second seed with a long run (scatter over 500 points)', () => {
  checkAgainstBruteForce({ view: 'rf', bruteForce: bruteRf, seed: 3, count: 6000, checks: 5, project: withoutUnits });
});

test('rf keeps off-grid and out-of-range values exact, and undoes them on eviction', () => {
  const store = new PacketStore();
  const view = store.addView(rf.create(store));
  const raws = ['06001f5d97f8ed9eec25bdb2c1dfdb0250be49517647', '01018a8b1fbab57ed09e4353a8d95fed574cc11171d585'];
  const odd = [[7.3, -90.5], [500, 20], [-3.25, -300], [null, -70], [2.5, null]];
  let time = Date.UTC(2026, 0, 1);
  odd.forEach(([snr, rssi], i) => store.ingest({ raw: raws[i % 2], observerId: `o${i}`, snr, rssi, time: (time += 1000) }));
  const snapshot = withoutUnits(view.snapshot());
  const expected = bruteRf(store);
  assertClose(snapshot, expected);
  while (store.size) store.evictOldest();
  const empty = view.snapshot();
  assert.equal(empty.snr.count, 0);
  assert.equal(empty.observations, 0);
  assert.deepEqual(empty.scatter, { eligible: 0, points: [] });
  assert.equal(view.state.snr.fallback.size, 0);
  assert.equal(view.state.rssi.fallback.size, 0);
  assert.ok(view.state.snr.grid.every((c) => c === 0) && view.state.rssi.grid.every((c) => c === 0));
});

test('rf scatter refills from the store when evictions take away its newest points', () => {
  const store = new PacketStore();
  const view = store.addView(rf.create(store));
  // 1500 distinct GRP_TXT floods (header 0x15, one hop, channel hash, MAC, 4 counter bytes).
  const raws = Array.from({ length: 1500 }, (_, i) => `1501ab11aabb${i.toString(16).padStart(8, '0')}`);
  let time = Date.UTC(2026, 0, 1);
  raws.forEach((raw, i) => store.ingest({ raw, observerId: `o${i % 5}`, snr: (i % 60) / 4 - 5, rssi: -50 - (i % 70), time: (time += 1000) }));
  // Late reports of the 700 oldest transmissions become the newest scatter points...
  raws.slice(0, 700).forEach((raw, k) => store.ingest({ raw, observerId: 'late', snr: (k % 80) / 4 - 10, rssi: -60 - (k % 50), time: (time += 10) }));
  assertClose(withoutUnits(view.snapshot()), bruteRf(store));
  // ...so evicting those transmissions leaves fewer than 500 candidates until the view refills.
  for (let i = 0; i < 700; i++) store.evictOldest();
  const snapshot = withoutUnits(view.snapshot());
  assert.equal(snapshot.scatter.eligible, 800);
  assert.equal(snapshot.scatter.points.length, 500);
  assertClose(snapshot, bruteRf(store));
});

test('a value distribution past its fallback limit rounds to the grid, counts it, and undoes it exactly', () => {
  const distribution = new ValueDistribution({ scale: 4, min: -8, max: 8, fallbackLimit: 2 });
  const values = [0.1, 0.2, 0.3, 0.3, 20, 1.25, 0.1];
  for (const value of values) distribution.add(value);
  const summary = distribution.summary(4);
  assert.equal(summary.count, values.length);
  // The fallback holds 0.1 and 0.2; 0.3 (twice) rounds to 0.25 and 20 is clamped to the grid's 8.
  assert.equal(summary.approximated, 3);
  assert.equal(summary.max, 8);
  assert.equal(summary.min, 0.1);
  for (const value of values) distribution.remove(value);
  assert.equal(distribution.count, 0);
  assert.equal(distribution.approximated, 0);
  assert.equal(distribution.fallback.size, 0);
  assert.ok(distribution.grid.every((c) => c === 0));
});

test('rf added to a filled store equals one fed live', () => {
  const engine = checkAgainstBruteForce({ view: 'rf', bruteForce: bruteRf, checks: 3, project: withoutUnits });
  const late = engine.store.addView(rf.create(engine.store));
  assertClose(late.snapshot({}), engine.view('rf').snapshot({}));
});

test('rf buckets stay exact over days: minute and 5-minute windows fold into hours as time moves on', () => {
  const params = BUCKETS.map((bucket) => ({ bucket }));
  // ~0.45 h of traffic stretched to ~2 h (auto: minutes), ~9 h (5 minutes), ~20 h (15 minutes), ~5 days (hours).
  const autoSizes = new Set();
  for (const stretch of [4, 20, 45, 300]) {
    const { engine, seen } = checkStretched({ view: 'rf', bruteForce: bruteRf, paramsList: params, stretch, project: withoutUnits });
    for (const size of seen) autoSizes.add(size);
    // Rows behind a window are dropped, not kept: the minute level holds at most 3 hours.
    const minuteRows = engine.view('rf').state.perTime.rowCounts().minute;
    assert.ok(minuteRows <= 181, `minute rows ${minuteRows}`);
  }
  assert.deepEqual([...autoSizes].sort(), ['15min', '5min', 'hour', 'minute']);
});

test('rf buckets: evicting everything refunds every row', () => {
  const { engine } = checkStretched({ view: 'rf', bruteForce: bruteRf, paramsList: [{ bucket: 'minute' }], stretch: 10, checks: 3, project: withoutUnits });
  const before = engine.store.memory.part('rf').bytes;
  while (engine.store.size) engine.store.evictOldest();
  const view = engine.view('rf');
  assert.deepEqual(view.state.perTime.rowCounts(), { minute: 0, '5min': 0, hour: 0 });
  assert.ok(engine.store.memory.part('rf').bytes < before);
  assert.deepEqual(view.snapshot({ bucket: 'minute' }).perBucket, []);
});
