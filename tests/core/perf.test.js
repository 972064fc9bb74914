'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { createPerfMetrics, PerfHistory, historyRow, HISTORY_FIELDS } = require('../../imports/core/perf');
const { buildHealth } = require('../../imports/core/health');
const { createEngine } = require('../../imports/core/engine');
const { createPipeline } = require('../../imports/ingest/pipeline');

const field = (name) => HISTORY_FIELDS.findIndex((f) => f.name === name);

test('perf history: a bounded ring, oldest first, that drops the oldest sample', () => {
  const history = new PerfHistory({ intervalMs: 5000, maxSamples: 4 });
  for (let i = 1; i <= 10; i++) history.record({ generatedAt: i * 5000, perf: { memory: { rssMB: 100 + i } } });
  const json = history.toJSON();
  assert.equal(json.intervalMs, 5000);
  assert.deepEqual(json.fields, HISTORY_FIELDS.map((f) => f.name));
  assert.deepEqual(json.rows.map((row) => row[field('time')]), [35000, 40000, 45000, 50000]);
  assert.deepEqual(json.rows.map((row) => row[field('rssMB')]), [107, 108, 109, 110]);
  // What a document lacks is null, never NaN or a guess.
  assert.equal(json.rows[0][field('ingestPerSecond')], null);
  assert.throws(() => new PerfHistory({ maxSamples: 0 }), /maxSamples/);
});

test('a history row reads the figures the Perf page charts from the health document itself', () => {
  const engine = createEngine({ channels: [] });
  const pipeline = createPipeline({ engine, log: { info() {}, warn() {}, error() {} } });
  const metrics = createPerfMetrics({ historySamples: 0 });
  metrics.recordMethod(4);
  const doc = buildHealth({ engine, pipeline, metrics, now: () => 123456 });
  const row = historyRow(doc);
  assert.equal(row[field('time')], 123456);
  assert.equal(row[field('rssMB')], doc.perf.memory.rssMB);
  assert.equal(row[field('cpuMicros')], doc.perf.cpu.user + doc.perf.cpu.system);
  assert.equal(row[field('methodCalls')], 1);
  assert.equal(row[field('transmissions')], 0);
  assert.equal(row[field('queueDepth')], doc.ingest.queue.depth);
  assert.equal(doc.perf.history, undefined, 'no history asked for, none sent');
  assert.equal(doc.perfHistory, undefined, 'no history kept, none sent');
  metrics.stop();
});

test('the perf document carries the history; sampling the whole health document does not nest it', () => {
  const engine = createEngine({ channels: [] });
  const pipeline = createPipeline({ engine, log: { info() {}, warn() {}, error() {} } });
  const metrics = createPerfMetrics({ historySamples: 5 });
  metrics.sampleHistory(); // before startHistory: this module's own figures
  let clock = 1000;
  const health = () => buildHealth({ engine, pipeline, metrics, now: () => (clock += 5000) });
  metrics.startHistory(health);
  for (let i = 0; i < 7; i++) metrics.sampleHistory();
  const doc = health();
  // The history goes out as its own top-level field (the hub resends it only when a sample is
  // added), not inside `perf` (which changes every second).
  assert.equal(doc.perf.history, undefined, 'perf itself comes without the history');
  const history = doc.perfHistory;
  assert.equal(history.rows.length, 5, 'bounded');
  assert.deepEqual(history.rows.map((row) => row[field('time')]), [16000, 21000, 26000, 31000, 36000]);
  assert.ok(history.rows.every((row) => row[field('queueDepth')] === 0), 'whole-document figures are sampled');
  assert.equal(JSON.stringify(history).includes('"history"'), false, 'a sample holds figures, not a nested history');
  // A document that cannot be built is counted with its reason, and sampling goes on.
  metrics.startHistory(() => { throw new Error('engine gone'); });
  metrics.sampleHistory();
  assert.equal(metrics.snapshot().history.errors, 1);
  assert.equal(metrics.snapshot().history.lastError, 'engine gone');
  assert.throws(() => metrics.startHistory(null), /needs a function/);
  metrics.stop();
});

test('a document that carries the history apart asks perf for its figures without it', () => {
  const metrics = createPerfMetrics({ historySamples: 3 });
  metrics.sampleHistory();
  assert.equal(metrics.snapshot({ history: false }).history, undefined);
  assert.equal(metrics.snapshot().history.rows.length, 1);
  assert.equal(metrics.history.toJSON().rows.length, 1);
  metrics.stop();
});

test('the health document sends the perf history apart, changed only when a sample is added, and the region scopes', () => {
  const engine = createEngine({ channels: [] });
  const pipeline = createPipeline({ engine, log: { info() {}, warn() {}, error() {} } });
  const metrics = createPerfMetrics({ historySamples: 4 });
  const health = () => buildHealth({ engine, pipeline, metrics });
  metrics.startHistory(health);
  metrics.sampleHistory();
  const first = health();
  assert.equal(first.perfHistory.rows.length, 1);
  // Between samples the field is the same (the publish hub diffs top-level fields by value).
  assert.equal(JSON.stringify(health().perfHistory), JSON.stringify(first.perfHistory));
  metrics.sampleHistory();
  assert.equal(health().perfHistory.rows.length, 2, 'a new sample changes it');
  assert.deepEqual(first.regionScopes, engine.regionScopes.stats());
  assert.equal(first.regionScopes.instances, 0);
  assert.equal(typeof first.regionScopes.maxInstances, 'number');
  // An engine without region scopes (a bare test double) leaves the field out.
  const bare = buildHealth({ engine: { store: engine.store }, pipeline });
  assert.equal('regionScopes' in bare, false);
  assert.equal('perfHistory' in bare, false);
  metrics.stop();
});
