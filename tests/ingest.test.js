'use strict';
// imports/ingest: the pipeline, MQTT sources against a real (embedded aedes) broker, the HTTP
// handler on a loopback server, and the simulator feed. Checks behaviour, never speed: every
// wait is "until this is true", with a deadline only so a broken build fails instead of hanging.
const test = require('node:test');
const assert = require('node:assert/strict');
const net = require('net');
const mqtt = require('mqtt');
const { createEngine } = require('../imports/core/engine');
const { createSimulator } = require('../imports/core/simulate');
const { parseObserverMessage } = require('../imports/core/observer-message');
const { createPipeline } = require('../imports/ingest/pipeline');
const { createMqttSources } = require('../imports/ingest/mqtt');
const { createSimulatorFeed } = require('../imports/ingest/simulator-feed');
const { seededRandom } = require('./helpers/mesh');

const DEADLINE_MS = 15000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Poll until predicate() is truthy; fail with `what` if the deadline passes first. */
async function waitFor(predicate, what) {
  const deadline = Date.now() + DEADLINE_MS;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** Simulator messages as observers publish them, plus the channels to decrypt them. */
function simulatorMessages(count, seed = 3) {
  const sim = createSimulator({ seed });
  return { messages: sim.messages(count), channels: sim.channels.map((c) => ({ name: c.name, key: c.key })) };
}

/** What the store holds after ingesting the same messages directly, for comparison. */
function directIngest(messages, channels) {
  const engine = createEngine({ channels });
  for (const message of messages) {
    const { report } = parseObserverMessage(message.topic, JSON.stringify(message.payload), Date.now());
    engine.ingest(report);
  }
  return engine.store.stats();
}

function observerOf(topic) {
  return topic.split('/')[2];
}

// --- embedded broker ------------------------------------------------------------------------

let AedesClass = null;
async function startBroker(port = 0, brokerOptions = {}) {
  if (!AedesClass) AedesClass = (await import('aedes')).Aedes; // aedes 1.x is an ES module
  const broker = await AedesClass.createBroker(brokerOptions);
  const sockets = new Set();
  const server = net.createServer(broker.handle);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return {
    port: server.address().port,
    url: `mqtt://127.0.0.1:${server.address().port}`,
    async close() {
      await new Promise((resolve) => broker.close(resolve));
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function publisher(url) {
  return mqtt.connectAsync(url, { reconnectPeriod: 0, clientId: `test-pub-${Math.random().toString(16).slice(2)}` });
}

async function publishAll(client, messages) {
  for (const message of messages) {
    const payload = typeof message.payload === 'string' || Buffer.isBuffer(message.payload) ? message.payload : JSON.stringify(message.payload);
    await client.publishAsync(message.topic, payload, { qos: 1 });
  }
}

function silentLog() {
  const lines = [];
  const push = (level) => (message) => lines.push(`${level}: ${message}`);
  return { lines, info: push('info'), warn: push('warn'), error: push('error') };
}

// --- pipeline -------------------------------------------------------------------------------

test('pipeline: simulator messages end up in the store exactly as with direct ingest', async () => {
  const { messages, channels } = simulatorMessages(1500);
  const engine = createEngine({ channels });
  const accepted = [];
  const pipeline = createPipeline({ engine, onIngest: (result, report, source) => accepted.push(source) });
  for (const message of messages) {
    assert.deepEqual(pipeline.submitMessage(message.topic, JSON.stringify(message.payload), 'sim'), { queued: true });
  }
  await pipeline.drain();
  const expected = directIngest(messages, channels);
  const actual = engine.store.stats();
  assert.equal(actual.transmissions, expected.transmissions);
  assert.equal(actual.observations, expected.observations);
  assert.equal(actual.duplicates, expected.duplicates);
  const stats = pipeline.stats();
  assert.equal(stats.accepted, 1500);
  assert.equal(stats.rejected, 0);
  assert.equal(stats.duplicates, expected.duplicates);
  assert.equal(stats.queue.completed, 1500);
  assert.equal(accepted.length, 1500);
  assert.ok(accepted.every((source) => source === 'sim'));
});

test('pipeline: ingestMessageNow ingests at once when nothing waits, else queues in order; same store as direct ingest', async () => {
  const { messages, channels } = simulatorMessages(1200, 31);
  const engine = createEngine({ channels });
  const pipeline = createPipeline({ engine });
  const payload = (message) => JSON.stringify(message.payload);
  // Idle pipeline: in the caller's turn, nothing queued.
  const first = pipeline.ingestMessageNow(messages[0].topic, payload(messages[0]), 'mqtt');
  assert.deepEqual(first, { ingested: true, isNew: true });
  assert.equal(engine.store.stats().observations, 1);
  // Something queued (an HTTP batch, say): later reports queue behind it, so order holds.
  assert.deepEqual(pipeline.submitMessage(messages[1].topic, payload(messages[1]), 'http'), { queued: true });
  assert.deepEqual(pipeline.ingestMessageNow(messages[2].topic, payload(messages[2]), 'mqtt'), { queued: true });
  assert.equal(engine.store.stats().observations, 1);
  await pipeline.drain();
  assert.equal(engine.store.stats().observations, 3);
  // Bad input is refused at once, counted like any other.
  assert.equal(pipeline.ingestMessageNow(messages[3].topic, '{"raw": "xyz1"}', 'mqtt').error.reason, 'not_hex');
  assert.equal(pipeline.ingestMessageNow(messages[3].topic, 'not json', 'mqtt').error.reason, 'bad_json');
  for (const message of messages.slice(3)) pipeline.ingestMessageNow(message.topic, payload(message), 'mqtt');
  await pipeline.drain();
  const expected = directIngest(messages, channels);
  const actual = engine.store.stats();
  assert.equal(actual.transmissions, expected.transmissions);
  assert.equal(actual.observations, expected.observations);
  assert.equal(actual.duplicates, expected.duplicates);
  assert.equal(pipeline.stats().accepted, messages.length);
  assert.deepEqual(pipeline.stats().rejectedByReason, { not_hex: 1, bad_json: 1 });
});

test('pipeline: ingestMessageNow with a persistence that returns promises queues until the write settles; drain waits for it', async () => {
  const { messages, channels } = simulatorMessages(50, 32);
  const engine = createEngine({ channels });
  const writes = [];
  const persistence = {
    recordIngest: () => new Promise((resolve) => writes.push(resolve)),
    recordDropped: () => {},
  };
  const pipeline = createPipeline({ engine, persistence });
  const payload = (message) => JSON.stringify(message.payload);
  assert.equal(pipeline.ingestMessageNow(messages[0].topic, payload(messages[0]), 'mqtt').ingested, true);
  assert.equal(writes.length, 1);
  // The first write is pending: the next report waits in the queue (back-pressure holds).
  assert.deepEqual(pipeline.ingestMessageNow(messages[1].topic, payload(messages[1]), 'mqtt'), { queued: true });
  let drained = false;
  const draining = pipeline.drain().then(() => { drained = true; });
  await sleep(20);
  assert.equal(drained, false, 'drain waits for the pending write');
  await waitFor(() => writes.length === 2, 'the queued report\'s write');
  await sleep(20);
  assert.equal(drained, false, 'drain waits for both pending writes');
  writes.splice(0).forEach((resolve) => resolve());
  await draining;
  assert.equal(engine.store.stats().observations, 2);
  // Everything settled: the next one is ingested at once again.
  assert.equal(pipeline.ingestMessageNow(messages[2].topic, payload(messages[2]), 'mqtt').ingested, true);
  writes.splice(0).forEach((resolve) => resolve());
  await pipeline.drain();
});

test('pipeline: each observer\'s reports reach the engine in submit order under concurrent batches', async () => {
  const { messages } = simulatorMessages(2000, 11);
  const random = seededRandom(5);
  const seen = new Map(); // observer -> raws in ingest order
  const persisted = new Map(); // observer -> raws in persistence order
  const engine = {
    ingest(report) {
      if (!seen.has(report.observerId)) seen.set(report.observerId, []);
      seen.get(report.observerId).push(report.raw);
      return { tx: {}, observation: {}, isNew: true };
    },
  };
  // Slow, randomly delayed writes keep several batches in flight at once.
  const persistence = {
    async recordIngest(result, report) {
      await sleep(Math.floor(random() * 3));
      if (!persisted.has(report.observerId)) persisted.set(report.observerId, []);
      persisted.get(report.observerId).push(report.raw);
    },
  };
  const pipeline = createPipeline({ engine, persistence, queue: { batchSize: 8, maxConcurrency: 6 } });
  const expected = new Map();
  for (const message of messages) {
    const observer = observerOf(message.topic);
    if (!expected.has(observer)) expected.set(observer, []);
    expected.get(observer).push(message.payload.raw);
    pipeline.submitMessage(message.topic, JSON.stringify(message.payload), 'sim');
    if (random() < 0.05) await sleep(0); // let batches start between submissions
  }
  await pipeline.drain();
  assert.ok(expected.size > 1, 'needs several observers');
  for (const [observer, raws] of expected) {
    assert.deepEqual(seen.get(observer), raws, `ingest order of ${observer}`);
  }
  assert.ok(pipeline.stats().queue.maxInFlightSeen > 1, 'batches really ran concurrently');
  assert.equal(pipeline.stats().accepted, 2000);
});

test('pipeline: rejected input is counted by reason, kept in a ring, handed to persistence, and never stops later reports', async () => {
  const { messages, channels } = simulatorMessages(50, 4);
  const engine = createEngine({ channels });
  const droppedRecords = [];
  const persistence = {
    recordIngest() {
      throw new Error('disk full'); // a failing persistence must not stop ingest
    },
    recordDropped(report, error) {
      droppedRecords.push({ report, error });
    },
  };
  const log = silentLog();
  const pipeline = createPipeline({ engine, persistence, log });
  const good = (i) => messages[i];
  const topic = good(0).topic;
  const results = [
    pipeline.submitMessage(topic, 'not json {', 'mqtt:a'),
    pipeline.submitMessage(topic, JSON.stringify({ SNR: 1 }), 'mqtt:a'),
    pipeline.submitMessage('meshcore/SFO/obs1/other', JSON.stringify(good(1).payload), 'mqtt:a'),
    pipeline.submitMessage(topic, JSON.stringify({ raw: 'ab'.repeat(5000) }), 'mqtt:a'),
    pipeline.submitMessage(topic, JSON.stringify({ raw: 'zz11' }), 'mqtt:a'), // decode error, after the queue
    pipeline.submitReport({ raw: good(2).payload.raw, observerId: '' }, 'replay'), // store error
    pipeline.submitReport(null, 'replay'),
  ];
  assert.deepEqual(results.map((r) => (r.error ? r.error.reason : 'queued')), ['bad_json', 'no_raw', 'bad_topic', 'too_large', 'queued', 'queued', 'bad_json']);
  for (let i = 3; i < 50; i++) pipeline.submitMessage(good(i).topic, JSON.stringify(good(i).payload), 'mqtt:a');
  await pipeline.drain();

  const stats = pipeline.stats();
  assert.deepEqual(stats.rejectedByReason, { bad_json: 2, no_raw: 1, bad_topic: 1, too_large: 1, not_hex: 1, bad_observer: 1 });
  assert.equal(stats.rejected, 7);
  assert.equal(stats.accepted, 47);
  assert.equal(stats.persistenceErrors, 47);
  assert.equal(stats.lastDropped.length, 7);
  assert.equal(stats.lastDropped[0].reason, 'bad_observer'); // newest first
  const oversize = stats.lastDropped.find((d) => d.reason === 'too_large');
  assert.equal(oversize.source, 'mqtt:a');
  assert.ok(oversize.raw.length <= 201, 'raw is truncated');
  assert.ok(Number.isFinite(oversize.time));
  assert.equal(droppedRecords.length, 7);
  assert.equal(droppedRecords.find((d) => d.error.reason === 'not_hex').report.raw, 'zz11');
  assert.ok(log.lines.some((line) => /disk full/.test(line)));
  assert.equal(engine.store.stats().observations, 47);
});

test('pipeline: the ring keeps only the last 100 drops', async () => {
  const pipeline = createPipeline({ engine: createEngine() });
  for (let i = 0; i < 250; i++) pipeline.submitMessage(`bad/${i}`, '{}', 'test');
  const stats = pipeline.stats();
  assert.equal(stats.rejectedByReason.bad_topic, 250);
  assert.equal(stats.lastDropped.length, 100);
  assert.match(stats.lastDropped[0].message, /bad\/249/);
  assert.match(stats.lastDropped[99].message, /bad\/150/);
});

test('pipeline: a full queue counts queue_full, a closed pipeline refuses, drain waits for everything', async () => {
  const { messages, channels } = simulatorMessages(20, 6);
  const engine = createEngine({ channels });
  const pipeline = createPipeline({ engine, queue: { maxLength: 5 } });
  // Tasks pushed in one tick wait for the next batch: the sixth waiting one overflows.
  const results = messages.map((m) => pipeline.submitMessage(m.topic, JSON.stringify(m.payload), 'sim'));
  assert.equal(results.filter((r) => r.queued).length, 5);
  assert.equal(results.filter((r) => r.error && r.error.reason === 'queue_full').length, 15);
  await pipeline.drain();
  assert.equal(pipeline.stats().accepted, 5);
  assert.equal(pipeline.stats().rejectedByReason.queue_full, 15);
  assert.equal(engine.store.stats().observations, 5);

  await pipeline.close();
  const refused = pipeline.submitMessage(messages[0].topic, JSON.stringify(messages[0].payload), 'sim');
  assert.equal(refused.error.reason, 'pipeline_closed');
});

test('pipeline: ingest rate over the last 10 s and 60 s follows the clock', async () => {
  let clock = 1_000_000 - 100_000; // created well before, so both windows are full
  const engine = { ingest: () => ({ tx: {}, observation: {}, isNew: true }) };
  const pipeline = createPipeline({ engine, now: () => clock });
  clock = 1_000_000;
  const report = { raw: '00', observerId: 'a' };
  for (let second = 0; second < 60; second++) {
    for (let i = 0; i < (second < 50 ? 1 : 10); i++) pipeline.submitReport(report, 't');
    await pipeline.drain();
    clock += 1000;
  }
  clock -= 1; // still inside second 59
  const { ratePerSecond } = pipeline.stats();
  assert.equal(ratePerSecond.last10s, 10); // seconds 50..59: 10 per second
  assert.equal(ratePerSecond.last60s, (50 * 1 + 10 * 10) / 60);
});

test('pipeline: submitBatch reports per-item outcomes with indexes', async () => {
  const { messages, channels } = simulatorMessages(30, 8);
  const other = messages.find((m) => m.payload.hash !== messages[0].payload.hash); // another transmission
  const pipeline = createPipeline({ engine: createEngine({ channels }) });
  const bodies = [
    { ...messages[0].payload, observer: 'obsA', region: 'SFO' },
    { observer: 'obsA' },
    { ...other.payload, observer: 'obsB' },
    { raw: '0', observer: 'obsB' },
    { ...messages[0].payload, observer: 'obsB' },
  ];
  const outcome = await pipeline.submitBatch(bodies, 'http');
  assert.equal(outcome.accepted, 3);
  assert.equal(outcome.duplicates, 1);
  assert.equal(outcome.rejected, 2);
  assert.deepEqual(outcome.errors.map((e) => [e.index, e.reason]), [[1, 'no_raw'], [3, 'not_hex']]);
});

// --- MQTT -----------------------------------------------------------------------------------

test('mqtt: valid reports published to a real broker reach the store; status updates the observer map', async (t) => {
  const broker = await startBroker();
  const { messages, channels } = simulatorMessages(300, 21);
  const engine = createEngine({ channels });
  const pipeline = createPipeline({ engine });
  const statuses = [];
  const sources = createMqttSources({ brokers: [{ url: broker.url, clientId: 'meshpulse-test-1' }], pipeline, onStatus: (s) => statuses.push(s) });
  const pub = await publisher(broker.url);
  t.after(async () => {
    await pub.endAsync(true);
    await sources.stop();
    await broker.close();
  });
  await waitFor(() => sources.stats()[0].subscribed, 'subscription');

  await publishAll(pub, messages);
  const observer = observerOf(messages[0].topic);
  await publishAll(pub, [
    { topic: `meshcore/SFO/${observer}/status`, payload: { status: 'online', origin: 'Obs A', firmware_version: '1.9' } },
    { topic: 'meshcore/SFO/OBSZ/status', payload: 'offline' },
  ]);
  await waitFor(() => pipeline.stats().accepted === 300 && sources.stats()[0].statusMessages === 2, 'all 300 reports and 2 statuses');
  await pipeline.drain();

  const expected = directIngest(messages, channels);
  assert.equal(engine.store.stats().transmissions, expected.transmissions);
  assert.equal(engine.store.stats().observations, 300);
  const stats = sources.stats()[0];
  assert.equal(stats.connected, true);
  assert.equal(stats.packets, 300);
  assert.equal(stats.url, broker.url);
  const byId = new Map(sources.observerStatus().map((s) => [s.observerId, s]));
  assert.equal(byId.get(observer).online, true);
  assert.equal(byId.get(observer).details.firmware_version, '1.9');
  assert.equal(byId.get('OBSZ').status, 'offline');
  assert.equal(byId.get('OBSZ').online, false);
  assert.equal(statuses.length, 2);
});

test('mqtt: malformed payloads are counted by reason and later good ones still arrive', async (t) => {
  const broker = await startBroker();
  const { messages, channels } = simulatorMessages(20, 22);
  const engine = createEngine({ channels });
  const pipeline = createPipeline({ engine });
  // meshcore/# so a wrong topic reaches us too.
  const sources = createMqttSources({ brokers: [{ url: broker.url, topics: ['meshcore/#'] }], pipeline });
  const pub = await publisher(broker.url);
  t.after(async () => {
    await pub.endAsync(true);
    await sources.stop();
    await broker.close();
  });
  await waitFor(() => sources.stats()[0].subscribed, 'subscription');

  const topic = messages[0].topic;
  await publishAll(pub, [
    { topic, payload: 'this is not json' },
    { topic, payload: { SNR: 3, RSSI: -90 } },
    { topic, payload: { raw: 'xyz123' } },
    { topic, payload: { raw: 'ab'.repeat(4500) } },
    { topic: `meshcore/SFO/${observerOf(topic)}/telemetry`, payload: messages[1].payload },
    ...messages,
  ]);
  await waitFor(() => pipeline.stats().accepted === 20, 'the good reports after the bad ones');
  await pipeline.drain();
  assert.deepEqual(pipeline.stats().rejectedByReason, { bad_json: 1, no_raw: 1, not_hex: 1, too_large: 1, bad_topic: 1 });
  assert.equal(engine.store.stats().observations, 20);
  // The decode error too: with nothing queued, each message is ingested as it arrives (ingestMessageNow).
  assert.equal(sources.stats()[0].rejected, 5);
  assert.ok(pipeline.stats().lastDropped.every((d) => d.source === `mqtt:${broker.url}`));
});

test('mqtt: the region filter keeps only the listed regions', async (t) => {
  const broker = await startBroker();
  const { messages, channels } = simulatorMessages(200, 23);
  const regionOf = (m) => m.topic.split('/')[1];
  const sjc = messages.filter((m) => regionOf(m) === 'SJC');
  const sfo = messages.filter((m) => regionOf(m) === 'SFO');
  assert.ok(sjc.length > 0 && sfo.length > 0, 'simulator spans both regions');
  const engine = createEngine({ channels });
  const pipeline = createPipeline({ engine });
  const sources = createMqttSources({ brokers: [{ url: broker.url, regions: ['sjc'] }], pipeline });
  const pub = await publisher(broker.url);
  t.after(async () => {
    await pub.endAsync(true);
    await sources.stop();
    await broker.close();
  });
  await waitFor(() => sources.stats()[0].subscribed, 'subscription');
  await publishAll(pub, messages);
  await waitFor(() => sources.stats()[0].messages === messages.length, 'every message delivered');
  await pipeline.drain();
  assert.equal(pipeline.stats().accepted, sjc.length);
  assert.equal(sources.stats()[0].filtered, sfo.length);
  for (const observer of engine.store.observers.values()) assert.equal(observer.region, 'SJC');
});

test('mqtt: reconnects with backoff after the broker restarts, and later messages arrive', async (t) => {
  let broker = await startBroker();
  const port = broker.port;
  const { messages, channels } = simulatorMessages(100, 24);
  const engine = createEngine({ channels });
  const pipeline = createPipeline({ engine });
  const sources = createMqttSources({ brokers: [{ url: broker.url }], pipeline, reconnect: { minMs: 20, maxMs: 200 } });
  let pub = await publisher(broker.url);
  t.after(async () => {
    await pub.endAsync(true);
    await sources.stop();
    await broker.close();
  });
  await waitFor(() => sources.stats()[0].subscribed, 'first subscription');
  await publishAll(pub, messages.slice(0, 50));
  await waitFor(() => pipeline.stats().accepted === 50, 'first half');

  await pub.endAsync(true);
  await broker.close();
  await waitFor(() => !sources.stats()[0].connected, 'client to notice the broker is gone');
  // Let at least one reconnect attempt fail against the closed port.
  await waitFor(() => sources.stats()[0].reconnectAttempts >= 1, 'a failed reconnect attempt');
  broker = await startBroker(port);
  await waitFor(() => sources.stats()[0].subscribed, 'resubscription on the new broker');
  pub = await publisher(broker.url);
  await publishAll(pub, messages.slice(50));
  await waitFor(() => pipeline.stats().accepted === 100, 'second half');
  await pipeline.drain();

  const stats = sources.stats()[0];
  assert.equal(stats.reconnects, 1);
  assert.ok(stats.reconnectAttempts >= 2);
  assert.ok(stats.lastError && /ECONNREFUSED/.test(stats.lastError.message + stats.lastError.code));
  assert.equal(engine.store.stats().observations, 100);
});

test('mqtt: stop() ends the clients and schedules no reconnect', async () => {
  const broker = await startBroker();
  const pipeline = createPipeline({ engine: createEngine() });
  const sources = createMqttSources({ brokers: [{ url: broker.url }, { url: broker.url, username: 'u', password: 'secret' }], pipeline, reconnect: { minMs: 10, maxMs: 20 } });
  await waitFor(() => sources.stats().every((s) => s.subscribed), 'both subscriptions');
  await sources.stop();
  await broker.close();
  assert.ok(sources.stats().every((s) => !s.connected && s.nextReconnectMs === null));
  assert.ok(sources.stats().every((s) => !/secret/.test(s.url)));
  assert.ok(sources.clients().every((client) => client.disconnected || client.disconnecting));
});

test('mqtt: refused credentials show as lastError and keep the client disconnected, others unaffected', async (t) => {
  const broker = await startBroker(0, {
    authenticate: (client, username, password, callback) => callback(null, username === 'meshpulse' && String(password) === 'right'),
  });
  const pipeline = createPipeline({ engine: createEngine() });
  const sources = createMqttSources({
    brokers: [{ url: broker.url, username: 'meshpulse', password: 'right' }, { url: broker.url, username: 'meshpulse', password: 'wrong' }],
    pipeline,
    reconnect: { minMs: 20, maxMs: 100 },
  });
  t.after(async () => {
    await sources.stop();
    await broker.close();
  });
  await waitFor(() => sources.stats()[0].subscribed, 'the good client');
  await waitFor(() => sources.stats()[1].lastError !== null, 'the refused client');
  const refused = sources.stats()[1];
  assert.equal(refused.connected, false);
  assert.match(refused.lastError.message, /Connection refused/);
  assert.ok(!/wrong/.test(JSON.stringify(sources.stats())), 'passwords never appear in stats');
});

// --- simulator feed -------------------------------------------------------------------------

test('simulator feed: messages go through submitMessage into the store', async () => {
  let pipeline = null;
  const submitted = [];
  const spy = {
    submitMessage(topic, payload, source) {
      submitted.push(typeof payload);
      return pipeline.submitMessage(topic, payload, source);
    },
  };
  const feed = createSimulatorFeed({ pipeline: spy, simulator: { seed: 9 }, ratePerSecond: Infinity, count: 400 });
  const engine = createEngine({ channels: feed.channels });
  pipeline = createPipeline({ engine });
  feed.start();
  assert.equal(feed.stats().running, true);
  await waitFor(() => !feed.stats().running, 'the feed to emit its 400 messages');
  await pipeline.drain();
  assert.equal(feed.stats().emitted, 400);
  assert.ok(submitted.every((type) => type === 'string'), 'payloads are serialised JSON, as over MQTT');
  assert.equal(pipeline.stats().accepted, 400);
  assert.equal(pipeline.stats().rejected, 0);
  assert.equal(engine.store.stats().observations, 400);
  // Group texts decrypt with the feed's channels.
  const groupTexts = engine.store.transmissions().filter((tx) => tx.payloadType === 5);
  assert.ok(groupTexts.length > 0);
  assert.ok(groupTexts.every((tx) => tx.message && typeof tx.message.text === 'string'));
});

test('simulator feed: stop() stops a running feed', async () => {
  const pipeline = createPipeline({ engine: createEngine() });
  const feed = createSimulatorFeed({ pipeline, ratePerSecond: 500 });
  feed.start();
  feed.start(); // no-op while running
  await waitFor(() => feed.stats().emitted > 0, 'the first messages');
  feed.stop();
  const emitted = feed.stats().emitted;
  assert.equal(feed.stats().running, false);
  assert.equal(feed.stats().runs, 1);
  await sleep(50);
  assert.equal(feed.stats().emitted, emitted);
  await pipeline.drain();
});
