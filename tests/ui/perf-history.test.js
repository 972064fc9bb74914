'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { serverSamples, mergeServerHistory, appendSample } = require('../../imports/ui/lib/perf-series');
const { PerfHistory } = require('../../imports/core/perf');

/** A health document at `time` carrying the server history of `times` (CPU: 100 ms per second). */
function docWithHistory(time, times) {
  const history = new PerfHistory({ maxSamples: 720 });
  for (const t of times) history.record({ generatedAt: t, perf: { cpu: { user: t * 100, system: 0 }, memory: { rssMB: 50 } } });
  return { generatedAt: time, perf: { cpu: { user: time * 100, system: 0 }, memory: { rssMB: 60 }, history: history.toJSON() } };
}

test('server history samples carry their figures and the CPU share between them', () => {
  const samples = serverSamples(docWithHistory(0, [5000, 10000, 15000]).perf.history);
  assert.deepEqual(samples.map((s) => s.time), [5000, 10000, 15000]);
  assert.equal(samples[0].cpuPct, null);
  assert.ok(Math.abs(samples[1].cpuPct - 10) < 1e-9, '100 µs per ms is 10 % of a core');
  assert.equal(samples[1].rssMB, 50);
  assert.deepEqual(serverSamples(undefined), []);
  assert.deepEqual(serverSamples({ fields: ['time'], rows: [null, ['x'], [7]] }).map((s) => s.time), [7], 'bad rows are skipped');
});

test('the Perf charts open full: server samples come first, then the tab\'s own', () => {
  const times = Array.from({ length: 12 }, (_, i) => 5000 * (i + 1)); // 5 s .. 60 s
  let history = [];
  const first = docWithHistory(61000, times);
  history = appendSample(mergeServerHistory(history, first, 100), first, 100);
  assert.equal(history.length, 13, 'twelve server samples and the document itself');
  assert.deepEqual(history.slice(-2).map((s) => s.time), [60000, 61000]);
  // The next document's history brings nothing new: the same array grows by one sample.
  const second = docWithHistory(62000, times);
  const merged = mergeServerHistory(history, second, 100);
  assert.equal(merged, history);
  history = appendSample(merged, second, 100);
  assert.equal(history.length, 14);
  // Bounded: the oldest samples go first.
  const small = appendSample(mergeServerHistory([], first, 5), first, 5);
  assert.deepEqual(small.map((s) => s.time), [45000, 50000, 55000, 60000, 61000]);
  // Back after a gap: the server's newer samples fill it.
  const later = docWithHistory(200000, [...times, 100000, 150000]);
  const filled = mergeServerHistory(history, later, 100);
  assert.deepEqual(filled.slice(-2).map((s) => s.time), [100000, 150000]);
  assert.ok(Math.abs(filled[filled.length - 2].cpuPct - 10) < 1e-9, 'CPU % across the join');
});

test('the history is read where the server puts it: perf.history, or perfHistory at the top level', () => {
  const doc = docWithHistory(61000, [5000, 10000]);
  const apart = { ...doc, perf: { ...doc.perf, history: undefined }, perfHistory: doc.perf.history };
  assert.deepEqual(mergeServerHistory([], apart, 10).map((s) => s.time), [5000, 10000]);
  assert.deepEqual(mergeServerHistory([], { generatedAt: 1, perf: {} }, 10), []);
});
