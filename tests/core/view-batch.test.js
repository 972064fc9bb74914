'use strict';
/**
 * The store holds view updates for a batch (store.js viewBatch, flushViews): each view runs over
 * the whole batch in turn. These tests pin what that must not change (every read answers as if
 * each report had reached every view at once) and what it adds (batches, held evictions, a
 * view's error kept to the update it failed on).
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createEngine } = require('../../imports/core/engine');
const { simulatedReports, assertClose } = require('../helpers/mesh');

/** A view that counts the updates it ran (and can be told to throw on one transmission). */
function countingView(name = 'counting', throwOn = null) {
  const view = {
    name,
    applied: 0,
    evicted: 0,
    apply(tx) {
      if (throwOn !== null && tx.hash === throwOn) throw new Error(`boom on ${tx.hash}`);
      view.applied++;
    },
    evict() {
      view.evicted++;
    },
  };
  return view;
}

function busiestRepeater(reports, channels) {
  const engine = createEngine({ channels });
  for (const report of reports) engine.ingest({ ...report });
  return engine.snapshot('nodes', { limit: 200 }).nodes.filter((node) => node.role === 'repeater').sort((a, b) => b.packets - a.packets || (a.pubKey < b.pubKey ? -1 : 1))[0].pubKey;
}

/** Every view's snapshot; those that need a node get the first stored one's, channelMessages the public channel. */
function everySnapshot(engine, now, reference = engine) {
  const pubKey = Array.from(reference.store.nodes.keys()).sort()[0];
  const observer = Array.from(reference.store.observers.keys()).sort()[0];
  const out = {};
  for (const name of engine.views.keys()) {
    const spec = engine.view(name).paramsSpec;
    const params = {};
    if (spec.pubKey && spec.pubKey.required) params.pubKey = pubKey;
    if (spec.id && spec.id.required) params.id = observer;
    if (spec.observer && spec.observer.required) params.observer = observer;
    if (spec.channel && spec.channel.required) params.channel = 'public';
    out[name] = engine.snapshot(name, params, now);
  }
  return out;
}

test('views run held updates in batches, and every read of a view runs them first', () => {
  const { reports, channels } = simulatedReports({ seed: 31, count: 3000 });
  const engine = createEngine({ channels, store: { viewBatch: 1000 } });
  const counting = engine.store.addView(countingView());
  for (const report of reports.slice(0, 10)) engine.ingest(report);
  assert.equal(counting.applied, 0, 'held: no view has run');
  assert.equal(engine.store.counters.viewBatches, 0);
  engine.snapshot('stats', {});
  assert.equal(counting.applied, 10, 'a snapshot of any view runs every held update');
  for (const report of reports.slice(10, 1500)) engine.ingest(report);
  assert.ok(counting.applied >= 1000, 'a full batch runs without a read');
  // A version read runs them too: a subscriber never sees an old version.
  const version = engine.view('rf').versionFor({});
  assert.equal(counting.applied, engine.store.observationCount);
  assert.ok(version > 0);
  assert.ok(engine.store.counters.viewBatches >= 3 && engine.store.counters.viewBatches <= 4, `${engine.store.counters.viewBatches} batches`);
  // The node tracker's per-batch results (observations, evicted transmissions) go with the batch.
  const tracker = require('../../imports/core/analytics/node-tracker').sharedTracker(engine.store);
  assert.equal(tracker.memoUpdates.length, 0);
  assert.equal(tracker.memoResults.length, 0);

  const immediate = createEngine({ channels, store: { viewBatch: 0 } });
  const counted = immediate.store.addView(countingView());
  for (const report of reports.slice(0, 10)) immediate.ingest(report);
  assert.equal(counted.applied, 10, 'viewBatch 0: every report reaches every view at once');
  assert.equal(immediate.store.counters.viewBatches, 0);
});

test('batched and immediate engines answer alike: every view, its version and its scoped versions', () => {
  for (const profile of ['default', 'large']) {
    const { reports, channels } = simulatedReports({ seed: 32, count: 2500, profile });
    // The transmission cap is exact in both modes, so both evict the same transmissions at the same points.
    const batched = createEngine({ channels, store: { viewBatch: 300, maxTransmissions: 400 } });
    const immediate = createEngine({ channels, store: { viewBatch: 0, maxTransmissions: 400 } });
    let checks = 0;
    let nodeMoves = 0;
    const versions = new Map();
    const scope = new Map();
    // The busiest repeater's key: heard in every stretch of the stream.
    const pubKey = busiestRepeater(reports, channels);
    reports.forEach((report, i) => {
      batched.ingest({ ...report });
      immediate.ingest({ ...report });
      if (i % 700 === 699 || i === reports.length - 1) {
        const now = report.time + 1000;
        assertClose(everySnapshot(batched, now), everySnapshot(immediate, now), `${profile} at report ${i}`);
        // Versions are hints (a subscriber recomputes when one moved): each must move in one
        // mode exactly when it moves in the other. (A view whose apply looks at the directory,
        // like places, may count a batch's directory changes once, so the numbers can differ.)
        for (const name of batched.views.keys()) {
          const now = [batched.view(name).version, immediate.view(name).version];
          const before = versions.get(name) || [0, 0];
          assert.equal(now[0] !== before[0], now[1] !== before[1], `${profile} ${name} version moved alike at ${i}`);
          versions.set(name, now);
        }
        // A node's scoped version, watched from the first check on.
        const key = scope.get('node') || [0, 0];
        const scoped = [batched.view('node').versionFor({ pubKey }), immediate.view('node').versionFor({ pubKey })];
        assert.equal(scoped[0] !== key[0], scoped[1] !== key[1], `${profile} node scope moved alike at ${i}`);
        if (scoped[1] !== key[1]) nodeMoves++;
        scope.set('node', scoped);
        checks++;
      }
    });
    assert.ok(checks >= 4);
    assert.ok(nodeMoves >= 2, `${profile}: the watched node's version moved (${nodeMoves})`);
    assert.ok(batched.store.counters.evicted > 300, `${profile}: ${batched.store.counters.evicted} evicted`);
    assert.equal(batched.store.counters.evicted, immediate.store.counters.evicted);
    assert.ok(batched.store.counters.viewBatches > 0);
  }
});

test('over its budget a batching store evicts in steps, and is within the budget after any read', () => {
  const { reports, channels } = simulatedReports({ seed: 33, count: 6000 });
  const budget = 1.5e6;
  const engine = createEngine({ channels, store: { memoryBudgetBytes: budget } });
  for (const report of reports) engine.ingest(report);
  engine.snapshot('stats', {});
  const { store } = engine;
  assert.ok(store.counters.evicted > 2000, `${store.counters.evicted} evicted`);
  assert.ok(store.bytes <= budget, `${store.bytes} within ${budget}`);
  // Evicting down to 1/64 below the budget leaves room for many reports before the next
  // eviction: without the step, every report past the budget would run a batch of one.
  const ingestedOverBudget = reports.length - store.counters.evicted;
  assert.ok(store.counters.viewBatches < reports.length / 8, `${store.counters.viewBatches} batches for ${reports.length} reports`);
  assert.ok(ingestedOverBudget > 0);
  // Held evictions leave nothing behind: emptied, every view's memory part is zero again.
  while (store.size > 0) store.evictOldest();
  for (const [name, part] of store.memory.parts) {
    if (['regionScopes', 'directory', 'observerStatus'].includes(name)) continue;
    assert.equal(Math.round(part.bytes), 0, `${name} refunded`);
  }
});

test('a view that throws on one update skips that update only: counted, reason kept, every other view and update still runs', () => {
  const { reports, channels } = simulatedReports({ seed: 34, count: 1200 });
  const reference = createEngine({ channels });
  for (const report of reports) reference.ingest({ ...report });
  const victim = reference.store.transmissions()[5].hash;

  const engine = createEngine({ channels });
  // Registered first, so the views after it run their batch after its failure.
  engine.store.views.unshift(countingView('fragile', victim));
  const fragile = engine.store.views[0];
  for (const report of reports) {
    const result = engine.ingest({ ...report });
    assert.ok(!result.error || result.error.reason !== 'ingest_error');
  }
  const now = reports[reports.length - 1].time + 1000;
  assertClose(everySnapshot(engine, now), everySnapshot(reference, now), 'every other view as if nothing failed');
  const victimObservations = engine.store.byHash.get(victim).observations.length;
  assert.equal(engine.store.counters.viewErrors, victimObservations, 'each failed update counted');
  assert.equal(fragile.applied, engine.store.observationCount - victimObservations, 'its other updates ran');
  const error = engine.store.stats().lastViewError;
  assert.equal(error.view, 'fragile');
  assert.equal(error.hash, victim);
  assert.match(error.reason, /boom/);
});

test('a view added to a filled store, and region-scoped views, see held updates once', () => {
  const { reports, channels } = simulatedReports({ seed: 35, count: 1500 });
  const engine = createEngine({ channels, store: { viewBatch: 5000 } });
  for (const report of reports) engine.ingest(report);
  assert.equal(engine.store.counters.viewBatches, 0, 'all held');
  const late = engine.store.addView(countingView());
  assert.equal(late.applied, engine.store.observationCount, 'caught up once: the held updates ran before it joined');
  // A region store is caught up from the main store: held updates must not reach it again.
  const region = reports.find((report) => report.region).region;
  for (const report of reports.slice(0, 200)) engine.ingest({ ...report, time: report.time + 3600e3 });
  const scoped = engine.snapshot('stats', { region }, Date.now());
  const fresh = createEngine({ channels });
  for (const report of reports) if (report.region === region) fresh.ingest(report);
  for (const report of reports.slice(0, 200)) if (report.region === region) fresh.ingest({ ...report, time: report.time + 3600e3 });
  assert.equal(scoped.observations, fresh.snapshot('stats', {}).observations);
  assert.equal(late.applied, engine.store.observationCount);
});

test('held updates are bounded by what they may add: hostile long paths under a small budget run in small batches, and memory stays near the budget', () => {
  const { hostileStream } = require('../../imports/core/simulate/hostile');
  const budget = 4 * 1024 * 1024;
  const engine = createEngine({ store: { memoryBudgetBytes: budget } });
  const { store } = engine;
  let peak = 0;
  // Right after the views have run a batch, before the store evicts for it: the most it held.
  store.onViewBatchDone(() => { peak = Math.max(peak, store.bytes); });
  let reports = 0;
  for (const report of hostileStream('longPaths', { seed: 5, count: 3000 })) {
    engine.ingest(report);
    reports++;
    assert.ok(store.heldUnits <= store.maxHeldUnits + 64, `${store.heldUnits} units held`);
  }
  engine.snapshot('stats', {});
  assert.ok(store.counters.evicted > 1000, `${store.counters.evicted} evicted`);
  // 2,048 held long paths would add tens of MB at once; the unit bound keeps each batch to ~1/16 of the budget.
  assert.ok(store.counters.viewBatches > reports / 100, `${store.counters.viewBatches} batches`);
  assert.ok(peak <= budget * 1.25, `peak ${Math.round(peak / 1024)} KB against a ${budget / 1024} KB budget`);
  assert.ok(store.bytes <= budget);
});
