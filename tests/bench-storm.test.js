'use strict';
// The connection-storm generator (benchmarks/lib/storm-*.js) against a tiny fake DDP server on
// `ws`: how it reads DDP frames (fast path and JSON fallback), that each user does what
// tests/artillery/ramp.yml's user does (same subscriptions and calls), its timings, and that
// every way a user can fail is counted as a failure with a message. No Meteor needed.
const test = require('node:test');
const assert = require('node:assert');
const { WebSocketServer } = require('ws');
const http = require('http');
const { readDdpMessage, runStormUser } = require('../benchmarks/lib/storm-ddp');
const { openStormSocket, storedBlock, inflateCache } = require('../benchmarks/lib/storm-socket');
const { storedBlocks } = require('../imports/core/shared-deflate');
const { startStormPool, mergeReports } = require('../benchmarks/lib/storm-pool');
const { runStep } = require('../benchmarks/lib/storm-worker');
const { dashboardSubscriptions, dashboardCalls } = require('../tests/artillery/processor');

const { fakeDdpServer, bigFields } = require('./helpers/fake-ddp-server');

function collectMetrics() {
  const timings = {};
  const counters = {};
  return { timings, counters, record(name, ms) { (timings[name] = timings[name] || []).push(ms); }, count(name, n) { counters[name] = (counters[name] || 0) + n; } };
}

test('readDdpMessage reads big data messages from their head and newestPacketAt, exactly as a full parse would', () => {
  const changed = { msg: 'changed', collection: 'meshpulse.views', id: 'nodes:{"a":"b\\"c"}', fields: bigFields(1700000000123) };
  const text = JSON.stringify(changed);
  assert.ok(text.length > 256);
  assert.deepStrictEqual(readDdpMessage(Buffer.from(text)), { msg: 'changed', collection: 'meshpulse.views', newestPacketAt: 1700000000123 });
  // Another key order: read by the JSON fallback, same answer.
  const reordered = JSON.stringify({ fields: changed.fields, id: changed.id, collection: changed.collection, msg: 'changed' });
  assert.deepStrictEqual(readDdpMessage(Buffer.from(reordered)), { msg: 'changed', collection: 'meshpulse.views', newestPacketAt: 1700000000123 });
  // A live-feed row has no newestPacketAt.
  const row = JSON.stringify({ msg: 'added', collection: 'meshpulse.live', id: 'x', fields: { time: 5, payload: 'a'.repeat(400) } });
  assert.deepStrictEqual(readDdpMessage(Buffer.from(row)), { msg: 'added', collection: 'meshpulse.live', newestPacketAt: null });
  // Method results: big (head) and small (parsed), and an error result is parsed whole.
  assert.deepStrictEqual(readDdpMessage(Buffer.from(JSON.stringify({ msg: 'result', id: '7', result: bigFields(42) }))), { msg: 'result', id: '7', newestPacketAt: 42 });
  assert.deepStrictEqual(readDdpMessage(Buffer.from(JSON.stringify({ msg: 'result', id: '8', result: { newestPacketAt: 9 } }))), { msg: 'result', id: '8', newestPacketAt: 9 });
  const failed = readDdpMessage(Buffer.from(JSON.stringify({ msg: 'result', id: '9', error: { error: 'bad-params', reason: 'x'.repeat(300) } })));
  assert.strictEqual(failed.msg, 'result');
  assert.strictEqual(failed.parsed.error.error, 'bad-params');
  // Control messages are parsed whole; garbage is null.
  assert.deepStrictEqual(readDdpMessage(Buffer.from('{"msg":"ready","subs":["1","2"]}')), { msg: 'ready', parsed: { msg: 'ready', subs: ['1', '2'] } });
  assert.strictEqual(readDdpMessage(Buffer.from('not json')), null);
  assert.strictEqual(readDdpMessage(Buffer.from('a'.repeat(300))), null);
});

for (const [transport, deflate] of [['raw', {}], ['raw', { serverNoContextTakeover: true }], ['ws', {}]]) test(`a reactive user (${transport} socket, ${deflate.serverNoContextTakeover ? 'no ' : ''}context takeover) subscribes to the same dashboard as the Artillery scenario, holds, records its timings and answers pings`, async () => {
  const server = await fakeDdpServer({ ping: true, deflate });
  try {
    const metrics = collectMetrics();
    const outcome = await runStormUser({ url: server.url, path: 'reactive', holdMs: 400, metrics, transport }).done;
    assert.deepStrictEqual(outcome, { ok: true, sawUpdate: true });
    assert.deepStrictEqual(server.seen.subs, dashboardSubscriptions({ vars: {} }).map(({ name, params }) => ({ name, params: [params] })));
    assert.strictEqual(server.seen.pongs, 1);
    assert.strictEqual(metrics.timings.connect_ms.length, 1);
    assert.strictEqual(metrics.timings.ready_ms.length, 1);
    assert.strictEqual(metrics.timings.first_update_ms.length, 1);
    // 5 views tick every 50 ms for 400 ms; the initial `added`s (before ready) are not updates.
    assert.ok(metrics.timings.delay_ms.length >= 5, `delays: ${metrics.timings.delay_ms.length}`);
    assert.ok(metrics.timings.delay_ms.every((ms) => ms >= 15 && ms < 1000), metrics.timings.delay_ms.join(','));
    assert.strictEqual(metrics.counters.updates, metrics.timings.delay_ms.length);
    assert.ok(metrics.counters.bytes_payload > 6 * 1000 && metrics.counters.bytes_wire > 0);
  } finally {
    await server.close();
  }
});

test('a method user calls the same views as the Artillery scenario, then each again after refreshMs until the hold ends', async () => {
  const server = await fakeDdpServer();
  try {
    const metrics = collectMetrics();
    const outcome = await runStormUser({ url: server.url, path: 'method', holdMs: 500, refreshMs: 200, metrics }).done;
    assert.strictEqual(outcome.ok, true);
    const firstRound = dashboardCalls({ vars: {} }).map(({ method, params }) => ({ method, params: [params] }));
    assert.deepStrictEqual(server.seen.calls.slice(0, 6), firstRound);
    // Page load + a refresh ~200 ms after each answer while the hold lasts: two per view on an
    // idle machine (~200, ~400 ms), one when answers are slow; always whole rounds of six.
    const calls = server.seen.calls.length;
    assert.ok(calls % 6 === 0 && calls >= 12 && calls <= 18, `calls: ${calls}`);
    assert.strictEqual(metrics.timings.ready_ms.length, 1);
    assert.strictEqual(metrics.timings.method_latency_ms.length, calls);
    // Data age is recorded for the refreshes, not for the page load (as the processor does).
    assert.strictEqual(metrics.timings.delay_ms.length, calls - 6);
    assert.ok(metrics.timings.delay_ms.every((ms) => ms >= 30 && ms < 1000));
  } finally {
    await server.close();
  }
});

test('every way a user fails is a failure with a message: nosub, a socket closed while holding, no ready, no server', async () => {
  const refused = await fakeDdpServer({ nosub: 'view.rf' });
  const closing = await fakeDdpServer({ closeAfterMs: 150 });
  const silent = await fakeDdpServer({ silent: true });
  try {
    const a = await runStormUser({ url: refused.url, path: 'reactive', holdMs: 300 }).done;
    assert.deepStrictEqual(a, { ok: false, error: 'subscription view.rf stopped: bad-params: refused' });
    const b = await runStormUser({ url: closing.url, path: 'reactive', holdMs: 2000 }).done;
    assert.deepStrictEqual(b, { ok: false, error: 'socket closed while holding the dashboard' });
    const c = await runStormUser({ url: silent.url, path: 'reactive', holdMs: 300, requestTimeoutMs: 200 }).done;
    assert.deepStrictEqual(c, { ok: false, error: 'sub view.stats timed out after 200 ms' });
  } finally {
    await Promise.all([refused.close(), closing.close(), silent.close()]);
  }
  const d = await runStormUser({ url: 'ws://127.0.0.1:1/websocket', path: 'reactive' }).done;
  assert.strictEqual(d.ok, false);
  assert.match(d.error, /ECONNREFUSED/);
});

test('a worker starts its share of users on an evenly spaced schedule and reports them', async () => {
  const server = await fakeDdpServer();
  try {
    const startAt = Date.now() + 50;
    // Users 1, 3, 5, 7 of 8 (the second of two workers), one every 40 ms.
    const report = await runStep({ url: server.url, path: 'reactive', startAt, intervalMs: 40, count: 8, offset: 1, stride: 2, user: { holdMs: 200 } });
    assert.strictEqual(report.created, 4);
    assert.strictEqual(report.completed, 4);
    assert.strictEqual(report.failed, 0);
    assert.strictEqual(report.without_update, 0);
    assert.strictEqual(server.seen.connects, 4);
    const merged = mergeReports([report, report]);
    assert.strictEqual(merged.created, 8);
    assert.strictEqual(merged.timings.ready_ms.count, 8);
    assert.strictEqual(merged.timings.arrival_lag_ms.count, 8);
    assert.ok(merged.timings.arrival_lag_ms.max < 2000);
    assert.ok(report.cpu_s > 0);
  } finally {
    await server.close();
  }
});

test('a pool of worker processes runs a step: perMinute x stepS / 60 users, failures counted by message', async () => {
  const server = await fakeDdpServer({ nosub: 'packets.live' });
  const pool = await startStormPool({ workers: 2, cpu: null });
  try {
    const step = await pool.runStep({ url: server.url, path: 'reactive', perMinute: 600, stepS: 1, user: { holdMs: 100 } });
    assert.strictEqual(step.users, 10);
    assert.strictEqual(step.created, 10);
    assert.strictEqual(step.failed, 10);
    assert.deepStrictEqual(step.errors, { 'subscription packets.live stopped: bad-params: refused': 10 });
    assert.strictEqual(server.seen.connects, 10);
    assert.ok(pool.cpuSeconds() > 0);
  } finally {
    await pool.close();
    await server.close();
  }
});

test('storm socket: messages that refer back to earlier ones (context takeover) inflate exactly, through the socket window', async () => {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: { threshold: 0 } });
  await new Promise((resolve) => wss.once('listening', resolve));
  const texts = Array.from({ length: 60 }, (_, i) => JSON.stringify({ msg: 'changed', collection: 'meshpulse.views', id: 'nodes:{}', fields: bigFields(1000 + (i % 7)) }));
  wss.on('connection', (socket) => { for (const text of texts) socket.send(text); });
  const before = inflateCache.stats.withWindow;
  try {
    const received = await new Promise((resolve, reject) => {
      const socket = openStormSocket(`ws://127.0.0.1:${wss.address().port}/websocket`);
      const got = [];
      socket.on('error', reject);
      socket.on('message', (data) => { got.push(data.toString()); if (got.length === texts.length) { socket.close(); resolve(got); } });
    });
    assert.deepStrictEqual(received, texts);
    assert.ok(inflateCache.stats.withWindow > before, 'the server kept its context: later messages needed the window');
  } finally {
    await new Promise((resolve) => { for (const c of wss.clients) c.terminate(); wss.close(resolve); });
  }
});

test('storm socket: self-contained messages are inflated once for every socket of the process; pings answered; close and refusals reported', async () => {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: { threshold: 0, serverNoContextTakeover: true } });
  await new Promise((resolve) => wss.once('listening', resolve));
  const texts = ['x', 'y', 'z'].map((tag) => JSON.stringify({ tag, fields: bigFields(7) }));
  let pongs = 0;
  wss.on('connection', (socket) => {
    socket.on('pong', () => { pongs++; });
    socket.ping('are you there');
    for (const text of texts) socket.send(text);
    socket.on('message', (data) => { if (data.toString() === 'bye') socket.close(1000); });
  });
  const url = `ws://127.0.0.1:${wss.address().port}/websocket`;
  const receive = () => new Promise((resolve, reject) => {
    const socket = openStormSocket(url);
    const got = [];
    socket.on('error', reject);
    socket.on('message', (data) => { got.push(data.toString()); if (got.length === texts.length) socket.send('bye'); });
    // The server's close frame ends the connection: 'close' after every message.
    socket.on('close', () => resolve({ got, bytesRead: socket.bytesRead }));
  });
  try {
    const hits = inflateCache.stats.hits;
    const first = await receive();
    const second = await receive();
    assert.deepStrictEqual(first.got, texts);
    assert.deepStrictEqual(second.got, texts);
    assert.ok(inflateCache.stats.hits - hits >= texts.length, 'the second socket reused the first one\'s inflated messages');
    assert.ok(first.bytesRead > 0);
    assert.strictEqual(pongs, 2);
  } finally {
    await new Promise((resolve) => { for (const c of wss.clients) c.terminate(); wss.close(resolve); });
  }
  // Not a websocket server: the handshake's status is the error.
  const plain = http.createServer((req, res) => { res.writeHead(400); res.end(); });
  await new Promise((resolve) => plain.listen(0, '127.0.0.1', resolve));
  try {
    const error = await new Promise((resolve) => openStormSocket(`ws://127.0.0.1:${plain.address().port}/websocket`).on('error', resolve));
    assert.strictEqual(error.message, 'Unexpected server response: 400');
  } finally {
    plain.close();
  }
});

test('storm socket: a stored block as the shared deflate sends small messages is read without zlib', () => {
  const text = Buffer.from('{"msg":"ready","subs":["1"]}');
  // What imports/core/shared-deflate.js emits, minus the 00 00 ff ff permessage-deflate strips.
  const wire = storedBlocks(text);
  const payload = wire.subarray(0, wire.length - 4);
  assert.deepStrictEqual(storedBlock(payload), text);
  assert.deepStrictEqual(storedBlock(Buffer.concat([Buffer.from([0x00, text.length, 0x00, ~text.length & 0xff, 0xff]), text])), text);
  // Compressed data, or a length that does not match: not a stored block (zlib reads it).
  assert.strictEqual(storedBlock(require('zlib').deflateRawSync(text)), null);
  assert.strictEqual(storedBlock(payload.subarray(0, payload.length - 2)), null);
});
