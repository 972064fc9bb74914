'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const distances = require('../../../imports/core/analytics/distances');
const { createEngine } = require('../../../imports/core/engine');
const { simulatedReports, assertClose, seededRandom } = require('../../helpers/mesh');

const withoutUnits = ({ units, ...figures }) => figures;
const BINS = [[0, 1], [1, 2], [2, 5], [5, 10], [10, 20], [20, 40], [40, 80], [80, Infinity]];
const LABELS = ['0-1', '1-2', '2-5', '5-10', '10-20', '20-40', '40-80', '80+'];

function isPlaced(node) {
  return !!node && typeof node.lat === 'number' && typeof node.lon === 'number' && Number.isFinite(node.lat) && Number.isFinite(node.lon) && (node.lat !== 0 || node.lon !== 0);
}

/** Haversine written out again, so the view's own helper is not trusted. */
function km(a, b) {
  const r = Math.PI / 180;
  const h = Math.sin(((b.lat - a.lat) * r) / 2) ** 2 + Math.cos(a.lat * r) * Math.cos(b.lat * r) * Math.sin(((b.lon - a.lon) * r) / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** The one placed node whose key starts with `hop`, by scanning the whole directory now. */
function uniquePlaced(store, hop) {
  const matches = [];
  for (const node of store.nodes.values()) if (node.pubKey.startsWith(hop)) matches.push(node);
  return matches.length === 1 && isPlaced(matches[0]) ? matches[0] : null;
}

/** The snapshot from its definition: every adjacent hop pair of every stored observation, resolved now. */
function bruteDistances(store, params) {
  const pairs = new Map();
  let observations = 0;
  let sightings = 0;
  for (const tx of store.transmissions()) {
    if (tx.payloadType === 9) continue;
    for (const o of tx.observations) {
      let distinct = false;
      for (let i = 1; i < o.path.length; i++) {
        if (o.path[i - 1] === o.path[i]) continue;
        distinct = true;
        const x = uniquePlaced(store, o.path[i - 1]);
        const y = uniquePlaced(store, o.path[i]);
        if (!x || !y || x === y) continue;
        const [p, q] = x.pubKey < y.pubKey ? [x, y] : [y, x];
        const key = `${p.pubKey}|${q.pubKey}`;
        if (!pairs.has(key)) pairs.set(key, { key, a: p, b: q, km: km(p, q), count: 0, lastSeen: 0 });
        const pair = pairs.get(key);
        pair.count++;
        pair.lastSeen = Math.max(pair.lastSeen, tx.time);
        sightings++;
      }
      if (distinct) observations++;
    }
  }
  const list = Array.from(pairs.values());
  const histogram = BINS.map(([lo, hi], i) => {
    const inBin = list.filter((pair) => pair.km >= lo && pair.km < hi);
    return { bin: LABELS[i], links: inBin.length, sightings: inBin.reduce((s, p) => s + p.count, 0) };
  });
  // Weighted median: expand every sighting, sort, take the ceil(n/2)-th shortest.
  const all = list.flatMap((pair) => Array(pair.count).fill(pair.km)).sort((x, y) => x - y);
  const brief = (node) => ({ pubKey: node.pubKey, name: node.name || null });
  return {
    links: list.length,
    observations,
    sightings,
    histogram,
    meanKm: sightings ? all.reduce((s, v) => s + v, 0) / sightings : null,
    medianKm: sightings ? all[Math.ceil(sightings / 2) - 1] : null,
    longest: list.sort((x, y) => y.km - x.km || (x.key < y.key ? -1 : 1)).slice(0, params.limit)
      .map((pair) => ({ a: brief(pair.a), b: brief(pair.b), km: pair.km, count: pair.count, lastSeen: pair.lastSeen })),
  };
}

function run({ seed = 7, count = 3000, checks = 6, profile = 'default', store = {} }) {
  const { reports, channels } = simulatedReports({ seed, count, profile });
  const engine = createEngine({ channels, views: ['distances'], store });
  const view = engine.view('distances');
  const random = seededRandom(seed * 17 + 3);
  let next = 0;
  let nonEmpty = 0;
  for (let check = 0; check < checks; check++) {
    const chunk = Math.ceil((reports.length / checks) * (0.5 + random()));
    for (let i = 0; i < chunk && next < reports.length; i++) engine.ingest(reports[next++]);
    const evictions = Math.floor(random() * engine.store.size * 0.3);
    for (let i = 0; i < evictions; i++) engine.store.evictOldest();
    for (const params of [{}, { limit: 1 }, { limit: 200 }]) {
      const snapshot = view.snapshot(params);
      if (snapshot.links > 0) nonEmpty++;
      assertClose(withoutUnits(snapshot), bruteDistances(engine.store, view.normalizeParams(params)), `distances(${JSON.stringify(params)}) ${profile} seed ${seed} check ${check}`);
    }
  }
  assert.ok(nonEmpty > 0, 'the stream produced placed links');
  return engine;
}

test('distances equals a brute-force recomputation after random inserts and evictions', () => {
  run({});
  run({ seed: 13, count: 2000, checks: 4 });
});

test('distances stays exact under a small memory budget (evictions by the store)', () => {
  const engine = run({ seed: 4, count: 3000, checks: 5, store: { memoryBudgetBytes: 400 * 1024 } });
  assert.ok(engine.store.counters.evicted > 0, 'the budget evicted packets');
});

test('distances stays exact on the large profile (colliding prefixes)', () => {
  run({ seed: 7, count: 1500, checks: 3, profile: 'large' });
});

test('distances frees every pair, record and byte once every transmission is evicted', () => {
  const engine = run({ seed: 9, count: 2000, checks: 2 });
  const state = engine.view('distances').state;
  assert.ok(state.hopPairs > 0 && state.nodePairs.size > 0 && state.part.bytes > 0);
  while (engine.store.size) engine.store.evictOldest();
  assert.equal(state.hopPairs, 0);
  assert.equal(state.prefixes.size, 0);
  assert.equal(state.nodePairs.size, 0);
  assert.equal(state.links, 0);
  assert.equal(state.sightings, 0);
  assert.deepEqual(engine.view('distances').snapshot({}).longest, []);
  assert.equal(state.byLength.length, 0);
  assert.equal(state.observations, 0);
  assert.equal(state.part.bytes, 0);
});

test('distances refuses bad params and answers an empty store', () => {
  const engine = createEngine({ views: ['distances'] });
  const empty = engine.snapshot('distances', {});
  assert.equal(empty.links, 0);
  assert.equal(empty.medianKm, null);
  assert.equal(empty.histogram.length, 8);
  assert.throws(() => engine.snapshot('distances', { limit: 201 }), /at most 200/);
  assert.throws(() => engine.snapshot('distances', { limit: 'x' }), /finite number/);
  assert.throws(() => engine.snapshot('distances', { region: 5, nope: 1 }));
  assert.equal(typeof distances.create, 'function');
});

test('distances added to a filled store equals one fed live', () => {
  const engine = run({ seed: 21, count: 2000, checks: 2 });
  const late = engine.store.addView(distances.create(engine.store));
  assertClose(late.snapshot({ limit: 200 }), engine.view('distances').snapshot({ limit: 200 }));
});

test('distances follows the directory report by report (prefixes that become unique, ambiguous or placed)', () => {
  for (const { profile, count, every } of [{ profile: 'default', count: 2500, every: 7 }, { profile: 'large', count: 5000, every: 23 }]) {
    const { reports, channels } = simulatedReports({ seed: 11, count, profile });
    const engine = createEngine({ channels, views: ['distances'] });
    const view = engine.view('distances');
    let checked = 0;
    for (let i = 0; i < reports.length; i++) {
      engine.ingest(reports[i]);
      if (i % every !== 0) continue;
      if (i % (3 * every) === 0) for (let k = 0; k < 5 && engine.store.size; k++) engine.store.evictOldest();
      assertClose(withoutUnits(view.snapshot({ limit: 200 })), bruteDistances(engine.store, view.normalizeParams({ limit: 200 })), `${profile} report ${i}`);
      checked++;
    }
    const state = view.state;
    assert.ok(checked > 100 && state.moveMark > 5 && state.links > 4, `${profile}: ${checked} checks, ${state.moveMark} re-checks that moved hop pairs, ${state.links} links`);
  }
});

test('distances sees a node moved outside ingest once the 1 s safety window has passed', (t) => {
  const engine = run({ seed: 21, count: 2000, checks: 2 });
  const view = engine.view('distances');
  const before = view.snapshot({ limit: 200 });
  const pair = before.longest[0];
  const node = engine.store.nodes.get(pair.a.pubKey);
  node.lat += 0.5; // a reload merging a persisted position: no ingest, no stamp change
  const realNow = Date.now;
  t.after(() => { Date.now = realNow; });
  Date.now = () => realNow() + 5000;
  const after = view.snapshot({ limit: 200 });
  assertClose(withoutUnits(after), bruteDistances(engine.store, view.normalizeParams({ limit: 200 })));
  assert.notEqual(after.longest.find((row) => row.a.pubKey === pair.a.pubKey && row.b.pubKey === pair.b.pubKey).km, pair.km);
});

test('distances follows node changes: re-adverts, moves, renames, re-roles and removals re-check only the changed nodes\' prefixes, exactly', () => {
  const { simulatedWorld, churnThrough } = require('../../helpers/mesh');
  for (const { profile, count } of [{ profile: 'default', count: 1500 }, { profile: 'large', count: 2500 }]) {
    const { reports, channels } = simulatedReports({ seed: 13, count, profile });
    const engine = createEngine({ channels, views: ['distances'] });
    const view = engine.view('distances');
    churnThrough({
      engine, world: simulatedWorld({ seed: 13, profile }), reports, random: seededRandom(19),
      afterChange: (kind, step) => {
        view.state.checkedAt = Date.now(); // the 1 s safety net must not decide here: the node changes do
        assertClose(withoutUnits(view.snapshot({ limit: 200 })), bruteDistances(engine.store, view.normalizeParams({ limit: 200 })), `${profile} step ${step} (${kind})`);
      },
    });
    assert.ok(view.state.moveMark > 3, `${profile}: ${view.state.moveMark} re-checks moved hop pairs`);
  }
});
