'use strict';
// imports/ingest/mqtt.js against a real mosquitto (Debian package), started here on a free port
// with a temp config: bursts at QoS 0 and 1, the persistent session through broker restarts,
// what a clean session loses, $SYS drop counters, password_file auth and TLS. The embedded
// aedes tests are in tests/ingest.test.js. Checks behaviour, never speed: every wait is "until
// this is true", with a deadline only so a broken build fails instead of hanging.
// Skipped, with the reason, when mosquitto is not installed.
const test = require('node:test');
const assert = require('node:assert/strict');
const mqtt = require('mqtt');
const { createEngine } = require('../imports/core/engine');
const { createSimulator } = require('../imports/core/simulate');
const { createPipeline } = require('../imports/ingest/pipeline');
const { createMqttSources } = require('../imports/ingest/mqtt');
const { startMosquitto, mosquittoMissing } = require('./helpers/mosquitto');
const { buildHealth } = require('../imports/core/health');
const { createGracefulStop, serverStopSteps } = require('../imports/core/graceful-stop');

const DEADLINE_MS = 20000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// What README "Ingest" asks of a mosquitto that must lose nothing (besides persistence for restarts).
const DOCUMENTED = { maxQueuedMessages: 0, maxInflightMessages: 1000 };

async function waitFor(predicate, what) {
  const deadline = Date.now() + DEADLINE_MS;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

function simulatorMessages(count, seed) {
  const sim = createSimulator({ seed });
  return { messages: sim.messages(count).map((m) => ({ topic: m.topic, payload: JSON.stringify(m.payload) })), channels: sim.channels.map((c) => ({ name: c.name, key: c.key })) };
}

function silentLog() {
  const lines = [];
  const push = (level) => (...args) => lines.push(`${level}: ${args.join(' ')}`);
  return { lines, info: push('info'), warn: push('warn'), error: push('error') };
}

/** A publisher that reconnects by itself (mqtt.js keeps unacknowledged QoS 1 messages and resends them). */
function publisher(url, options = {}) {
  return mqtt.connectAsync(url, { clientId: `test-pub-${Math.random().toString(16).slice(2)}`, reconnectPeriod: 100, ...options });
}

/**
 * Publish everything without waiting between messages (a burst). Resolves once every QoS 1
 * message is acknowledged by the broker; one that fails (the connection closed under it) is
 * published again, as a real observer would: QoS 1 is at-least-once, the engine drops repeats.
 */
async function burst(client, messages, qos) {
  if (qos === 0) {
    messages.forEach((m, index) => (index < messages.length - 1 ? client.publish(m.topic, m.payload, { qos }) : null));
    const last = messages[messages.length - 1];
    await client.publishAsync(last.topic, last.payload, { qos });
    return;
  }
  let pending = messages;
  const deadline = Date.now() + DEADLINE_MS;
  while (pending.length > 0) {
    if (Date.now() > deadline) throw new Error(`${pending.length} messages could not be published`);
    const failed = [];
    await Promise.all(pending.map((m) => new Promise((resolve) => client.publish(m.topic, m.payload, { qos }, (err) => {
      if (err) failed.push(m);
      resolve();
    }))));
    pending = failed;
    if (failed.length > 0) await waitFor(() => client.connected, 'the publisher to reconnect');
  }
}

/** One observer report's identity: observer, its own timestamp, the packet. */
function reportKeyOf(message) {
  const payload = JSON.parse(message.payload);
  return `${message.topic.split('/')[2]}|${Date.parse(payload.timestamp)}|${payload.raw}`;
}

/** Engine + pipeline + MQTT sources for one broker entry; `distinct` holds every report key ingested. */
function meshpulse(broker, messagesFor = null, extra = {}, pipelineOptions = {}) {
  const engine = createEngine({ channels: messagesFor ? messagesFor.channels : [] });
  const distinct = new Set();
  const pipeline = createPipeline({ engine, onIngest: (result, report) => distinct.add(`${report.observerId}|${report.observerTime}|${report.raw}`), ...pipelineOptions });
  const log = silentLog();
  const sources = createMqttSources({ brokers: [broker], pipeline, log, reconnect: { minMs: 50, maxMs: 300 }, ...extra });
  return { engine, pipeline, sources, log, distinct, stats: () => sources.stats()[0] };
}

let missing = null;
test.before(async () => {
  missing = await mosquittoMissing({ tls: true, users: true });
  if (missing) console.log(`# skipping the mosquitto tests: ${missing}`);
});

/** test() that skips with the reason when mosquitto can't run here. */
function brokerTest(name, body) {
  test(name, async (t) => {
    if (missing) {
      t.skip(missing);
      return;
    }
    await body(t);
  });
}

for (const qos of [0, 1]) {
  brokerTest(`mosquitto: a 10,000-message burst at QoS ${qos} arrives whole with the documented broker settings`, async (t) => {
    const broker = await startMosquitto(DOCUMENTED);
    const traffic = simulatorMessages(10000, 40 + qos);
    const app = meshpulse({ url: broker.url, qos }, traffic);
    const pub = await publisher(broker.url);
    t.after(async () => {
      await pub.endAsync(true);
      await app.sources.stop();
      await broker.stop();
    });
    await waitFor(() => app.stats().subscribed, 'subscription');
    await burst(pub, traffic.messages, qos);
    await waitFor(() => app.stats().packets === traffic.messages.length, `all ${traffic.messages.length} messages`);
    await app.pipeline.drain();
    assert.equal(app.pipeline.stats().accepted, traffic.messages.length);
    assert.equal(app.pipeline.stats().rejected, 0);
    assert.equal(app.engine.store.stats().observations, traffic.messages.length);
    assert.equal(app.stats().qos, qos);
    assert.equal(app.stats().session, 'clean');
  });
}

brokerTest('mosquitto: a backlog longer than the keep-alive does not close the connection (clean session, QoS 0, nothing lost)', async (t) => {
  const broker = await startMosquitto({ ...DOCUMENTED, extra: ['log_type notice'] });
  const traffic = simulatorMessages(2000, 46);
  // Writes that take 50 ms per 20 reports hold MeshPulse to ~400 reports/s without blocking its
  // event loop (the source waits for the queue to drain every 128 messages): the broker holds
  // seconds of messages for us, more than the 2 s keep-alive, so a PINGRESP waits behind them.
  const engine = createEngine({ channels: traffic.channels });
  const persistence = { recordIngest: () => sleep(50), recordDropped: () => {} };
  const pipeline = createPipeline({ engine, persistence, queue: { batchSize: 20, maxConcurrency: 1 } });
  const sources = createMqttSources({ brokers: [{ url: broker.url, qos: 0, keepaliveSeconds: 2, highWater: 20 }], pipeline, log: silentLog(), reconnect: { minMs: 50, maxMs: 300 } });
  const pub = await publisher(broker.url);
  t.after(async () => {
    await pub.endAsync(true);
    await sources.stop();
    await broker.stop();
  });
  await waitFor(() => sources.stats()[0].subscribed, 'subscription');
  await burst(pub, traffic.messages, 0);
  await waitFor(() => pipeline.stats().accepted === traffic.messages.length || sources.stats()[0].reconnects > 0, 'every message, or a reconnect');
  await pipeline.drain();
  assert.equal(sources.stats()[0].reconnects, 0, `the connection stayed up through the backlog (${JSON.stringify(sources.stats()[0].lastError)}; broker: ${broker.stderr().slice(-1500)})`);
  assert.equal(pipeline.stats().accepted, traffic.messages.length, 'nothing lost');
});

brokerTest('mosquitto: with its default queue limit a stalled subscriber loses messages, and $SYS reports the drops', async (t) => {
  const broker = await startMosquitto({ maxQueuedMessages: 50, maxInflightMessages: 10 });
  const app = meshpulse({ url: broker.url });
  // A QoS 1 subscriber that stops acknowledging: mosquitto keeps 10 in flight + 50 queued, drops the rest.
  const stalled = await mqtt.connectAsync(broker.url, { clientId: 'stalled', reconnectPeriod: 0 });
  await stalled.subscribeAsync('meshcore/#', { qos: 1 });
  stalled.handleMessage = () => {}; // never calls back: no PUBACK, nothing more processed
  const pub = await publisher(broker.url);
  t.after(async () => {
    await pub.endAsync(true);
    await stalled.endAsync(true);
    await app.sources.stop();
    await broker.stop();
  });
  await waitFor(() => app.stats().subscribed && app.stats().broker.sys === 'available', 'subscription and $SYS');
  const { messages } = simulatorMessages(500, 43);
  await burst(pub, messages, 1);
  // sys_interval is 1 s: wait for the next $SYS publication to carry the drops.
  await waitFor(() => app.stats().broker.droppedSinceStart > 0, 'broker-side drops in $SYS');
  const stats = app.stats();
  assert.match(stats.broker.version, /mosquitto/);
  assert.ok(stats.broker.droppedTotal >= stats.broker.droppedSinceStart);
  await waitFor(() => app.stats().packets === messages.length, 'MeshPulse itself still gets everything');
  // The same figures as GET /api/health and the Perf page's Sources table read them (issue 13 item 4).
  const health = buildHealth({ engine: app.engine, pipeline: app.pipeline, mqttSources: app.sources });
  const [source] = health.sources.mqtt;
  assert.equal(source.connected, true);
  assert.equal(source.session, 'clean');
  assert.equal(source.qos, 0);
  assert.ok(source.messagesPerSecond > 0, `msgs/s over the last 10 s: ${source.messagesPerSecond}`);
  assert.equal(source.messages, messages.length);
  assert.ok(source.broker.droppedSinceStart > 0 && source.broker.droppedSinceStart <= source.broker.droppedTotal, JSON.stringify(source.broker));
  assert.equal(source.broker.sys, 'available');
});

brokerTest('mosquitto: a clean session loses what was published while MeshPulse was away; a persistent one gets all of it', async (t) => {
  const broker = await startMosquitto({ ...DOCUMENTED, persistence: true });
  const traffic = simulatorMessages(600, 44);
  const pub = await publisher(broker.url);
  const stoppers = [];
  t.after(async () => {
    for (const stop of stoppers) await stop();
    await pub.endAsync(true);
    await broker.stop();
  });
  const configs = { clean: { url: broker.url, clientId: 'meshpulse-clean-test' }, persistent: { url: broker.url, session: 'persistent' } };
  // First connection: each session subscribes, then MeshPulse goes away.
  for (const config of Object.values(configs)) {
    const first = meshpulse(config);
    await waitFor(() => first.stats().subscribed, 'first subscription');
    await first.sources.stop();
  }
  await burst(pub, traffic.messages.slice(0, 300), 1);

  const clean = meshpulse(configs.clean, traffic);
  const persistent = meshpulse(configs.persistent, traffic);
  stoppers.push(() => clean.sources.stop(), () => persistent.sources.stop());
  await waitFor(() => clean.stats().subscribed && persistent.stats().subscribed, 'second subscriptions');
  await burst(pub, traffic.messages.slice(300), 1);
  await waitFor(() => persistent.stats().packets === 600 && clean.stats().packets >= 300, 'live messages');
  await clean.pipeline.drain();
  await persistent.pipeline.drain();
  assert.equal(persistent.engine.store.stats().observations, 600, 'the persistent session got the 300 sent while it was away');
  assert.equal(persistent.stats().sessionPresent, true);
  assert.equal(persistent.stats().qos, 1);
  assert.match(persistent.stats().clientId, /^meshpulse-[0-9a-f]{12}$/);
  assert.equal(clean.engine.store.stats().observations, 300, 'the clean session got only what came after it connected');
  assert.equal(clean.stats().sessionPresent, false);
  // Health (GET /api/health, Perf page) names the session kind and whether it was resumed.
  const health = (app) => buildHealth({ engine: app.engine, pipeline: app.pipeline, mqttSources: app.sources }).sources.mqtt[0];
  assert.deepEqual([health(persistent).session, health(persistent).sessionPresent, health(persistent).connected], ['persistent', true, true]);
  assert.deepEqual([health(clean).session, health(clean).sessionPresent, health(clean).connected], ['clean', false, true]);
});

brokerTest('mosquitto: restarts mid-stream lose nothing with the persistent session (QoS 1, broker persistence on)', async (t) => {
  const broker = await startMosquitto({ ...DOCUMENTED, persistence: true });
  const traffic = simulatorMessages(3000, 45);
  const app = meshpulse({ url: broker.url, session: 'persistent' }, traffic);
  const pub = await publisher(broker.url, { clientId: 'restart-publisher', clean: false });
  t.after(async () => {
    await pub.endAsync(true);
    await app.sources.stop();
    await broker.stop();
  });
  await waitFor(() => app.stats().subscribed, 'subscription');
  // Publish in slices while the broker is restarted twice; the publisher keeps unacked messages and resends.
  const sends = [];
  for (let slice = 0; slice < 30; slice++) {
    sends.push(burst(pub, traffic.messages.slice(slice * 100, (slice + 1) * 100), 1));
    if (slice === 10 || slice === 20) await broker.restart();
    else await sleep(5);
  }
  await Promise.all(sends);
  // QoS 1 is at-least-once: a message whose acknowledgement died with the broker comes again,
  // byte for byte; the source's redelivery window skips it, so each report is ingested once.
  await waitFor(() => app.distinct.size === 3000, 'all 3000 distinct reports after two restarts');
  await app.pipeline.drain();
  assert.deepEqual(new Set(traffic.messages.map(reportKeyOf)), app.distinct);
  const stats = app.stats();
  t.diagnostic(`restart test: ${stats.messages} messages delivered, ${stats.redelivered} re-deliveries skipped`);
  assert.equal(app.pipeline.stats().accepted, 3000, '0 lost, 0 ingested twice');
  assert.equal(stats.packets, 3000);
  assert.equal(stats.messages - stats.redelivered, 3000);
  assert.equal(app.engine.store.stats().observations, 3000);
  assert.ok(app.stats().reconnects >= 2, 'MeshPulse reconnected after each restart');
  assert.equal(app.stats().connected, true);
  assert.equal(app.pipeline.stats().rejectedByReason.queue_full, undefined);
});

// The server's graceful stop (imports/core/graceful-stop.js) with MQTT: a restart in the middle of
// a stream, the broker up all along. The first server's ingested messages are acknowledged before
// it disconnects, the rest wait at the broker for the second: every report once, none twice.
// `slow`: the first server writes 20 reports per 400 ms, so back-pressure holds messages
// (ingested, not yet acknowledged) for longer than the MQTT stop waits (GRACEFUL_END_MS).
for (const [graceful, slow] of [[true, false], [true, true], [false, false]]) {
  brokerTest(`mosquitto: a server restarted mid-stream ${graceful ? `with the graceful stop takes every message once${slow ? ', back-pressure holding messages at the stop' : ''}` : 'by dropping the connection loses none (persistent session)'} (QoS 1)`, async (t) => {
    const broker = await startMosquitto(DOCUMENTED);
    const traffic = simulatorMessages(4000, 47);
    const entry = { url: broker.url, session: 'persistent' };
    const first = slow
      ? meshpulse({ ...entry, highWater: 20 }, traffic, {}, { persistence: { recordIngest: () => sleep(400), recordDropped: () => {} }, queue: { batchSize: 20, maxConcurrency: 1 } })
      : meshpulse(entry, traffic);
    const pub = await publisher(broker.url);
    let second = null;
    t.after(async () => {
      await pub.endAsync(true);
      await first.sources.stop();
      if (second) await second.sources.stop();
      await broker.stop();
    });
    await waitFor(() => first.stats().subscribed, 'subscription');
    const sending = burst(pub, traffic.messages, 1);
    await waitFor(() => first.distinct.size >= (slow ? 300 : 1000), 'the first server ingesting');
    if (slow) assert.ok(first.stats().backpressurePauses > 0, 'back-pressure held messages');
    const exits = [];
    const steps = serverStopSteps({ mqttSources: graceful ? first.sources : { stop: () => first.sources.stop(), stats: () => first.sources.stats() }, pipeline: first.pipeline });
    assert.equal(await createGracefulStop({ steps, log: silentLog(), exit: (code) => exits.push(code) }).stop('SIGTERM'), 0);
    assert.deepEqual(exits, [0]);
    const taken = new Set(first.distinct);
    assert.ok(taken.size < traffic.messages.length, `stopped mid-stream (${taken.size} taken)`);
    await sending;
    second = meshpulse(entry, traffic);
    const all = new Set(traffic.messages.map(reportKeyOf));
    await waitFor(() => [...all].every((key) => taken.has(key) || second.distinct.has(key)), 'the second server to get the rest');
    await second.pipeline.drain();
    await sleep(300); // any re-delivery of what the first took would have come by now
    const twice = [...second.distinct].filter((key) => taken.has(key)).length;
    t.diagnostic(`${graceful ? 'graceful' : 'dropped'}${slow ? ' (back-pressure)' : ''}: first took ${taken.size}, second ${second.distinct.size}, ${twice} ingested by both; second session resumed: ${second.stats().sessionPresent}`);
    assert.equal(second.stats().sessionPresent, true);
    if (graceful) assert.equal(twice, 0, 'no report ingested by both servers');
  });
}

brokerTest('mosquitto: password_file auth takes credentials from the URL however they are written; wrong ones are refused', async (t) => {
  const password = 'p#ss/w?rd@9';
  const broker = await startMosquitto({ users: { meshpulse: password } });
  const traffic = simulatorMessages(50, 46);
  const raw = broker.url.replace('mqtt://', `mqtt://meshpulse:${password}@`); // not a valid WHATWG URL
  const encoded = broker.url.replace('mqtt://', `mqtt://meshpulse:${encodeURIComponent(password)}@`);
  const good = [raw, encoded, { url: broker.url, username: 'meshpulse', password }];
  const apps = good.map((entry) => meshpulse(typeof entry === 'string' ? { url: entry } : entry, traffic));
  const refused = meshpulse({ url: broker.url.replace('mqtt://', 'mqtt://meshpulse:wrong-password@') });
  const anonymous = meshpulse({ url: broker.url });
  const pub = await publisher(broker.url, { username: 'meshpulse', password });
  t.after(async () => {
    await pub.endAsync(true);
    for (const app of [...apps, refused, anonymous]) await app.sources.stop();
    await broker.stop();
  });
  await waitFor(() => apps.every((app) => app.stats().subscribed), 'the three good clients');
  await burst(pub, traffic.messages, 1);
  await waitFor(() => apps.every((app) => app.stats().packets === 50), 'messages on every good client');
  await waitFor(() => refused.stats().lastError && anonymous.stats().lastError, 'the refused clients');
  for (const bad of [refused, anonymous]) {
    assert.equal(bad.stats().connected, false);
    assert.match(bad.stats().lastError.message, /Not authorized|Bad username or password/);
  }
  const printed = JSON.stringify([apps, refused, anonymous].flat().map((app) => [app.stats(), app.log.lines]));
  for (const secret of [password, encodeURIComponent(password), 'wrong-password']) assert.ok(!printed.includes(secret), `"${secret}" printed`);
});

brokerTest('mosquitto: TLS with a self-signed certificate: trusted through tls.ca, refused without it', async (t) => {
  const broker = await startMosquitto({ tls: true });
  const traffic = simulatorMessages(50, 47);
  const trusted = meshpulse({ url: broker.url, tls: { ca: broker.ca } }, traffic);
  const untrusted = meshpulse({ url: broker.url });
  const pub = await publisher(broker.url, { ca: require('fs').readFileSync(broker.ca) });
  t.after(async () => {
    await pub.endAsync(true);
    await trusted.sources.stop();
    await untrusted.sources.stop();
    await broker.stop();
  });
  await waitFor(() => trusted.stats().subscribed, 'the TLS subscription');
  await burst(pub, traffic.messages, 1);
  await waitFor(() => trusted.stats().packets === 50, 'messages over TLS');
  await waitFor(() => untrusted.stats().lastError, 'the untrusted client to fail');
  assert.equal(untrusted.stats().connected, false);
  assert.match(untrusted.stats().lastError.message, /self[- ]signed|certificate/i);
  assert.throws(() => meshpulse({ url: broker.url, tls: { ca: '/nonexistent/ca.pem' } }), /brokers\[0\]\.tls\.ca could not be read/);
});
