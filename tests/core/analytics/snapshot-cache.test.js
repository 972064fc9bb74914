'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { createEngine } = require('../../../imports/core/engine');
const { simulatedReports, assertClose } = require('../../helpers/mesh');
const { MAX_AGE_MS, MAX_ENTRIES } = require('../../../imports/core/analytics/snapshot-cache');
const VIEWS = require('../../../imports/core/analytics');

const CACHED = ['routes', 'subpaths', 'neighbours', 'distances', 'rf', 'hashSizes', 'topology'];
const PARAMS = { routes: [{}, { limit: 40 }, { from: 0, limit: 600 }], subpaths: [{}, { limit: 50, minLength: 3 }], topology: [{}, { pairs: 200 }], neighbours: [{}, { limit: 5 }] };
const definitionOf = (name) => VIEWS.VIEW_DEFINITIONS.find((definition) => definition.name === name);

/** A view of the same kind built now over the same store: what a snapshot must equal. */
function fresh(engine, name) {
  return engine.store.addView(definitionOf(name).create(engine.store));
}

for (const profile of ['default', 'large']) {
  test(`cached snapshots (${profile} mesh): the same answer between two changes, a fresh one after ingest, eviction and a directory change`, () => {
    const { reports, channels } = simulatedReports({ seed: 21, count: 1500, profile });
    const engine = createEngine({ channels, views: CACHED });
    let next = 0;
    for (; next < 1200; next++) engine.ingest(reports[next]);
    const now = engine.store.lastTime;
    for (const name of CACHED) {
      const view = engine.view(name);
      for (const params of PARAMS[name] || [{}]) {
        const first = view.snapshot(params, now);
        // Nothing changed: the very same answer (a lookup, not a recomputation), except a routes answer too large to keep.
        if (!(name === 'routes' && params.limit > 500)) assert.equal(view.snapshot(params, now), first, `${name} ${JSON.stringify(params)} reused`);
        else assert.notEqual(view.snapshot(params, now), first);
      }
    }
    const check = (what) => {
      for (const name of CACHED) {
        const view = engine.view(name);
        const late = fresh(engine, name);
        for (const params of PARAMS[name] || [{}]) assertClose(view.snapshot(params, now), late.snapshot(params, now), `${name} ${JSON.stringify(params)} after ${what}`);
        engine.store.views.splice(engine.store.views.indexOf(late), 1);
      }
    };
    // Warm every cache, then change things one at a time.
    check('warming');
    engine.ingest(reports[next++]);
    check('one more report');
    engine.store.evictOldest();
    check('an eviction');
    for (; next < reports.length; next++) engine.ingest(reports[next]);
    check('many reports');
    // A directory change made outside ingest (a node restored from MongoDB) is seen at once.
    const known = Array.from(engine.store.nodes.values()).find((node) => node.role === 'repeater');
    engine.store.restoreNode({ ...known, pubKey: `${known.pubKey.slice(0, 6)}${'0'.repeat(58)}`, name: 'Restored twin' });
    check('a restored node');
  });
}

test('a cached answer expires after MAX_AGE_MS of wall time (a directory edit no counter shows)', async () => {
  const { reports, channels } = simulatedReports({ seed: 21, count: 1500, profile: 'default' });
  const engine = createEngine({ channels, views: ['topology'] });
  for (const report of reports) engine.ingest(report);
  const view = engine.view('topology');
  const first = view.snapshot({});
  assert.equal(view.snapshot({}), first);
  await new Promise((resolve) => setTimeout(resolve, MAX_AGE_MS + 50));
  const second = view.snapshot({});
  assert.notEqual(second, first);
  assertClose(second, first);
});

for (const profile of ['default', 'large']) {
  test(`routes resolved by earlier snapshots are reused only while still right (${profile} mesh, report by report, with evictions)`, () => {
    const { reports, channels } = simulatedReports({ seed: 8, count: 1400, profile });
    const engine = createEngine({ channels, views: ['routes'], store: { maxTransmissions: 400 } });
    let next = 0;
    for (; next < 1000; next++) engine.ingest(reports[next]);
    const live = engine.view('routes');
    let reused = 0;
    for (; next < reports.length; next++) {
      engine.ingest(reports[next]);
      const memoBefore = live.state.memo.size + live.state.weighedMemo.size;
      const now = engine.store.lastTime;
      const fresh = engine.store.addView(definitionOf('routes').create(engine.store));
      engine.store.views.splice(engine.store.views.indexOf(fresh), 1);
      for (const params of [{ limit: 40 }, {}]) assertClose(live.snapshot(params, now), fresh.snapshot(params, now), `routes ${JSON.stringify(params)} after report ${next}`);
      if (memoBefore > 0 && live.state.memo.size + live.state.weighedMemo.size >= memoBefore) reused++;
    }
    assert.ok(reused > 0);
    // The memo lets go of every packet as the store empties.
    while (engine.store.size) engine.store.evictOldest();
    assert.equal(live.state.memo.size + live.state.weighedMemo.size, 0);
  });
}

test('past its 4 params per view, the cache keeps the newest 4 and every answer stays the one a fresh view gives', () => {
  const { reports, channels } = simulatedReports({ seed: 22, count: 1200, profile: 'default' });
  const engine = createEngine({ channels, views: ['subpaths'] });
  for (const report of reports) engine.ingest(report);
  const view = engine.view('subpaths');
  const late = fresh(engine, 'subpaths');
  const now = engine.store.lastTime;
  const paramsList = [2, 3, 4, 5, 6, 7].map((minLength) => ({ minLength, limit: 20 }));
  assert.ok(paramsList.length > MAX_ENTRIES);
  for (let round = 0; round < 3; round++) {
    for (const params of paramsList) assertClose(view.snapshot(params, now), late.snapshot(params, now), `round ${round} ${JSON.stringify(params)}`);
  }
  const cache = view.state.snapshotCache;
  assert.equal(cache.entries.size, MAX_ENTRIES);
  // Asked in a cycle longer than the cache, every answer was computed again (oldest out first).
  assert.equal(cache.hits, 0);
  // The newest four are kept and answered from the cache while nothing changes.
  const newest = view.snapshot(paramsList[paramsList.length - 1], now);
  assert.equal(view.snapshot(paramsList[paramsList.length - 1], now), newest);
  assert.equal(cache.hits, 2);
});

