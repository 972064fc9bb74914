'use strict';
/**
 * Region scoping (imports/core/analytics/region-scope.js): every view takes `region`, and a
 * view that does not handle it itself answers it from a region-scoped instance. Brute force: the
 * scoped snapshot equals the snapshot of a fresh engine fed only that region's reports, on both
 * mesh profiles (default: 2 regions; large: 5), after catch-up, while fed live, and across
 * evictions under a small budget; plus the instance cap, idle drop, memory charge, versions,
 * params validation, the view key, OpenAPI and the publish hub.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createEngine } = require('../../imports/core/engine');
const { PublishHub } = require('../../imports/core/publish-hub');
const { viewDocumentId } = require('../../imports/core/view-key');
const { buildOpenApiDocument } = require('../../imports/core/openapi');
const { VIEW_DEFINITIONS } = require('../../imports/core/analytics');
const { REGION_SCOPE_DEFAULTS } = require('../../imports/core/analytics/region-scope');
const { simulatedReports, assertClose } = require('../helpers/mesh');

/** Params a view needs beyond its defaults, picked from what the reference store holds. */
function paramsFor(name, store) {
  if (name === 'node') {
    const nodes = Array.from(store.nodes.keys()).sort();
    return nodes.length ? [{ pubKey: nodes[0] }, { pubKey: nodes[nodes.length - 1], days: 1 }] : [];
  }
  if (name === 'channelMessages') {
    const channels = Array.from(store.byChannel.keys()).sort();
    return channels.length ? [{ channel: channels[0] }] : [];
  }
  return [{}];
}

/** Views answered by a scoped instance, and the params lists to check them with. */
function scopedChecks(engine, reference) {
  const checks = [];
  for (const [name, view] of engine.views) {
    if (!view.scopedByRegion) continue;
    let list = paramsFor(name, reference.store);
    // A view with another required param we do not know how to pick: checked with what it accepts.
    list = list.filter((params) => {
      try { view.normalizeParams(params); return true; } catch (err) { return false; }
    });
    checks.push({ name, list });
  }
  return checks;
}

function regionsOf(reports) {
  return Array.from(new Set(reports.map((report) => report.region).filter(Boolean))).sort();
}

function compareScoped(engine, reference, region, now, label) {
  let compared = 0;
  for (const { name, list } of scopedChecks(engine, reference)) {
    for (const params of list) {
      const scoped = engine.snapshot(name, { ...params, region }, now);
      const expected = reference.snapshot(name, params, now);
      assertClose(scoped, expected, `${label} ${name}(${JSON.stringify(params)}) region ${region}`);
      compared++;
    }
  }
  return compared;
}

for (const { profile, count } of [{ profile: 'default', count: 3000 }, { profile: 'large', count: 2000 }]) {
  test(`${profile} mesh: every scoped view equals a fresh engine fed only the region's reports (catch-up, then live)`, () => {
    const { reports, channels } = simulatedReports({ seed: 11, count, profile });
    const regions = regionsOf(reports);
    assert.ok(regions.length >= 2, `${profile} has several regions (${regions})`);
    const half = Math.floor(reports.length / 2);
    const engine = createEngine({ channels, regionScope: { maxInstances: 1000 } });
    for (let i = 0; i < half; i++) engine.ingest({ ...reports[i] });
    const references = new Map(regions.map((region) => [region, createEngine({ channels })]));
    for (let i = 0; i < half; i++) if (reports[i].region) references.get(reports[i].region).ingest({ ...reports[i] });
    const now = engine.store.lastTime + 60 * 1000;
    let compared = 0;
    // Created on demand: caught up from the stored transmissions each region's observers heard.
    for (const region of regions) compared += compareScoped(engine, references.get(region), region, now, `${profile} catch-up`);
    // Fed live from then on (the instances exist now).
    for (let i = half; i < reports.length; i++) {
      engine.ingest({ ...reports[i] });
      if (reports[i].region) references.get(reports[i].region).ingest({ ...reports[i] });
    }
    const later = engine.store.lastTime + 60 * 1000;
    for (const region of regions) compared += compareScoped(engine, references.get(region), region, later, `${profile} live`);
    assert.ok(compared >= regions.length * 10, `compared ${compared} snapshots`);
    assert.equal(engine.regionScopes.stats().regions.length, regions.length);
  });

  test(`${profile} mesh: scoped views follow the store's evictions under a small budget`, () => {
    const { reports, channels } = simulatedReports({ seed: 12, count, profile });
    const regions = regionsOf(reports);
    const budget = profile === 'large' ? 2.5e6 : 2e6;
    const engine = createEngine({ channels, store: { memoryBudgetBytes: budget }, regionScope: { maxInstances: 1000 } });
    const maxNodes = engine.store.directory.options.maxNodes;
    const references = new Map(regions.map((region) => [region, createEngine({ channels, store: { directory: { maxNodes } } })]));
    // The reference leaves a transmission by the rule the README states: once the store evicted
    // it and every transmission the region heard before it has left (oldest first in the
    // region's own order). Watched here from the main store's evictions, one by one.
    const waiting = new Map(regions.map((region) => [region, new Set()]));
    // The references are fed in the order the store's views see its updates (it holds them for
    // a batch: store.js flushViews): each report the store kept, when the views apply it, so
    // that an eviction made between two reports reaches the references between them too.
    const kept = [];
    engine.store.addView({
      name: 'test-evictions',
      apply() {
        const report = kept.shift();
        if (report.region) references.get(report.region).ingest({ ...report });
      },
      evict(tx) {
        for (const region of regions) {
          if (!engine.regionScopes.regions.has(region)) continue;
          const reference = references.get(region).store;
          const copy = reference.byHash.get(tx.hash);
          if (copy === undefined) continue;
          waiting.get(region).add(copy);
          while (reference.size > 0 && waiting.get(region).has(reference.fifo.first())) {
            waiting.get(region).delete(reference.fifo.first());
            reference.evictOldest();
          }
        }
      },
    });
    const feed = (report) => {
      kept.push(report); // before: the store may run its views inside this ingest
      const result = engine.ingest({ ...report });
      if (result.error || !result.observation) kept.pop(); // refused or not stored: no update, no flush
    };
    // Until every region has reported: then create every scoped instance (catch-up, nothing evicted yet).
    let next = 0;
    while (next < reports.length && regions.some((region) => !Array.from(engine.store.observers.values()).some((o) => o.region === region))) feed(reports[next++]);
    assert.equal(engine.store.counters.evicted, 0, 'no eviction before the scopes exist');
    for (const region of regions) compareScoped(engine, references.get(region), region, engine.store.lastTime, `${profile} start`);

    let checkpoints = 0;
    while (next < reports.length) {
      const stop = Math.min(reports.length, next + Math.ceil(reports.length / 4));
      while (next < stop) feed(reports[next++]);
      engine.store.flushViews(); // what a read of any view does first
      const now = engine.store.lastTime + 30 * 1000;
      for (const region of regions) {
        const scope = engine.regionScopes.regions.get(region);
        const sub = scope.store;
        // The region store holds every stored transmission the region heard (except one heard
        // again after the store evicted it while its region copy still waited: counted) ...
        let heard = 0;
        let missing = 0;
        engine.store.fifo.forEachOldest((tx) => {
          if (tx.observations.some((o) => o.observer.region === region)) {
            heard++;
            if (!sub.byHash.has(tx.hash)) missing++;
          }
        });
        assert.ok(missing <= engine.regionScopes.counters.heardAgainWhileWaiting, `${region}: ${missing} missing`);
        // ... and, beyond them, only those the store evicted that wait behind one the region heard
        // earlier. A waiting copy whose transmission the store holds again (evicted, then heard
        // again by the region while the copy waited) is one record of the region store, counted
        // once: among the heard, not again among the waiting.
        let waitingHeardAgain = 0;
        for (const waiting of scope.evicted) {
          const held = engine.store.byHash.get(waiting.hash);
          if (held !== undefined && held.observations.some((o) => o.observer.region === region)) waitingHeardAgain++;
        }
        assert.ok(waitingHeardAgain <= engine.regionScopes.counters.heardAgainWhileWaiting, `${region}: ${waitingHeardAgain} waiting copies heard again`);
        assert.equal(sub.size, heard - missing + scope.evicted.size - waitingHeardAgain, `${region}: stored ${heard} - ${missing} + waiting ${scope.evicted.size} - heard again ${waitingHeardAgain}`);
        for (const waiting of scope.evicted) assert.ok(sub.byHash.get(waiting.hash) === waiting);
        const reference = references.get(region);
        assert.deepEqual(reference.store.transmissions().map((tx) => tx.hash), sub.transmissions().map((tx) => tx.hash), `${region}: same transmissions`);
        compareScoped(engine, reference, region, now, `${profile} evicting`);
      }
      checkpoints++;
    }
    assert.ok(engine.store.counters.evicted > reports.length / 10, `the budget evicted (${engine.store.counters.evicted})`);
    assert.ok(checkpoints >= 3);
    assert.ok(engine.regionScopes.counters.evictionsDeferred > 0, 'some evicted transmissions waited behind one the region heard first');
    // The scopes are charged to the store's account, inside its budget.
    const charged = engine.store.memory.parts.get('regionScopes').bytes;
    assert.ok(charged > 0);
    assert.ok(engine.store.bytes <= budget * 1.1, `${engine.store.bytes} within the budget`);
  });
}

test('instance cap, idle drop, memory refunded, versions never repeat', () => {
  const { reports, channels } = simulatedReports({ seed: 13, count: 1500 });
  let clock = 1000;
  const engine = createEngine({ channels, regionScope: { maxInstances: 3, idleMs: 60000, clock: () => clock } });
  for (const report of reports) engine.ingest(report);
  const [region, other] = regionsOf(reports);
  const scopes = engine.regionScopes;
  const names = ['stats', 'rf', 'topology', 'hashSizes'];
  const versions = new Map();
  for (const name of names) {
    clock += 10;
    versions.set(name, engine.view(name).versionFor({ region }));
  }
  assert.equal(scopes.instances, 3, 'at most maxInstances');
  assert.equal(scopes.counters.droppedOverCap, 1);
  assert.ok(!scopes.regions.get(region).entries.has('stats'), 'the least recently used went first');
  const part = engine.store.memory.parts.get('regionScopes');
  assert.ok(part.bytes > 0, 'charged to the store');
  const chargedOne = part.bytes;
  clock += 10;
  engine.view('stats').versionFor({ region: other });
  assert.equal(scopes.instances, 3);
  assert.equal(scopes.regions.size, 2, 'two region stores');
  assert.ok(part.bytes !== chargedOne);

  // Recreated after being dropped: its versions start above any handed out before.
  clock += 10;
  const again = engine.view('stats').versionFor({ region });
  assert.ok(again > versions.get('stats'), `${again} > ${versions.get('stats')}`);
  assert.ok(again > Math.max(...versions.values()));

  // Asked for again after idleMs (before any sweep): kept, not rebuilt.
  const createdBefore = scopes.counters.created;
  clock += 61000;
  engine.snapshot('stats', { region });
  assert.equal(scopes.counters.created, createdBefore, 'the idle instance asked for is reused');
  // A snapshot keeps an instance alive; unused for idleMs it is dropped, and its memory refunded.
  clock += 59000;
  engine.snapshot('stats', { region });
  clock += 2000;
  scopes.sweepIdle(clock);
  assert.deepEqual(Array.from(scopes.regions.keys()), [region]);
  assert.deepEqual(Array.from(scopes.regions.get(region).entries.keys()), ['stats']);
  clock += 61000;
  scopes.sweepIdle(clock);
  assert.equal(scopes.instances, 0);
  assert.equal(scopes.regions.size, 0);
  assert.equal(Math.round(part.bytes), 0, 'every byte refunded');
  assert.ok(scopes.counters.droppedIdle >= 3);
  // With no scope, observations cost the feeder one check.
  engine.ingest(reports[0]);
  assert.equal(scopes.regions.size, 0);

  // Idle instances are also found while packets flow (not only on reads).
  engine.snapshot('rf', { region });
  clock += 61000;
  const { reports: more } = simulatedReports({ seed: 14, count: REGION_SCOPE_DEFAULTS.sweepEveryObservations + 200 });
  for (const report of more) engine.ingest(report);
  assert.equal(scopes.regions.size, 0);
});

test('every view takes region: params, validation, unknown region, view key, OpenAPI', () => {
  const { reports, channels } = simulatedReports({ seed: 15, count: 800 });
  const engine = createEngine({ channels });
  for (const report of reports) engine.ingest(report);
  const empty = createEngine({ channels });
  const now = engine.store.lastTime;
  for (const [name, view] of engine.views) {
    assert.ok(view.paramsSpec.region, `${name} lists region`);
    const base = paramsFor(name, engine.store)[0];
    if (!base) continue;
    assert.equal(view.normalizeParams({ ...base, region: 'SFO' }).region, 'SFO', name);
    assert.equal(view.normalizeParams({ ...base }).region, null, name);
    for (const bad of ['x'.repeat(65), 'a\u0000b', 'line\nbreak', 42, ['SFO'], { $ne: 1 }]) {
      assert.throws(() => view.normalizeParams({ ...base, region: bad }), /region/, `${name} refuses ${JSON.stringify(bad)}`);
      assert.throws(() => view.snapshot({ ...base, region: bad }, now), /region/);
    }
    // A region nobody reports under: an empty result, not an error, and no instance used up.
    const scoped = view.snapshot({ ...base, region: 'Nowhere' }, now);
    if (view.scopedByRegion) assertClose(scoped, empty.snapshot(name, base, now), `${name} unknown region`);
    assert.doesNotThrow(() => view.versionFor({ ...base, region: 'Nowhere' }));
  }
  assert.equal(engine.regionScopes.instances, 0);
  assert.equal(engine.store.memory.parts.has('regionScopes'), false, 'nothing charged for unknown regions');

  assert.notEqual(viewDocumentId('rf', { region: 'SFO' }), viewDocumentId('rf', {}));
  assert.notEqual(viewDocumentId('rf', { region: 'SFO' }), viewDocumentId('rf', { region: 'SJC' }));

  const doc = buildOpenApiDocument({ views: VIEW_DEFINITIONS });
  for (const definition of VIEW_DEFINITIONS) {
    const region = doc.paths[`/api/views/${definition.name}`].get.parameters.find((parameter) => parameter.name === 'region');
    assert.ok(region, `${definition.name} documents region`);
    assert.equal(region.schema.type, 'string');
    assert.equal(region.schema.maxLength, 64);
  }
});

test('the publish hub serves a region-scoped view with no view-specific code', () => {
  const { reports, channels } = simulatedReports({ seed: 16, count: 1200 });
  const engine = createEngine({ channels });
  const region = regionsOf(reports)[0];
  for (const report of reports.slice(0, 600)) engine.ingest(report);
  const reference = createEngine({ channels });
  for (const report of reports.slice(0, 600)) if (report.region === region) reference.ingest(report);
  let now = engine.store.lastTime;
  const hub = new PublishHub((name) => engine.views.get(name), { publishIntervalMs: 0, timeRefreshMs: 1e12, now: () => now });
  const documents = new Map();
  const sink = (key) => ({
    added: (id, fields) => documents.set(key, { ...fields }),
    changed: (id, fields) => documents.set(key, { ...documents.get(key), ...fields }),
    removed: () => documents.delete(key),
  });
  const scoped = hub.subscribe('stats', { region }, sink('scoped'));
  const whole = hub.subscribe('stats', {}, sink('whole'));
  assert.notEqual(scoped.id, whole.id);
  assertClose(documents.get('scoped'), reference.snapshot('stats', {}, now));
  for (const report of reports.slice(600)) {
    engine.ingest(report);
    if (report.region === region) reference.ingest(report);
  }
  now = engine.store.lastTime;
  hub.tick();
  assertClose(documents.get('scoped'), reference.snapshot('stats', {}, now));
  assertClose(documents.get('whole'), engine.snapshot('stats', {}, now));
  assert.throws(() => hub.subscribe('stats', { region: 'x'.repeat(65) }, sink('bad')), /region/);
  scoped.stop();
  whole.stop();
  hub.close();
});

test('one instance slot: switching views in a region keeps its store fed; creations per minute are bounded', () => {
  const { reports, channels } = simulatedReports({ seed: 17, count: 1600 });
  let clock = 0;
  const engine = createEngine({ channels, regionScope: { maxInstances: 1, maxCreationsPerMinute: 4, clock: () => clock } });
  const region = regionsOf(reports)[0];
  const reference = createEngine({ channels });
  const feed = (report) => {
    engine.ingest(report);
    if (report.region === region) reference.ingest(report);
  };
  reports.slice(0, 800).forEach(feed);
  engine.snapshot('stats', { region });
  engine.snapshot('rf', { region }); // the stats instance makes room; the region store stays
  assert.equal(engine.regionScopes.instances, 1);
  reports.slice(800).forEach(feed);
  const now = engine.store.lastTime;
  assertClose(engine.snapshot('rf', { region }, now), reference.snapshot('rf', {}, now));
  // Creations so far: the region store (with its first instance, stats) and rf: 2 of 4. Two more, then refused until a minute passed.
  engine.snapshot('stats', { region }, now);
  engine.snapshot('hashSizes', { region }, now);
  assert.throws(() => engine.snapshot('topology', { region }, now), (err) => err.error === 'region-scope-busy' && /maxCreationsPerMinute/.test(err.message));
  assert.equal(engine.regionScopes.counters.refusedBusy, 1);
  assert.equal(engine.regionScopes.instances, 1, 'a refusal drops nothing');
  // Through the publish hub the refusal keeps its code (clients retry), and no group is left behind.
  const hub = new PublishHub((name) => engine.views.get(name), { publishIntervalMs: 0 });
  assert.throws(() => hub.subscribe('topology', { region }, { added() {}, changed() {}, removed() {} }), (err) => err.error === 'region-scope-busy');
  assert.equal(hub.groups.size, 0);
  clock += 60000;
  assertClose(engine.snapshot('topology', { region }, now), reference.snapshot('topology', {}, now));
});

test('a scoped view that throws while fed never breaks ingest: its region store is dropped and rebuilt on the next read', () => {
  const { reports, channels } = simulatedReports({ seed: 18, count: 1200 });
  const engine = createEngine({ channels });
  const region = regionsOf(reports)[0];
  reports.slice(0, 600).forEach((report) => engine.ingest(report));
  engine.snapshot('rf', { region });
  const scope = engine.regionScopes.regions.get(region);
  scope.entries.get('rf').instance.apply = () => { throw new Error('boom'); };
  const rejectedBefore = engine.store.counters.rejected;
  for (const report of reports.slice(600)) engine.ingest(report);
  engine.store.flushViews(); // the feeder runs with the store's views, when they run
  assert.equal(engine.store.counters.rejected, rejectedBefore, 'nothing refused');
  assert.equal(engine.store.counters.viewErrors, 0, 'the feeder caught it');
  assert.equal(engine.store.counters.ingested, 1200);
  assert.equal(engine.regionScopes.regions.size, 0);
  assert.ok(engine.regionScopes.counters.failures >= 1);
  assert.match(engine.regionScopes.stats().lastError.message, /boom/);
  assert.equal(Math.round(engine.store.memory.parts.get('regionScopes').bytes), 0);
  const reference = createEngine({ channels });
  for (const report of reports) if (report.region === region) reference.ingest(report);
  const now = engine.store.lastTime;
  assertClose(engine.snapshot('rf', { region }, now), reference.snapshot('rf', {}, now));
});

test('hostile streams with every region scoped: nothing throws, every region snapshot computes, the charge stays inside the budget', () => {
  const { hostileReports, HOSTILE_CLASSES } = require('../../imports/core/simulate/hostile');
  const budget = 4e6;
  const engine = createEngine({ store: { memoryBudgetBytes: budget }, regionScope: { maxInstances: 24, maxCreationsPerMinute: 1e9 } });
  const classes = Array.isArray(HOSTILE_CLASSES) ? HOSTILE_CLASSES : Object.keys(HOSTILE_CLASSES);
  const scoped = ['stats', 'rf', 'topology', 'subpaths', 'neighbours', 'nodes', 'hashSizes', 'traces'];
  for (const className of classes) {
    const reports = hostileReports(className, 300, { seed: 3 });
    reports.forEach((report, i) => {
      engine.ingest(report);
      if (i % 100 === 99) {
        const regions = Array.from(new Set(Array.from(engine.store.observers.values()).map((o) => o.region).filter(Boolean))).slice(0, 3);
        for (const region of regions) for (const name of scoped) engine.snapshot(name, { region });
      }
    });
  }
  assert.ok(engine.regionScopes.counters.created > 0, 'scopes were built');
  assert.equal(engine.regionScopes.counters.failures, 0);
  assert.ok(engine.regionScopes.instances <= 24);
  assert.ok(engine.store.bytes <= budget * 1.25, `${engine.store.bytes} within the budget`);
});
