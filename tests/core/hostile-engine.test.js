'use strict';
/**
 * Hostile input through the whole engine (issue "Hostile input"): every class of the hostile
 * generators (imports/core/simulate/hostile.js) driven through MQTT parsing, the store and
 * every view, and the publish hub, interleaved with good traffic. Asserts: nothing throws, no
 * view fails or shows a non-finite number, every refused report is counted with its reason,
 * every report labelled valid is accepted, and no good report is lost.
 *
 * Sized for CI (MESHPULSE_HOSTILE_PER_CLASS reports per class, 1,500 by default); a one-off
 * `MESHPULSE_HOSTILE_PER_CLASS=100000 node --test tests/core/hostile-engine.test.js` runs the
 * issue's 100k per class.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createEngine } = require('../../imports/core/engine');
const { hostileStream, toMqttMessage, HOSTILE_CLASSES } = require('../../imports/core/simulate/hostile');
const { parseObserverMessage } = require('../../imports/core/observer-message');
const { PublishHub } = require('../../imports/core/publish-hub');
const { simulatedReports } = require('../helpers/mesh');

const PER_CLASS = Number(process.env.MESHPULSE_HOSTILE_PER_CLASS) || 1500;

/** Every number in a JSON-like value is finite (a NaN or Infinity would reach a browser). */
function assertFinite(value, where) {
  if (typeof value === 'number') {
    assert.ok(Number.isFinite(value), `${where} is ${value}`);
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => assertFinite(item, `${where}[${i}]`));
    return;
  }
  if (value && typeof value === 'object') for (const [key, item] of Object.entries(value)) assertFinite(item, `${where}.${key}`);
}

/** Params that reach into the data: a node, a channel, the busiest subpath. */
function paramsFor(name, store) {
  const node = store.nodes.keys().next().value;
  const channel = store.byChannel.keys().next().value;
  switch (name) {
    case 'node': return node ? [{ pubKey: node }] : [];
    case 'channelMessages': return channel ? [{ channel }] : [];
    case 'subpaths': {
      const top = store.view('subpaths') ? store.view('subpaths').snapshot({}).subpaths[0] : null;
      return top ? [{}, { subpath: top.subpath }] : [{}];
    }
    default: return [{}];
  }
}

function snapshotEveryView(engine, now) {
  for (const [name] of engine.views) {
    for (const params of paramsFor(name, engine.store)) {
      const snapshot = engine.snapshot(name, params, now);
      assertFinite(JSON.parse(JSON.stringify(snapshot)), `${name}(${JSON.stringify(params)})`);
    }
  }
}

for (const className of HOSTILE_CLASSES) {
  test(`hostile ${className}: no throw, no failed view, every refusal counted, nothing good lost`, () => {
    const engine = createEngine({ store: { memoryBudgetBytes: 8 * 1024 * 1024 } });
    // The same reports as they arrive over MQTT (topic + JSON): parsing turns some fields into
    // strings, so only "no throw, counted with a reason" is asserted on that path.
    const overMqtt = createEngine({ store: { memoryBudgetBytes: 8 * 1024 * 1024 } });
    let mqttRefused = 0;
    const { reports: good } = simulatedReports({ seed: 41, count: 300 });
    let goodAccepted = 0;
    let validRefused = [];
    let invalidAccepted = [];
    let refused = 0;
    let i = 0;
    let now = 0;
    for (const report of hostileStream(className, { seed: 3, count: PER_CLASS })) {
      const message = toMqttMessage(report);
      const parsed = parseObserverMessage(message.topic, message.payload, report.time);
      const viaMqtt = parsed.error ? parsed : overMqtt.ingest(parsed.report);
      if (viaMqtt.error) {
        mqttRefused++;
        assert.match(viaMqtt.error.reason, /^[a-z_]+$/, 'a typed reason over MQTT');
      }
      const result = engine.ingest(report);
      if (result.error) {
        refused++;
        assert.match(result.error.reason, /^[a-z_]+$/, 'a typed reason');
        assert.ok(result.error.message.length > 0, 'a message');
        if (report.expect === 'valid') validRefused.push(`${report.case}: ${result.error.reason}`);
      } else if (report.expect === 'invalid') {
        invalidAccepted.push(report.case);
      }
      if (typeof report.time === 'number' && Number.isFinite(report.time)) now = Math.max(now, report.time);
      // Good traffic interleaved: none of it may be refused or lost.
      if (i % 10 === 0 && i / 10 < good.length) {
        const { report: goodReport } = { report: good[i / 10] };
        if (!engine.ingest(goodReport).error) goodAccepted++;
      }
      if (i % 500 === 0) {
        snapshotEveryView(engine, now + 1000);
        snapshotEveryView(overMqtt, now + 1000);
      }
      i++;
    }
    snapshotEveryView(engine, now + 1000);
    snapshotEveryView(overMqtt, now + 1000);
    assert.ok(mqttRefused >= overMqtt.store.stats().rejected);
    assert.deepEqual(validRefused.slice(0, 5), [], 'no report labelled valid is refused');
    assert.deepEqual(invalidAccepted.slice(0, 5), [], 'no report labelled invalid is accepted');
    assert.equal(goodAccepted, Math.min(good.length, Math.ceil(PER_CLASS / 10)), 'every good report accepted');
    const stats = engine.store.stats();
    const counted = Object.values(stats.rejectReasons).reduce((a, b) => a + b, 0);
    assert.equal(stats.rejected, counted, 'every store refusal has a reason');
    assert.equal(refused, stats.rejected, 'every refusal is the store\'s, counted');
    assert.ok(stats.estimatedBytes <= stats.memoryBudgetBytes, 'the budget holds');
  });
}

test('hostile streams through the publish hub: every view subscribed, no group breaks', () => {
  const engine = createEngine({ store: { memoryBudgetBytes: 8 * 1024 * 1024 } });
  const resolve = (name) => engine.views.get(name);
  let now = Date.UTC(2025, 5, 1, 12);
  const hub = new PublishHub(resolve, { publishIntervalMs: 0, now: () => now });
  const errors = [];
  const documents = new Map();
  const sink = (name) => ({
    added: (id, fields) => documents.set(name, fields),
    changed: (id, fields) => documents.set(name, { ...documents.get(name), ...fields }),
    removed: () => {},
    error: (err) => errors.push(`${name}: ${err.message}`),
  });
  // Seed some good data so that node/channel params exist.
  const { reports } = simulatedReports({ seed: 42, count: 400 });
  for (const report of reports) engine.ingest(report);
  now = engine.store.lastTime;
  for (const [name] of engine.views) {
    for (const params of paramsFor(name, engine.store)) hub.subscribe(name, params, sink(name));
  }
  for (const className of HOSTILE_CLASSES) {
    let n = 0;
    for (const report of hostileStream(className, { seed: 5, count: Math.min(PER_CLASS, 400) })) {
      engine.ingest(report);
      if (++n % 50 === 0) {
        now += 1000;
        hub.tick();
      }
    }
  }
  hub.tick();
  assert.deepEqual(errors, [], 'no subscriber got an error');
  const stats = hub.stats();
  assert.equal(stats.tickErrors || 0, 0, 'no tick failed');
  for (const [name, document] of documents) assertFinite(JSON.parse(JSON.stringify(document)), name);
  hub.close();
});

test('advert rules: a forged advert is refused, a far-future one does not pin the node, a newer genuine one wins', () => {
  const { createSimulator } = require('../../imports/core/simulate');
  const sim = createSimulator({ seed: 9 });
  const adverts = [];
  for (const message of sim.messages(3000)) {
    const raw = message.payload.raw;
    if (((parseInt(raw.slice(0, 2), 16) >> 2) & 0x0f) === 4) adverts.push({ message, raw });
  }
  const engine = createEngine();
  const first = adverts[0];
  const report = (raw, time) => ({ raw, observerId: 'obs', time });
  const time = Date.parse(first.message.payload.timestamp);
  assert.ok(!engine.ingest(report(first.raw, time)).error, 'a genuine advert is accepted');
  const pubKey = engine.store.fifo.last().advert.pubKey;
  const node = engine.store.nodes.get(pubKey);
  const goodName = node.name;
  // Flip one byte of the name: the signature no longer covers it.
  const forged = `${first.raw.slice(0, -2)}${first.raw.slice(-2) === '41' ? '42' : '41'}`;
  const refused = engine.ingest(report(forged, time + 1000));
  assert.equal(refused.error && refused.error.reason, 'bad_signature');
  assert.equal(engine.store.nodes.get(pubKey).name, goodName, 'a forged advert changes nothing');
  assert.equal(engine.store.stats().rejectReasons.bad_signature, 1, 'and is counted');
  // Later genuine adverts of the same node (the simulator re-adverts) update it.
  const later = adverts.slice(1).find((advert) => advert.raw.slice(2 + 2 * 1, 66 + 2) && engine.store.decodeOptions && advert.raw.includes(pubKey));
  if (later) {
    assert.ok(!engine.ingest(report(later.raw, Date.parse(later.message.payload.timestamp))).error);
    assert.ok(engine.store.nodes.get(pubKey).lastAdvert > 0);
  }
});

test('reload-shaped input: documents a store refuses are counted, the rest restore', () => {
  const engine = createEngine();
  const store = engine.store;
  assert.equal(store.restoreNode({ name: 'no key' }), null, 'a node document without a public key is refused');
  assert.equal(store.restoreNode({ _id: 'zz', name: 'bad key' }), null);
  assert.equal(store.restoreObserver({ _id: 'x'.repeat(500) }), null, 'an over-long observer id is refused');
  assert.equal(store.restoreObserver({ _id: 'ok', name: { $gt: '' } }), null, 'an object where a name belongs is refused');
  const node = store.restoreNode({ _id: 'ab'.repeat(32), name: 'Peak', lat: 1e308, lon: 2, firstSeen: Date.UTC(2026, 0, 1) });
  assert.ok(node, 'a good node document restores');
  assert.equal(node.lat, null, 'an impossible position is dropped, not kept');
  assert.ok(store.restoreObserver({ _id: 'obs1', name: 'Observer 1', region: 'SEA', firstSeen: Date.UTC(2026, 0, 1) }));
  snapshotEveryView(engine, Date.UTC(2026, 0, 2));
});
