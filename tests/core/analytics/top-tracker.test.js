'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { TopTracker } = require('../../../imports/core/analytics/top-tracker');
const { createEngine } = require('../../../imports/core/engine');
const { simulatedReports, assertClose, seededRandom } = require('../../helpers/mesh');
const VIEWS = require('../../../imports/core/analytics');

test('TopTracker equals a full sort after random increments, decrements and removals', () => {
  const random = seededRandom(5);
  const entries = new Map(); // key -> { key, count, ranked }
  const order = (x, y) => y.count - x.count || (x.key < y.key ? -1 : x.key > y.key ? 1 : 0);
  const tracker = new TopTracker({ countOf: (e) => e.count, compare: order, forEach: (visit) => { for (const e of entries.values()) visit(e); } });
  let fast = 0;
  let asked = 0;
  for (let step = 0; step < 20000; step++) {
    const key = `k${Math.floor(random() ** 2 * 400)}`;
    let entry = entries.get(key);
    if (random() < 0.62) {
      if (!entry) entries.set(key, (entry = { key, count: 0, ranked: false }));
      entry.count++;
      tracker.raised(entry, entry.count);
    } else if (entry) {
      entry.count--;
      if (entry.count === 0) entries.delete(key);
    }
    if (step % 37 === 0) {
      const limit = [1, 5, 20, 50][step % 4];
      const passes = tracker.fullPasses;
      const got = tracker.top(limit).map((e) => `${e.key}:${e.count}`);
      const want = Array.from(entries.values()).sort(order).slice(0, limit).map((e) => `${e.key}:${e.count}`);
      assert.deepEqual(got, want, `step ${step} limit ${limit}`);
      asked++;
      if (tracker.fullPasses === passes) fast++;
    }
  }
  assert.ok(fast > asked / 2, `most answers from the ranked set (${fast} of ${asked})`);
});

const definitionOf = (name) => VIEWS.VIEW_DEFINITIONS.find((definition) => definition.name === name);
const PARAMS = {
  subpaths: [{}, { limit: 3 }, { minLength: 3, maxLength: 5, limit: 50 }, { limit: 100 }],
  neighbours: [{}, { limit: 3 }, { limit: 500 }],
  topology: [{}, { pairs: 1 }, { pairs: 200 }],
};

for (const profile of ['default', 'large']) {
  for (const budget of [150, 100000]) {
    test(`top lists of subpaths, neighbours and topology (${profile} mesh, at most ${budget} transmissions) equal a full ranking after every few reports and evictions`, () => {
      const { reports, channels } = simulatedReports({ seed: 33, count: profile === 'large' ? 1500 : 3000, profile });
      const engine = createEngine({ channels, views: Object.keys(PARAMS), store: { maxTransmissions: budget } });
      const random = seededRandom(budget);
      const ranked = { snapshots: 0, fullPasses: 0 };
      for (let next = 0; next < reports.length;) {
        const chunk = 1 + Math.floor(random() * 60);
        for (let i = 0; i < chunk && next < reports.length; i++) engine.ingest(reports[next++]);
        if (random() < 0.3) for (let i = Math.floor(random() * 20); i > 0 && engine.store.size > 1; i--) engine.store.evictOldest();
        for (const [name, list] of Object.entries(PARAMS)) {
          const live = engine.view(name);
          // A view built now over the same store ranks with a full pass: the reference.
          const fresh = engine.store.addView(definitionOf(name).create(engine.store));
          engine.store.views.splice(engine.store.views.indexOf(fresh), 1);
          for (const params of list) assertClose(live.snapshot(params), fresh.snapshot(params), `${name} ${JSON.stringify(params)} after ${next} reports`);
          ranked.snapshots += list.length;
        }
      }
      for (const name of Object.keys(PARAMS)) {
        const state = engine.view(name).state;
        const trackers = name === 'subpaths' ? state.tops : name === 'neighbours' ? [state.topKeys, state.topLinks] : [state.topHops, state.topPairs];
        for (const tracker of trackers) ranked.fullPasses += tracker.fullPasses;
      }
      assert.ok(ranked.fullPasses > 0);
    });
  }
}
