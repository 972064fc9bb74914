'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { PublishHub } = require('../../imports/core/publish-hub');
const { createEngine } = require('../../imports/core/engine');
const { simulatedReports } = require('../helpers/mesh');

function recordingSink() {
  const events = [];
  return {
    events,
    added: (id, fields) => events.push(['added', id, fields]),
    changed: (id, fields) => events.push(['changed', id, fields]),
    removed: (id) => events.push(['removed', id]),
  };
}

/** An engine whose views count their snapshots (in all, and per view); `onSnapshot(name)` runs before each. */
function countingEngine({ onSnapshot = null } = {}) {
  const { reports, channels } = simulatedReports({ seed: 3, count: 400 });
  const engine = createEngine({ channels });
  let snapshots = 0;
  const perView = new Map();
  const resolve = (name) => {
    const view = engine.views.get(name);
    return view && {
      ...view,
      normalizeParams: view.normalizeParams,
      versionFor: (p) => view.versionFor(p),
      snapshot: (p, now) => {
        snapshots++;
        perView.set(name, (perView.get(name) || 0) + 1);
        if (onSnapshot) onSnapshot(name);
        return view.snapshot(p, now);
      },
    };
  };
  return { engine, reports, resolve, snapshots: () => snapshots, snapshotsOf: (name) => perView.get(name) || 0 };
}

test('one snapshot per tick is shared by every subscriber of the same view and params', () => {
  const { engine, reports, resolve, snapshots } = countingEngine();
  const hub = new PublishHub(resolve, { publishIntervalMs: 0 });
  const sinks = Array.from({ length: 100 }, () => recordingSink());
  for (const sink of sinks) hub.subscribe('stats', {}, sink);
  assert.equal(snapshots(), 1, 'the first subscriber computes, the other 99 reuse it');
  for (const report of reports.slice(0, 50)) engine.ingest(report);
  hub.tick();
  assert.equal(snapshots(), 2);
  for (const sink of sinks) {
    assert.equal(sink.events.length, 2);
    assert.equal(sink.events[1][0], 'changed');
  }
  assert.equal(hub.stats().perView.stats.subscribers, 100);
});

test('only changed fields are sent, and nothing when the view did not change', () => {
  const { engine, reports, resolve, snapshots } = countingEngine();
  let now = 1e12;
  const hub = new PublishHub(resolve, { publishIntervalMs: 0, now: () => now });
  const sink = recordingSink();
  hub.subscribe('stats', {}, sink);
  hub.tick();
  assert.equal(sink.events.length, 1, 'no change, no message');
  assert.equal(snapshots(), 1, 'no version change, no recomputation');
  engine.ingest(reports[0]);
  engine.ingest(reports[1]);
  engine.ingest(reports[2]);
  hub.tick();
  assert.equal(sink.events.length, 2, 'three packets between ticks coalesce into one update');
  const fields = sink.events[1][2];
  assert.ok('transmissions' in fields || 'observations' in fields);
  assert.ok(!('nodesByStatus' in fields) || fields.nodesByStatus !== undefined);
  for (const [field, value] of Object.entries(fields)) {
    assert.notDeepEqual(value, sink.events[0][2][field], `${field} is only sent when it changed`);
  }
  now += 60000; // past timeRefreshMs: clock-dependent views are recomputed even with no packets
  hub.tick();
  assert.equal(snapshots(), 3);
});

test('the group and its work end when the last subscriber leaves', () => {
  const { resolve } = countingEngine();
  const hub = new PublishHub(resolve, { publishIntervalMs: 1000 });
  const a = hub.subscribe('stats', {}, recordingSink());
  const b = hub.subscribe('stats', {}, recordingSink());
  const c = hub.subscribe('observers', { region: 'SFO' }, recordingSink());
  assert.equal(hub.stats().groups, 2);
  a.stop();
  assert.equal(hub.stats().groups, 2);
  b.stop();
  c.stop();
  assert.equal(hub.stats().groups, 0);
  assert.equal(hub.timer, null, 'no timer keeps running for nobody');
});

test('bad params are refused before any work', () => {
  const { resolve } = countingEngine();
  const hub = new PublishHub(resolve, { publishIntervalMs: 0 });
  assert.throws(() => hub.subscribe('packets', { limit: 100000 }, recordingSink()), /at most 500/);
  assert.throws(() => hub.subscribe('packets', { bogus: 1 }, recordingSink()), /not accepted/);
  assert.throws(() => hub.subscribe('nope', {}, recordingSink()), /unknown view/);
  assert.equal(hub.stats().groups, 0);
});

test('rows shape sends added, changed and removed rows for the live feed', () => {
  const { engine, reports, resolve } = countingEngine();
  const hub = new PublishHub(resolve, { publishIntervalMs: 0 });
  const sink = recordingSink();
  hub.subscribe('packets', { limit: 5 }, sink, 'rows', 'hash');
  assert.equal(sink.events.length, 0, 'empty store, no rows');
  for (const report of reports.slice(0, 40)) engine.ingest(report);
  hub.tick();
  const added = sink.events.filter((e) => e[0] === 'added');
  assert.equal(added.length, 5);
  for (const report of reports.slice(40, 80)) engine.ingest(report);
  hub.tick();
  const removed = sink.events.filter((e) => e[0] === 'removed');
  assert.ok(removed.length >= 1, 'rows pushed out of the limit are removed');
  const live = new Set();
  for (const [kind, id] of sink.events) {
    if (kind === 'added') live.add(id);
    if (kind === 'removed') live.delete(id);
  }
  const expected = engine.snapshot('packets', { limit: 5 }).packets.map((p) => p.hash);
  assert.deepEqual([...live].sort(), expected.sort(), 'client state equals the view');
});

test('a view with a longer interval is updated at most once per interval, with the latest data', () => {
  const { engine, reports, resolve, snapshots } = countingEngine();
  let now = 1e12;
  const hub = new PublishHub(resolve, { publishIntervalMs: 0, viewIntervalMs: { rf: 1000 }, now: () => now });
  const rf = recordingSink();
  const stats = recordingSink();
  hub.subscribe('rf', {}, rf);
  hub.subscribe('stats', {}, stats);
  for (let tick = 0; tick < 8; tick++) {
    engine.ingest(reports[tick]);
    now += 250;
    hub.tick();
  }
  assert.equal(stats.events.length, 1 + 8, 'stats: one update per tick');
  assert.equal(rf.events.length, 1 + 2, 'rf: at most one update per second over two seconds');
  assert.equal(hub.stats().deferred, 6);
  assert.ok(snapshots() >= 2);
  const latest = engine.snapshot('rf', {}, now);
  const client = Object.assign({}, ...rf.events.map((event) => event[2]));
  assert.deepEqual(client.transmissions, latest.transmissions, 'the deferred update carries the newest data');
});

test('views with a longer interval opened together are staggered: each falls due on its own tick, an interval apart, however long a tick\'s fan-out takes', () => {
  let now = 1e12;
  // A group's snapshot and fan-out take time (5,000 sessions): the groups after it start later.
  const { engine, reports, resolve, snapshotsOf } = countingEngine({ onSnapshot: () => { now += 60; } });
  const views = ['stats', 'nodes', 'rf', 'topology'];
  const slow = views.slice(1);
  const hub = new PublishHub(resolve, { publishIntervalMs: 250, viewIntervalMs: { nodes: 1000, rf: 1000, topology: 1000 }, now: () => now });
  for (const name of views) hub.subscribe(name, {}, recordingSink());
  const refreshedOn = Object.fromEntries(views.map((name) => [name, []]));
  for (let tick = 1; tick <= 16; tick++) {
    engine.ingest(reports[tick]); // every view's version moves with every report
    now = 1e12 + 250 * tick + (tick % 5 === 0 ? 150 : 0); // the timer: ticks ~250 ms apart, however long the last one took, one in five late
    // Snapshots computed per view, tick by tick (a refresh, whether or not a field then differs).
    const before = views.map(snapshotsOf);
    hub.tick();
    views.forEach((name, i) => { if (snapshotsOf(name) > before[i]) refreshedOn[name].push(tick); });
  }
  hub.close();
  assert.equal(refreshedOn.stats.length, 16, 'the 250 ms view refreshes on every tick');
  const ticksUsed = new Set();
  for (const name of slow) {
    const ticks = refreshedOn[name];
    assert.equal(ticks.length, 4, `${name}: one refresh per second (ticks ${ticks})`);
    for (let i = 1; i < ticks.length; i++) assert.equal(ticks[i] - ticks[i - 1], 4, `${name}: refreshes an interval apart (ticks ${ticks})`);
    for (const tick of ticks) {
      assert.ok(!ticksUsed.has(tick), `tick ${tick} carries two of the 1 s views: ${JSON.stringify(refreshedOn)}`);
      ticksUsed.add(tick);
    }
  }
});

// --- poison-proof: a view that throws -------------------------------------------------------

const { SnapshotError } = require('../../imports/core/publish-hub');
const { seededRandom } = require('../helpers/mesh');

/**
 * A tiny view over a list of values that throws while any value is not finite (like a
 * histogram meeting SNR 1e308), plus an injectable fault on chosen snapshot calls.
 */
function fragileViews() {
  const data = { values: [1, 2, 3], version: 0 };
  const faults = { failCalls: new Set(), calls: 0, failAlways: false };
  const fragile = {
    normalizeParams: (raw = {}) => ({ scale: raw.scale === undefined ? 1 : raw.scale }),
    versionFor: () => data.version,
    snapshot: (params) => {
      faults.calls++;
      if (faults.failAlways || faults.failCalls.has(faults.calls)) throw new RangeError(`injected failure on call ${faults.calls}`);
      const bins = data.values.map((value) => {
        if (!Number.isFinite(value * params.scale)) throw new RangeError('histogram bin NaN');
        return value * params.scale;
      });
      return { bins, total: bins.reduce((a, b) => a + b, 0) };
    },
  };
  const steady = {
    normalizeParams: () => ({}),
    versionFor: () => data.version,
    snapshot: () => ({ count: data.values.length }),
  };
  const resolve = (name) => ({ fragile, steady }[name]);
  const setValues = (values) => {
    data.values = values;
    data.version++;
  };
  return { resolve, faults, setValues };
}

/** A sink that rebuilds the client's document from the events, as minimongo would. */
function documentSink() {
  const sink = recordingSink();
  sink.document = () => {
    const doc = {};
    for (const [kind, , fields] of sink.events) {
      if (kind === 'added') Object.assign(doc, fields);
      if (kind === 'changed') for (const [k, v] of Object.entries(fields)) { if (v === undefined) delete doc[k]; else doc[k] = v; }
    }
    return doc;
  };
  return sink;
}

test('a first snapshot that throws gives that subscriber a SnapshotError and leaves no group behind', () => {
  const { resolve, faults } = fragileViews();
  const hub = new PublishHub(resolve, { publishIntervalMs: 0 });
  const other = documentSink();
  hub.subscribe('steady', {}, other);
  faults.failCalls.add(1);
  const sink = documentSink();
  assert.throws(() => hub.subscribe('fragile', {}, sink), (err) => {
    assert.ok(err instanceof SnapshotError);
    assert.equal(err.error, 'snapshot-failed');
    assert.match(err.reason, /view "fragile" could not compute its snapshot: injected failure on call 1/);
    return true;
  });
  assert.equal(sink.events.length, 0, 'nothing, not even an undefined document, was sent');
  let stats = hub.stats();
  assert.equal(stats.groups, 1, 'only the healthy group');
  assert.equal(stats.errors, 1);
  assert.equal(stats.subscribeErrors, 1);
  assert.equal(stats.perView.fragile.failures, 1);
  assert.equal(stats.lastError.view, 'fragile');

  // The view recovered: the next subscriber builds the group afresh and gets a full document.
  const later = documentSink();
  hub.subscribe('fragile', {}, later);
  assert.deepEqual(later.document(), { bins: [1, 2, 3], total: 6 });
  assert.deepEqual(other.document(), { count: 3 }, 'the other group never noticed');
  stats = hub.stats();
  assert.equal(stats.groups, 2);
  assert.equal(stats.failingGroups, 0);
});

test('a tick that throws keeps the last good document, refuses joiners with the error, and recovers once the data allows', () => {
  const { resolve, setValues } = fragileViews();
  const hub = new PublishHub(resolve, { publishIntervalMs: 0 });
  const a = documentSink();
  const b = documentSink();
  const scaled = documentSink();
  const steady = documentSink();
  hub.subscribe('fragile', {}, a);
  hub.subscribe('fragile', {}, b);
  hub.subscribe('fragile', { scale: 2 }, scaled);
  hub.subscribe('steady', {}, steady);

  setValues([1, 2, 1e308]); // fine at scale 1, Infinity (a throw) at scale 2
  assert.doesNotThrow(() => hub.tick());
  assert.deepEqual(a.document(), { bins: [1, 2, 1e308], total: 1e308 + 3 }, 'same view, other params: unaffected');
  assert.deepEqual(scaled.document(), { bins: [2, 4, 6], total: 12 }, 'the failing group keeps its last good document');
  assert.equal(scaled.events.length, 1, 'and sends nothing broken');
  assert.deepEqual(steady.document(), { count: 3 });

  let stats = hub.stats();
  assert.equal(stats.tickErrors, 1);
  assert.equal(stats.failingGroups, 1);
  assert.equal(stats.perView.fragile.failing, 1);
  assert.equal(stats.perView.fragile.failures, 1);
  assert.match(stats.lastError.message, /histogram bin NaN/);

  // Joining the failing group: the error, not undefined, and no sink added.
  const joiner = documentSink();
  assert.throws(() => hub.subscribe('fragile', { scale: 2 }, joiner), /view "fragile" could not compute its snapshot: histogram bin NaN/);
  assert.equal(joiner.events.length, 0);
  assert.equal(hub.stats().refused, 1);
  assert.equal(hub.stats().perView.fragile.subscribers, 3);

  // Same data, next tick: retried (not skipped), fails again, counted again.
  hub.tick();
  stats = hub.stats();
  assert.equal(stats.tickErrors, 2);
  assert.equal(stats.perView.fragile.failures, 2);

  setValues([5, 6, 7]); // the bad value is gone
  hub.tick();
  assert.deepEqual(scaled.document(), { bins: [10, 12, 14], total: 36 }, 'recovered on the next tick');
  assert.deepEqual(a.document(), { bins: [5, 6, 7], total: 18 });
  stats = hub.stats();
  assert.equal(stats.recoveries, 1);
  assert.equal(stats.failingGroups, 0);
  const joined = documentSink();
  hub.subscribe('fragile', { scale: 2 }, joined);
  assert.deepEqual(joined.document(), { bins: [10, 12, 14], total: 36 }, 'joiners are served again');
});

test('a failing group is retried even when its version does not move (injected faults recover on the next tick)', () => {
  const { resolve, faults } = fragileViews();
  let now = 1e12;
  const hub = new PublishHub(resolve, { publishIntervalMs: 0, now: () => now });
  const sink = documentSink();
  hub.subscribe('fragile', {}, sink);
  faults.failAlways = true;
  now += 60000; // time refresh due: computes and throws
  hub.tick();
  assert.equal(hub.stats().failingGroups, 1);
  faults.failAlways = false;
  now += 1; // no version change and no time refresh due
  hub.tick();
  assert.equal(hub.stats().failingGroups, 0);
  assert.equal(hub.stats().recoveries, 1);
  assert.deepEqual(sink.document(), { bins: [1, 2, 3], total: 6 });
});

test('snapshots of the wrong shape and throwing sinks do not break a group or other subscribers', () => {
  let value = { ok: 1 };
  let version = 0;
  const view = { normalizeParams: () => ({}), versionFor: () => version, snapshot: () => value };
  const hub = new PublishHub(() => view, { publishIntervalMs: 0 });
  const good = documentSink();
  const broken = { added() {}, changed() { throw new Error('socket gone'); }, removed() {} };
  hub.subscribe('v', {}, broken);
  hub.subscribe('v', {}, good);
  for (const bad of [undefined, null, 42, 'text', [1, 2], { big: 10n }]) {
    value = bad;
    version++;
    assert.doesNotThrow(() => hub.tick());
  }
  assert.deepEqual(good.document(), { ok: 1 }, 'no bad shape reached a subscriber');
  assert.equal(hub.stats().tickErrors, 6);
  value = { ok: 2 };
  version++;
  hub.tick();
  assert.deepEqual(good.document(), { ok: 2 }, 'the healthy sink got the change although the other one threw');
  assert.equal(hub.stats().sinkErrors, 1);
});

test('rows: a throw midway through the diff leaves the client rows consistent, then recovers', () => {
  let rows = [{ hash: 'a', n: 1 }, { hash: 'b', n: 1 }];
  let version = 0;
  const view = { normalizeParams: () => ({}), versionFor: () => version, snapshot: () => ({ packets: rows }) };
  const hub = new PublishHub(() => view, { publishIntervalMs: 0 });
  const sink = recordingSink();
  hub.subscribe('packets', {}, sink, 'rows', 'hash');
  const clientRows = () => {
    const live = new Map();
    for (const [kind, id, fields] of sink.events) {
      if (kind === 'added') live.set(id, { ...fields });
      if (kind === 'changed') Object.assign(live.get(id), fields);
      if (kind === 'removed') live.delete(id);
    }
    return live;
  };
  rows = [{ hash: 'c', n: 1 }, { hash: 'a', n: 2 }, { hash: 'b', n: 10n }];
  version++;
  hub.tick();
  assert.deepEqual([...clientRows().keys()].sort(), ['a', 'b'], 'nothing half-sent');
  assert.equal(sink.events.length, 2);
  rows = [{ hash: 'c', n: 1 }, { hash: 'a', n: 2 }];
  version++;
  hub.tick();
  assert.deepEqual(Object.fromEntries(clientRows()), { a: { hash: 'a', n: 2 }, c: { hash: 'c', n: 1 } });
  assert.equal(hub.stats().recoveries, 1);
});

test('hostile ticks: random faults on many groups never throw, and every client ends on the last good document', () => {
  const random = seededRandom(9);
  const { resolve, faults, setValues } = fragileViews();
  const hub = new PublishHub(resolve, { publishIntervalMs: 0 });
  const scales = [1, 2, 3, 0.5];
  const sinks = scales.map((scale) => ({ scale, sink: documentSink() }));
  for (const { scale, sink } of sinks) hub.subscribe('fragile', { scale }, sink);
  let failedTicks = 0;
  for (let round = 0; round < 300; round++) {
    const roll = random();
    if (roll < 0.2) setValues([random() * 10, 1e308, -1e308]);
    else if (roll < 0.6) setValues([random() * 10, random() * 100, NaN].slice(0, 2 + (random() < 0.3)));
    else setValues([random(), random()]);
    faults.failCalls = new Set(random() < 0.2 ? [faults.calls + 1 + Math.floor(random() * 4)] : []);
    const before = hub.stats().errors;
    assert.doesNotThrow(() => hub.tick());
    if (hub.stats().errors > before) failedTicks++;
  }
  assert.ok(failedTicks > 10, 'the generator did produce failures');
  setValues([1, 2]);
  faults.failCalls = new Set();
  hub.tick();
  for (const { scale, sink } of sinks) {
    assert.deepEqual(sink.document(), { bins: [scale, 2 * scale], total: 3 * scale }, `scale ${scale} recovered`);
  }
  assert.equal(hub.stats().failingGroups, 0);
});

test('subscribers of one group receive the same `shared` memo per message: one per tick for changes, one per snapshot for joiners', () => {
  const { engine, reports, resolve } = countingEngine();
  const hub = new PublishHub(resolve, { publishIntervalMs: 0 });
  const seen = [];
  const sink = () => ({ added: (id, fields, shared) => seen.push(['added', shared]), changed: (id, fields, shared) => seen.push(['changed', shared]), removed() {} });
  for (let i = 0; i < 3; i++) hub.subscribe('stats', {}, sink());
  const initial = seen.filter(([m]) => m === 'added').map(([, s]) => s);
  assert.equal(initial.length, 3);
  assert.ok(initial[0] instanceof Map);
  assert.ok(initial.every((s) => s === initial[0]), 'joiners before the next refresh share one initial memo');
  for (const report of reports.slice(0, 20)) engine.ingest(report);
  hub.tick();
  const changes = seen.filter(([m]) => m === 'changed').map(([, s]) => s);
  assert.equal(changes.length, 3);
  assert.ok(changes.every((s) => s === changes[0]), 'one memo per change for the whole group');
  assert.notEqual(changes[0], initial[0]);
  hub.subscribe('stats', {}, sink());
  const late = seen[seen.length - 1];
  assert.equal(late[0], 'added');
  assert.notEqual(late[1], initial[0], 'a joiner after a change gets a fresh memo (the document moved)');
  for (const report of reports.slice(20, 40)) engine.ingest(report);
  hub.tick();
  const next = seen.filter(([m]) => m === 'changed').slice(3).map(([, s]) => s);
  assert.equal(next.length, 4);
  assert.ok(next.every((s) => s === next[0]) && next[0] !== changes[0], 'a new tick, a new memo');
  assert.equal(hub.stats().initialSends, 4);
});

test('rows: every subscriber gets the same memo for a tick\'s added, changed and removed rows', () => {
  const { engine, reports, resolve } = countingEngine();
  const hub = new PublishHub(resolve, { publishIntervalMs: 0 });
  const memos = new Set();
  const sink = () => ({ added: (id, f, shared) => memos.add(shared), changed: (id, f, shared) => memos.add(shared), removed: (id, shared) => memos.add(shared) });
  for (const report of reports.slice(0, 30)) engine.ingest(report);
  hub.subscribe('packets', { limit: 5 }, sink(), 'rows');
  hub.subscribe('packets', { limit: 5 }, sink(), 'rows');
  assert.equal(memos.size, 1, 'both joiners share the initial memo');
  memos.clear();
  for (const report of reports.slice(30, 60)) engine.ingest(report);
  hub.tick();
  assert.equal(memos.size, 1, 'one memo for the whole tick, every row and subscriber');
});

test('rows: a sink with batch() gets a tick\'s messages as one array, the same rows in the same order as per-message sinks', () => {
  const { engine, reports, resolve } = countingEngine();
  const hub = new PublishHub(resolve, { publishIntervalMs: 0 });
  const batches = [];
  const batchSink = () => ({
    added: () => assert.fail('a batch sink gets no per-message call'),
    changed: () => assert.fail('a batch sink gets no per-message call'),
    removed: () => assert.fail('a batch sink gets no per-message call'),
    batch: (messages, shared) => batches.push({ messages, shared }),
  });
  const plain = recordingSink();
  for (const report of reports.slice(0, 30)) engine.ingest(report);
  hub.subscribe('packets', { limit: 5 }, plain, 'rows');
  hub.subscribe('packets', { limit: 5 }, batchSink(), 'rows');
  hub.subscribe('packets', { limit: 5 }, batchSink(), 'rows');
  assert.equal(batches.length, 2);
  assert.equal(batches[0].messages, batches[1].messages, 'joiners share one initial batch until the rows change');
  assert.equal(batches[0].shared, batches[1].shared);
  const asEvents = (messages) => messages.map((m) => (m.method === 'removed' ? ['removed', m.id] : [m.method, m.id, m.fields]));
  assert.deepEqual(asEvents(batches[0].messages), plain.events);
  for (let round = 0; round < 3; round++) {
    batches.length = 0;
    plain.events.length = 0;
    for (const report of reports.slice(30 + round * 20, 50 + round * 20)) engine.ingest(report);
    hub.tick();
    assert.equal(batches.length, 2, 'one call per batch sink per tick');
    assert.equal(batches[0].messages, batches[1].messages, 'the same array for every batch sink');
    assert.equal(batches[0].shared, batches[1].shared);
    assert.ok(plain.events.length > 0, 'rows moved');
    assert.deepEqual(asEvents(batches[0].messages), plain.events);
  }
  // A joiner after the change gets the current rows, not the first join's batch.
  const late = [];
  hub.subscribe('packets', { limit: 5 }, { batch: (messages) => late.push(messages) }, 'rows');
  assert.notEqual(late[0], batches[0].messages);
  assert.deepEqual(late[0].map((m) => m.method), ['added', 'added', 'added', 'added', 'added']);
});

test('rows: a batch sink that throws is counted once and the other sinks still get the tick', () => {
  const { engine, reports, resolve } = countingEngine();
  const hub = new PublishHub(resolve, { publishIntervalMs: 0 });
  for (const report of reports.slice(0, 30)) engine.ingest(report);
  let armed = false;
  hub.subscribe('packets', { limit: 5 }, { batch: () => { if (armed) throw new Error('boom'); } }, 'rows');
  const plain = recordingSink();
  hub.subscribe('packets', { limit: 5 }, plain, 'rows');
  armed = true;
  plain.events.length = 0;
  for (const report of reports.slice(30, 60)) engine.ingest(report);
  hub.tick();
  assert.equal(hub.stats().sinkErrors, 1);
  assert.ok(plain.events.length > 0);
});

test('rows: a tick sends exactly the fields that moved (nested fields, NaN, undefined, fresh copies of unchanged rows), and clients end with the view\'s rows', () => {
  const random = seededRandom(21);
  let nextId = 0;
  const makeRow = () => ({ hash: `h${++nextId}`, time: nextId, observers: ['a'], path: { hops: [1, 2] }, snr: -5, note: undefined });
  let rows = Array.from({ length: 12 }, makeRow);
  let version = 0;
  const view = { normalizeParams: () => ({}), versionFor: () => version, snapshot: () => ({ packets: rows }) };
  const hub = new PublishHub(() => view, { publishIntervalMs: 0 });
  const sink = recordingSink();
  hub.subscribe('packets', {}, sink, 'rows', 'hash');
  // The client as DDP applies it: a field changed to undefined is cleared.
  const client = new Map();
  let seen = 0;
  const catchUp = () => {
    for (; seen < sink.events.length; seen++) {
      const [kind, id, fields] = sink.events[seen];
      if (kind === 'added') client.set(id, JSON.parse(JSON.stringify(fields)));
      if (kind === 'removed') client.delete(id);
      if (kind !== 'changed') continue;
      const doc = client.get(id);
      for (const [field, value] of Object.entries(fields)) {
        if (value === undefined) delete doc[field];
        else doc[field] = JSON.parse(JSON.stringify(value));
      }
    }
  };
  const asJson = (list) => new Map(list.map((r) => [r.hash, r]).map(([id, r]) => [id, JSON.parse(JSON.stringify(r))]));
  let changedMessages = 0;
  for (let step = 0; step < 300; step++) {
    const previous = asJson(rows);
    const roll = random();
    // Views hand out new row objects (packets.js summarize): a changed row is a changed copy.
    const at = Math.floor(random() * rows.length);
    const row = rows[at] = { ...rows[at], observers: rows[at].observers.slice(), path: { hops: rows[at].path.hops.slice() } };
    if (roll < 0.2) row.observers.push(`o${step}`); // nested array
    else if (roll < 0.35) row.path.hops[0] = step; // nested object
    else if (roll < 0.45) row.snr = step % 7 === 0 ? NaN : -step; // NaN goes out as null
    else if (roll < 0.55) rows = [makeRow(), ...rows.slice(0, -1)];
    else if (roll < 0.65) rows = rows.map((r) => JSON.parse(JSON.stringify(r))); // same content, new objects
    else if (roll < 0.7) row.note = step % 2 ? `n${step}` : undefined;
    version++;
    const before = sink.events.length;
    hub.tick();
    const expected = asJson(rows);
    for (const [kind, id, fields] of sink.events.slice(before)) {
      if (kind !== 'changed') continue;
      changedMessages++;
      // Brute force: the fields whose JSON differs from the row's previous JSON.
      const moved = Object.keys(expected.get(id)).concat(Object.keys(previous.get(id))).filter((field, i, all) => all.indexOf(field) === i && JSON.stringify(expected.get(id)[field]) !== JSON.stringify(previous.get(id)[field]));
      assert.deepEqual(Object.keys(fields).sort(), moved.sort(), `row ${id} at step ${step}`);
    }
    catchUp();
    assert.deepEqual(client, expected, `the client holds the view's rows at step ${step}`);
  }
  assert.ok(changedMessages > 50, `the steps changed rows (${changedMessages} changes sent)`);
});
