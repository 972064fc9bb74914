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

function countingEngine() {
  const { reports, channels } = simulatedReports({ seed: 3, count: 400 });
  const engine = createEngine({ channels });
  let snapshots = 0;
  const resolve = (name) => {
    const view = engine.views.get(name);
    return view && { ...view, normalizeParams: view.normalizeParams, versionFor: (p) => view.versionFor(p), snapshot: (p, now) => { snapshots++; return view.snapshot(p, now); } };
  };
  return { engine, reports, resolve, snapshots: () => snapshots };
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
