'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { checkAgainstBruteForce, simulatedReports, assertClose, seededRandom, bruteResolve } = require('../../helpers/mesh');
const { createEngine } = require('../../../imports/core/engine');
const { PacketStore } = require('../../../imports/core/store');
const subpaths = require('../../../imports/core/analytics/subpaths');

const withoutUnits = ({ units, ...figures }) => figures;
/** A detail read every stored path (these stores are below the scan bound): its scan equals its count. */
function withoutScan({ scan, ...detail }) {
  assert.equal(scan.complete, true, 'the scan read every stored path');
  assert.equal(scan.paths, detail.count, 'the scan found exactly the counted paths');
  return detail;
}
const project = (snapshot) => (snapshot.detail ? { detail: withoutScan(withoutUnits(snapshot.detail)) } : withoutUnits(snapshot));


/** Every observed path (one per observation), oldest first. */
function allPaths(store) {
  const paths = [];
  for (const tx of store.transmissions()) for (const o of tx.observations) paths.push({ path: o.path, observation: o });
  return paths;
}

/** The distinct contiguous runs of 2..8 hops in one path. */
function runsOf(path) {
  const runs = new Set();
  for (let i = 0; i < path.length; i++) {
    for (let length = 2; length <= 8 && i + length <= path.length; length++) runs.add(path.slice(i, i + length).join(','));
  }
  return runs;
}

function bruteList(store, params) {
  const counts = new Map();
  let totalPaths = 0;
  for (const { path } of allPaths(store)) {
    if (path.length < 2) continue;
    totalPaths++;
    for (const run of runsOf(path)) counts.set(run, (counts.get(run) || 0) + 1);
  }
  const inRange = Array.from(counts).filter(([run]) => {
    const length = run.split(',').length;
    return length >= params.minLength && length <= params.maxLength;
  });
  inRange.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return {
    totalPaths,
    minLength: params.minLength,
    maxLength: params.maxLength,
    distinct: inRange.length,
    subpaths: inRange.slice(0, params.limit).map(([run, count]) => {
      const hops = run.split(',');
      return { subpath: run, hops, length: hops.length, count, share: count / totalPaths, names: hops.map((hop) => bruteResolve(store, hop).node?.name ?? null) };
    }),
  };
}

function bruteDetail(store, params) {
  const hops = params.subpath.split(',');
  const observers = new Map();
  const previous = new Map();
  const next = new Map();
  let count = 0;
  let totalPaths = 0;
  let firstSeen = null;
  let lastSeen = null;
  for (const { path, observation } of allPaths(store)) {
    if (path.length >= 2) totalPaths++;
    const before = new Set();
    const after = new Set();
    for (let i = 0; i + hops.length <= path.length; i++) {
      if (path.slice(i, i + hops.length).join(',') !== params.subpath) continue;
      before.add(i > 0 ? path[i - 1] : null);
      after.add(i + hops.length < path.length ? path[i + hops.length] : null);
    }
    if (before.size === 0) continue;
    count++;
    const id = observation.observer.id;
    if (!observers.has(id)) observers.set(id, { id, name: observation.observer.name, region: observation.observer.region, count: 0 });
    observers.get(id).count++;
    firstSeen = firstSeen === null ? observation.time : Math.min(firstSeen, observation.time);
    lastSeen = lastSeen === null ? observation.time : Math.max(lastSeen, observation.time);
    for (const hop of before) previous.set(hop, (previous.get(hop) || 0) + 1);
    for (const hop of after) next.set(hop, (next.get(hop) || 0) + 1);
  }
  const rows = (map) => Array.from(map, ([hop, n]) => ({ hop, count: n })).sort((a, b) => b.count - a.count || ((a.hop ?? '') < (b.hop ?? '') ? -1 : 1));
  return {
    detail: {
      subpath: params.subpath,
      length: hops.length,
      count,
      share: totalPaths ? count / totalPaths : 0,
      totalPaths,
      hops: hops.map((hop) => ({ hop, hashSize: hop.length / 2, ...bruteResolve(store, hop) })),
      observers: Array.from(observers.values()).sort((a, b) => b.count - a.count || (a.id < b.id ? -1 : 1)),
      firstSeen,
      lastSeen,
      previous: rows(previous),
      next: rows(next),
    },
  };
}

const bruteSubpaths = (store, params) => (params.subpath !== null ? bruteDetail(store, params) : bruteList(store, params));

/** List params plus detail params for subpaths picked from the data (busiest, longest, absent). */
function paramsFor(store) {
  const list = [{}, { minLength: 3, maxLength: 5, limit: 7 }, { limit: 100 }, { minLength: 8 }, { maxLength: 2, limit: 3 }];
  const paths = allPaths(store).map((p) => p.path).filter((path) => path.length >= 2);
  if (paths.length) {
    const longest = paths.reduce((a, b) => (b.length > a.length ? b : a));
    list.push({ subpath: longest.slice(0, 2).join(',') }, { subpath: longest.slice(-Math.min(8, longest.length)).join(',').toUpperCase() });
    list.push({ subpath: paths[paths.length - 1].slice(0, 3).join(',') });
  }
  list.push({ subpath: 'ff,ee,dd' });
  return list;
}

test('subpaths equals a brute-force recount after random inserts and evictions', () => {
  checkAgainstBruteForce({ view: 'subpaths', bruteForce: bruteSubpaths, paramsList: paramsFor, project });
});

test('subpaths stays exact on other seeds, including the busiest subpath in detail', () => {
  for (const seed of [5, 13]) {
    checkAgainstBruteForce({
      view: 'subpaths',
      bruteForce: bruteSubpaths,
      seed,
      count: 4000,
      checks: 4,
      project,
      paramsList: (store) => {
        const engineSnapshot = bruteList(store, { minLength: 2, maxLength: 8, limit: 1 });
        return [...paramsFor(store), ...engineSnapshot.subpaths.map((row) => ({ subpath: row.subpath }))];
      },
    });
  }
});

test('a subpath repeated inside one path counts once for that path', () => {
  const store = new PacketStore();
  const view = store.addView(subpaths.create(store));
  // GRP_TXT flood (header 0x15), 6 one-byte hops aa,bb,aa,bb,aa,bb, then channel hash, MAC, ciphertext.
  const raw = `1506${'aabb'.repeat(3)}11223344556677`;
  store.ingest({ raw, observerId: 'obs1', time: Date.UTC(2026, 0, 1) });
  const list = view.snapshot({ limit: 100 });
  assert.equal(list.totalPaths, 1);
  assert.deepEqual(list.subpaths.find((row) => row.subpath === 'aa,bb').count, 1);
  assert.deepEqual(withoutUnits(list), bruteList(store, view.normalizeParams({ limit: 100 })));
  const detail = view.snapshot({ subpath: 'aa,bb' }).detail;
  assert.deepEqual(detail.next, [{ hop: 'aa', count: 1 }, { hop: null, count: 1 }].sort((a, b) => ((a.hop ?? '') < (b.hop ?? '') ? -1 : 1)));
  assert.deepEqual(project(view.snapshot({ subpath: 'aa,bb' })), bruteDetail(store, view.normalizeParams({ subpath: 'aa,bb' })));
  store.evictOldest();
  assert.equal(view.state.totalPaths, 0);
  assert.ok(view.state.byLength.every((map) => map.size === 0));
});

test('subpaths rejects bad parameters by name', () => {
  const store = new PacketStore();
  const view = store.addView(subpaths.create(store));
  assert.throws(() => view.snapshot({ minLength: 5, maxLength: 3 }), /minLength/);
  assert.throws(() => view.snapshot({ limit: 101 }), /limit/);
  assert.throws(() => view.snapshot({ subpath: 'aa' }), /subpath/);
  assert.throws(() => view.snapshot({ subpath: 'aa,zz' }), /subpath/);
  assert.throws(() => view.snapshot({ subpath: Array(10).fill('aa').join(',') }), /subpath/);
  // Lengths out of order are a bad parameter when the parameters are read (REST 400, bad-params),
  // not a snapshot that fails (REST 500, counted among the server's own errors).
  // The engine's view (region-scoped, what REST, methods and publications call) reads them alike.
  const engineView = createEngine({}).views.get('subpaths');
  for (const normalize of [subpaths.normalizeParams, view.normalizeParams, engineView.normalizeParams]) {
    assert.throws(() => normalize({ minLength: 5, maxLength: 2 }), { name: 'ParamError', message: 'subpaths: parameter "minLength" must not exceed maxLength (2)' });
    assert.throws(() => normalize({ minLength: 8, maxLength: 2 }), { name: 'ParamError' });
    assert.deepEqual(normalize({ minLength: 3, maxLength: 3 }), { minLength: 3, maxLength: 3, limit: 20, subpath: null, ...(normalize === engineView.normalizeParams ? { region: null } : {}) });
  }
});

test('subpath first/last seen stay exact over a day of traffic with evictions across hours', () => {
  const { reports, channels } = simulatedReports({ seed: 21, count: 3000 });
  // Stretch the clock 40x so the run spans many hours (order and dedup are unchanged).
  const t0 = reports[0].time;
  const stretched = reports.map((report) => ({ ...report, time: t0 + (report.time - t0) * 40 }));
  const engine = createEngine({ channels, views: ['subpaths'] });
  const view = engine.view('subpaths');
  const random = seededRandom(99);
  let next = 0;
  while (next < stretched.length) {
    for (let i = 0; i < 400 && next < stretched.length; i++) engine.ingest(stretched[next++]);
    const evictions = Math.floor(random() * engine.store.size * 0.3);
    for (let i = 0; i < evictions; i++) engine.store.evictOldest();
    const top = view.snapshot({ limit: 100 }).subpaths;
    for (const row of top.filter((_, i) => i % 7 === 0)) {
      const params = view.normalizeParams({ subpath: row.subpath });
      assertClose(project(view.snapshot(params)), bruteDetail(engine.store, params), `detail ${row.subpath}`);
    }
  }
  const hours = new Set(engine.store.transmissions().map((tx) => Math.floor(tx.time / 3600e3)));
  assert.ok(hours.size > 3, `the run spans ${hours.size} stored hours`);
});

test('subpaths added to a filled store equals one fed live', () => {
  const engine = checkAgainstBruteForce({ view: 'subpaths', bruteForce: bruteSubpaths, checks: 3, project: project });
  const late = engine.store.addView(subpaths.create(engine.store));
  assertClose(late.snapshot({ limit: 100 }), engine.view('subpaths').snapshot({ limit: 100 }));
});

test('paths that repeat runs many times count each run once per path, through evictions', () => {
  // Paths over three one-byte hops, up to 12 long: most repeat some run, often several times.
  const random = seededRandom(8);
  const store = new PacketStore({ maxTransmissions: 40 });
  const view = store.addView(subpaths.create(store));
  const hops = ['aa', 'bb', 'cc'];
  const t0 = Date.UTC(2026, 0, 1);
  for (let i = 0; i < 400; i++) {
    const length = 2 + Math.floor(random() * 11);
    let path = '';
    for (let h = 0; h < length; h++) path += hops[Math.floor(random() * hops.length)];
    // GRP_TXT flood with a distinct payload per packet, heard by one or two observers.
    const raw = `15${length.toString(16).padStart(2, '0')}${path}11${(0x10000000 + i).toString(16)}5566`;
    store.ingest({ raw, observerId: 'obs1', time: t0 + i * 1000 });
    if (i % 3 === 0) store.ingest({ raw, observerId: 'obs2', time: t0 + i * 1000 + 10 });
    if (i % 25 === 24) {
      const params = view.normalizeParams({ limit: 100 });
      assert.deepEqual(withoutUnits(view.snapshot(params)), bruteList(store, params), `after ${i + 1} packets`);
    }
  }
  while (store.size > 0) store.evictOldest();
  assert.equal(view.state.totalPaths, 0);
  assert.ok(view.state.byLength.every((table) => table.size === 0));
});

test('a detail scan stops at its transmission or observation bound, whole transmissions only, and counts exactly what it read', () => {
  const { reports, channels } = simulatedReports({ seed: 3, count: 6000, profile: 'large' });
  const engine = createEngine({ channels, views: ['subpaths'] });
  for (const report of reports) engine.ingest(report);
  const store = engine.store;
  const busiest = engine.view('subpaths').snapshot({ limit: 1 }).subpaths[0].hops;
  const rarest = busiest.reduce((a, b) => (store.byPrefix.get(b).length < store.byPrefix.get(a).length ? b : a));
  const newestFirst = [];
  store.byPrefix.get(rarest).forEachNewest((tx) => { newestFirst.push(tx); });
  const totalObservations = newestFirst.reduce((sum, tx) => sum + tx.observations.length, 0);
  assert.ok(newestFirst.length > 20 && totalObservations > 2 * newestFirst.length, `a busy hop: ${newestFirst.length} transmissions, ${totalObservations} observations`);

  for (const limits of [{ transmissions: 10, observations: 1e9 }, { transmissions: 1e9, observations: Math.floor(totalObservations / 3) }, { transmissions: 1e9, observations: 1 }]) {
    const found = subpaths.scanSubpath(store, busiest, limits);
    // What a brute-force reader of the same bounds reads: whole transmissions, newest first.
    const read = [];
    let observations = 0;
    for (const tx of newestFirst) {
      if (read.length === limits.transmissions || (read.length > 0 && observations + tx.observations.length > limits.observations)) break;
      read.push(tx);
      observations += tx.observations.length;
    }
    assert.equal(found.transmissions, read.length, `transmissions read under ${JSON.stringify(limits)}`);
    assert.equal(found.observationsRead, observations);
    assert.equal(found.complete, false);
    const run = busiest.join(',');
    let paths = 0;
    const observers = new Map();
    const next = new Map();
    for (const tx of read) {
      for (const observation of tx.observations) {
        const path = observation.path;
        if (!runsOf(path).has(run)) continue;
        paths++;
        observers.set(observation.observer.id, (observers.get(observation.observer.id) || 0) + 1);
        const after = new Set();
        for (let i = 0; i + busiest.length <= path.length; i++) {
          if (path.slice(i, i + busiest.length).join(',') === run) after.add(i + busiest.length < path.length ? path[i + busiest.length] : null);
        }
        for (const hop of after) next.set(hop, (next.get(hop) || 0) + 1);
      }
    }
    assert.equal(found.count, paths);
    assert.deepEqual(new Map([...found.observers].sort()), new Map([...observers].sort()));
    assert.deepEqual(new Map([...found.next].sort()), new Map([...next].sort()));
  }
  // The view's own bounds: the detail says how much it read.
  const detail = engine.view('subpaths').snapshot({ subpath: busiest.join(',') }).detail;
  assert.ok(detail.scan.observations <= subpaths.SCAN_LIMITS.observations && detail.scan.transmissions <= subpaths.SCAN_LIMITS.transmissions);
});
