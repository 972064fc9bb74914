'use strict';
/**
 * The load tooling, without Meteor: the Artillery processor's DDP steps against the bare
 * `ws` floor server (benchmarks/lib/bare-ws-server.js, the same engine and publish hub), and
 * the wire tap that tells deflated frames from plain ones.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { spawn } = require('child_process');
const { WebSocketServer, WebSocket } = require('ws');
const processor = require('./processor');
const { tapWebSocket, createWireStats } = require('../../benchmarks/lib/wire-tap');
const { freePort } = require('../helpers/meteor-app');

function recorder() {
  const histograms = {};
  const counters = {};
  return {
    histograms,
    counters,
    emit(type, name, value) {
      if (type === 'histogram') (histograms[name] = histograms[name] || []).push(value);
      if (type === 'counter') counters[name] = (counters[name] || 0) + value;
    },
  };
}

async function startBareServer(t) {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(__dirname, '../../benchmarks/lib/bare-ws-server.js'), '--port', String(port), '--rate', '100'], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => child.kill('SIGTERM'));
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('bare ws server did not start')), 20000);
    child.stdout.on('data', (chunk) => { if (/LISTENING/.test(chunk.toString())) { clearTimeout(timer); resolve(); } });
  });
  return `ws://127.0.0.1:${port}/websocket`;
}

test('processor: reactive steps subscribe, record update delays and bytes, close', { timeout: 60000 }, async (t) => {
  const url = await startBareServer(t);
  const events = recorder();
  const context = { vars: { ddpUrl: url, holdSeconds: 2, warmupSeconds: 0 } };
  await processor.ddpConnect(context, events);
  await processor.subscribeDashboard(context, events);
  await processor.holdDashboard(context, events);
  await processor.ddpClose(context, events);
  assert.equal(events.histograms['ddp.connect_ms'].length, 1);
  assert.equal(events.histograms['ddp.dashboard_ready_ms'].length, 1);
  assert.ok(events.counters['ddp.updates'] > 0, 'updates arrived while holding');
  const delays = events.histograms['ddp.update_delay_ms'] || [];
  assert.ok(delays.length > 0, 'view updates carried newestPacketAt');
  assert.ok(delays.every((d) => d >= 0 && d < 5000), `delays are plausible: ${delays.slice(0, 5)}`);
  assert.ok(events.counters['ddp.bytes_payload'] > 0 && events.counters['ddp.bytes_wire'] > 0);
  assert.equal(context.ddp, null);
  // The stats document's age on screen, sampled every 250 ms over the 2 s hold.
  const ages = events.histograms['ddp.displayed_age_ms'] || [];
  assert.ok(ages.length >= 4, `displayed age sampled while holding: ${ages.length} samples`);
  assert.ok(ages.every((age) => age >= 0 && age < 5000), `displayed ages are plausible: ${ages.slice(0, 5)}`);
  const count = ages.length;
  await new Promise((resolve) => setTimeout(resolve, 600));
  assert.equal((events.histograms['ddp.displayed_age_ms'] || []).length, count, 'no sample after ddpClose');
});

test('processor: method steps call every view until result and updated', { timeout: 60000 }, async (t) => {
  // The bare server speaks no methods: a minimal DDP method server stands in.
  const port = await freePort();
  const server = new WebSocketServer({ port, host: '127.0.0.1' });
  t.after(() => server.close());
  server.on('connection', (socket) => socket.on('message', (data) => {
    const msg = JSON.parse(data.toString());
    if (msg.msg === 'connect') socket.send(JSON.stringify({ msg: 'connected', session: 's' }));
    if (msg.msg === 'method') {
      socket.send(JSON.stringify({ msg: 'result', id: msg.id, result: { newestPacketAt: Date.now() - 5, generatedAt: Date.now() } }));
      socket.send(JSON.stringify({ msg: 'updated', methods: [msg.id] }));
    }
  }));
  const events = recorder();
  const context = { vars: { ddpUrl: `ws://127.0.0.1:${port}`, holdSeconds: 1.2, refreshMs: 500 } };
  await processor.ddpConnect(context, events);
  await processor.refreshDashboard(context, events);
  await processor.ddpClose(context, events);
  const calls = processor.dashboardCalls(context).length;
  assert.equal(events.histograms['ddp.dashboard_ready_ms'].length, 1);
  // One round at load, then every 500 ms until 1.2 s: two more rounds.
  assert.equal(events.histograms['ddp.method_latency_ms'].length, calls * 3);
  assert.equal(events.histograms['ddp.data_age_ms'].length, calls * 2, 'the page-load round is not counted as data age');
  assert.ok(events.histograms['ddp.data_age_ms'].every((age) => age >= 5));
  // Between answers the data on screen ages: sampled every 250 ms, some samples fall late in a
  // 500 ms wait, while every answer arrived 5 ms old.
  const ages = events.histograms['ddp.displayed_age_ms'] || [];
  assert.ok(ages.length >= 3, `displayed age sampled: ${ages.length} samples`);
  assert.ok(Math.max(...ages) >= 250, `the answer on screen aged between calls: ${ages}`);
  assert.ok(ages.every((age) => age >= 5 && age < 2000), `displayed ages are plausible: ${ages}`);
});

test('displayed-age sampler: emits now - newest held, from recordFrom, until stopped', { timeout: 10000 }, async () => {
  const events = recorder();
  let clock = 1000;
  const sampler = processor.createDisplayedAgeSampler(events, { intervalMs: 10, now: () => clock });
  sampler.seen(900);
  sampler.seen(800); // older: ignored
  sampler.start(1100, 5000);
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal((events.histograms['ddp.displayed_age_ms'] || []).length, 0, 'nothing before recordFrom');
  clock = 1200;
  await new Promise((resolve) => setTimeout(resolve, 50));
  const ages = events.histograms['ddp.displayed_age_ms'] || [];
  assert.ok(ages.length >= 1 && ages.every((age) => age === 300), `age = now - newest: ${ages}`);
  // The last tick at 1000 made the next due at 1010; the clock jumped to 1200: that tick reads
  // 190 ms late, the ticks after it (due 1210, still at 1200) on time.
  const lags = events.histograms['ddp.client_lag_ms'];
  assert.equal(lags[0], 190, `client lag: ${lags}`);
  assert.ok(lags.slice(1).every((lag) => lag === 0), `client lag: ${lags}`);
  sampler.seen(1150);
  clock = 1250;
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(events.histograms['ddp.displayed_age_ms'].at(-1), 100);
  clock = 6000; // past `until`: it stops by itself
  await new Promise((resolve) => setTimeout(resolve, 50));
  const n = events.histograms['ddp.displayed_age_ms'].length;
  clock = 1300;
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(events.histograms['ddp.displayed_age_ms'].length, n, 'stopped at until');
  sampler.stop();
});

test('wire tap: pairs frames with messages and tells deflated from plain ones', { timeout: 30000 }, async (t) => {
  const port = await freePort();
  // Like a threshold preset: messages under 1,024 bytes go out uncompressed (ws applies its
  // threshold only without context takeover).
  const server = new WebSocketServer({ port, host: '127.0.0.1', perMessageDeflate: { threshold: 1024, serverNoContextTakeover: true } });
  t.after(() => server.close());
  const small = JSON.stringify({ msg: 'changed', fields: { count: 1 } });
  const large = JSON.stringify({ msg: 'changed', fields: { rows: Array.from({ length: 400 }, (_, i) => ({ i, name: 'repeater' })) } });
  server.on('connection', (socket) => {
    for (let i = 0; i < 5; i++) { socket.send(small); socket.send(large); }
  });
  const stats = createWireStats(1024);
  const client = new WebSocket(`ws://127.0.0.1:${port}`, { perMessageDeflate: true });
  let received = 0;
  await new Promise((resolve) => {
    client.once('open', () => tapWebSocket(client, (m) => { stats.add(m); if (++received === 10) resolve(); }));
  });
  client.close();
  const s = stats.snapshot();
  assert.equal(s.small.messages, 5);
  assert.equal(s.large.messages, 5);
  assert.equal(s.small.deflated, 0, 'small messages were not deflated');
  assert.equal(s.large.deflated, 5, 'large messages were deflated');
  assert.equal(s.small.payload_bytes, 5 * small.length);
  assert.equal(s.small.wire_bytes, 5 * (small.length + 2), 'a small frame is its payload plus a 2-byte header');
  assert.ok(s.large.wire_bytes < s.large.payload_bytes / 3, 'large messages shrank on the wire');
});
