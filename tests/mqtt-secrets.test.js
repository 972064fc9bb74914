'use strict';
// Issue 9, "secrets never leave": configure broker passwords (in the URL however written, and
// as settings), an API key, a channel key, a TLS passphrase and a MONGO_URL password; drive
// good, bad and refused traffic through MQTT (embedded aedes broker) into the pipeline and
// engine; collect every log line, every MQTT stats object, the health document exactly as
// GET /api/health builds it (imports/core/health.js) and every document the `perf` publication
// sends (PublishHub, as the server wires it), then grep all of it for every secret: 0 found.
const test = require('node:test');
const assert = require('node:assert/strict');
const net = require('net');
const mqtt = require('mqtt');
const { createEngine } = require('../imports/core/engine');
const { createSimulator } = require('../imports/core/simulate');
const { createPipeline } = require('../imports/ingest/pipeline');
const { createMqttSources } = require('../imports/ingest/mqtt');
const { resolveSettings } = require('../imports/core/settings');
const { createRedactor, collectSecrets } = require('../imports/core/redact');
const { buildHealth } = require('../imports/core/health');
const { createPerfMetrics } = require('../imports/core/perf');
const { PublishHub } = require('../imports/core/publish-hub');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
async function waitFor(predicate, what) {
  const deadline = Date.now() + 15000;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

// Every one of these must stay invisible. Passwords carry the characters that break URL parsing.
const BROKER_PASSWORD = 'Br0ker#pa/ss?word@1';
const SECRETS = {
  brokerPassword: BROKER_PASSWORD,
  brokerPasswordEncoded: encodeURIComponent(BROKER_PASSWORD),
  explicitPassword: 'explicit-P4ss#word',
  wrongPassword: 'wrong#Pass/word?',
  unparseablePassword: 'unp@rse#able',
  apiKey: 'api-key-0f9e8d7c6b5a',
  channelKey: '0badc0ffee0ddf00d1234567890abcde',
  tlsPassphrase: 'tls-pass#phrase',
  mongoPassword: 'mongo#secret/pw',
};

async function startAedes() {
  const { Aedes } = await import('aedes');
  const users = { meshpulse: BROKER_PASSWORD, other: SECRETS.explicitPassword };
  const broker = await Aedes.createBroker({ authenticate: (client, username, password, callback) => callback(null, Boolean(username) && users[username] === String(password)) });
  const sockets = new Set();
  const server = net.createServer(broker.handle);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = server.address().port;
  return {
    port,
    async close() {
      await new Promise((resolve) => broker.close(resolve));
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

test('secrets: no configured secret appears in any log line, MQTT stats, health answer or perf publication', async (t) => {
  const broker = await startAedes();
  const host = `127.0.0.1:${broker.port}`;
  const sim = createSimulator({ seed: 90 });
  const messages = sim.messages(200);
  const env = { MONGO_URL: `mongodb://admin:${SECRETS.mongoPassword}@127.0.0.1:1/meshpulse`, MESHPULSE_API_KEY: SECRETS.apiKey };
  const settings = resolveSettings({
    channels: ['#test', { name: 'private', key: SECRETS.channelKey }],
    sources: {
      simulator: { enabled: false },
      mqtt: [
        { url: `mqtt://meshpulse:${BROKER_PASSWORD}@${host}` }, // raw: no URL parser accepts it
        { url: `mqtt://meshpulse:${SECRETS.brokerPasswordEncoded}@${host}` }, // percent-encoded
        { url: `mqtt://${host}`, username: 'other', password: SECRETS.explicitPassword },
        { url: `mqtt://meshpulse:${SECRETS.wrongPassword}@${host}` }, // refused: error path
        { url: `mqtt://x:${SECRETS.unparseablePassword}@`, tls: { passphrase: SECRETS.tlsPassphrase } }, // no host at all
      ],
    },
  }, env);

  // Wired as imports/startup/server/index.js wires it.
  const redactor = createRedactor(collectSecrets(settings, env));
  const lines = [];
  const capture = (level) => (...args) => lines.push(`${level} ${args.map((arg) => (typeof arg === 'string' ? arg : JSON.stringify(arg))).join(' ')}`);
  const log = redactor.log({ info: capture('info'), warn: capture('warn'), error: capture('error') });
  const engine = createEngine({ channels: [...settings.channels, ...sim.channels.map((c) => ({ name: c.name, key: c.key }))] });
  const pipeline = createPipeline({ engine, log });
  const metrics = createPerfMetrics();
  const mqttSources = createMqttSources({ brokers: settings.sources.mqtt, pipeline, log, redactor, reconnect: { minMs: 20, maxMs: 100 } });
  const health = () => buildHealth({ engine, pipeline, metrics, mqttSources, redactor, runtime: { meteorRelease: 'METEOR@test' } });
  const hub = new PublishHub((name) => (name === 'perf' ? { normalizeParams: () => ({}), versionFor: () => Date.now(), snapshot: () => health() } : null), { publishIntervalMs: 20 });
  const published = [];
  const record = (kind) => (id, fields) => published.push({ kind, id, fields });
  const subscription = hub.subscribe('perf', {}, { added: record('added'), changed: record('changed'), removed: record('removed') });
  const pub = await mqtt.connectAsync(`mqtt://${host}`, { username: 'meshpulse', password: BROKER_PASSWORD, reconnectPeriod: 0 });
  t.after(async () => {
    subscription.stop();
    hub.close();
    metrics.stop();
    await pub.endAsync(true);
    await mqttSources.stop();
    await broker.close();
  });

  await waitFor(() => mqttSources.stats().slice(0, 3).every((s) => s.subscribed), 'the three good clients');
  await waitFor(() => mqttSources.stats()[3].lastError && mqttSources.stats()[4].lastError, 'the refused and the unusable broker');
  const topic = messages[0].topic;
  // Good traffic, and bad payloads that land in the dropped ring (source label = the broker URL).
  for (const message of messages) await pub.publishAsync(message.topic, JSON.stringify(message.payload), { qos: 1 });
  for (const payload of ['not json', JSON.stringify({ raw: 'zz' }), JSON.stringify({ SNR: 1 })]) await pub.publishAsync(topic, payload, { qos: 1 });
  await waitFor(() => pipeline.stats().accepted === 600, 'every good report on the three good clients');
  await pipeline.drain();
  await sleep(100); // a few perf ticks

  const stats = mqttSources.stats();
  assert.equal(stats[3].connected, false);
  assert.ok(lines.length > 5, 'the run logged');
  assert.ok(pipeline.stats().lastDropped.length >= 9);
  const everything = JSON.stringify({ lines, stats, health: health(), published, dropped: pipeline.recentDropped(), observers: mqttSources.observerStatus() });
  const found = Object.entries(SECRETS).filter(([, secret]) => everything.includes(secret));
  assert.deepEqual(found, [], `secrets found: ${found.map(([name]) => name).join(', ')}`);
  // Still useful: the printed URLs keep the host and say what was removed.
  assert.ok(stats.every((s) => /\[redacted\]@/.test(s.url)) || stats.some((s) => s.url === `mqtt://${host}`));
  assert.equal(stats[0].url, `mqtt://[redacted]@${host}`);
});
