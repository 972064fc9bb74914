'use strict';
/**
 * A load-generator process holding many DDP subscribers (fan-out, compression and knobs
 * studies). Started by client-pool.js with `taskset -c 1`, driven over IPC:
 *
 *   { type: 'connect', url, count, subscriptions: [{ name, params }], perMessageDeflate }
 *       -> { type: 'connected', clients, failures, errors }
 *   { type: 'measure' }   start a measurement window (clears histograms and counters)
 *   { type: 'report' }    -> { type: 'report', delay (HDR histogram, base64), updates,
 *                              bytes: { payload, wire }, messages: wire stats, lagP99Ms, failures }
 *   { type: 'close' }     close every client and exit
 *
 * Delay = arrival time - newestPacketAt of each view update (server and clients share a clock).
 *
 * `light: true` (connect): a client that does not parse what it receives. One load core cannot
 * JSON.parse what 5,000 dashboards receive, and a study must measure the server, not the
 * parser: a light client reads each message's type from its first bytes, finds
 * `"newestPacketAt":` with a byte search (Buffer#indexOf) and reads the digits after it; only
 * the few control messages (connected, ready, nosub, ping) are parsed. It keeps no documents.
 * Delay and update counts mean the same as the full client's (a view document's added/changed;
 * every added/changed/removed counted as an update). Each report carries the worker's own CPU
 * (process.cpuUsage over the window), so a study can tell a busy load core from a slow server.
 */
const { monitorEventLoopDelay } = require('perf_hooks');
const hdr = require('hdr-histogram-js');
const WebSocket = require('ws');
const { DdpClient } = require('../../tests/helpers/ddp-client');
const { tapWebSocket, createWireStats } = require('./wire-tap');

const CONNECT_CONCURRENCY = 20;
const clients = [];
let failures = 0;
let lastError = null;
let measuring = false;
let delay = newHistogram();
let updates = 0;
let wire = createWireStats();
let lag = monitorEventLoopDelay({ resolution: 10 });
lag.enable();
let cpuAtMeasure = process.cpuUsage();
let measureStartedAt = Date.now();
let lightBytes = 0;
let lightMessages = 0;

function newHistogram() {
  return hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 3600000, numberOfSignificantValueDigits: 3 });
}

function onData(msg, receivedAt) {
  if (!measuring) return;
  updates++;
  if (msg.collection === 'meshpulse.views' && msg.fields && msg.fields.newestPacketAt) {
    delay.recordValue(Math.max(0, receivedAt - msg.fields.newestPacketAt));
  }
}

async function openClient(url, subscriptions, perMessageDeflate) {
  const client = await DdpClient.connect(url, { perMessageDeflate, timeoutMs: 30000 });
  tapWebSocket(client.socket, (message) => { if (measuring) wire.add(message); });
  client.on('changed', onData);
  client.on('added', onData);
  client.on('removed', onData);
  client.on('close', () => { if (!client.closing) { failures++; lastError = 'connection closed by the server'; } });
  client.on('error', (err) => { lastError = err.message; });
  for (const { name, params } of subscriptions) await client.subscribe(name, [params], { timeoutMs: 60000 });
  clients.push(client);
}

// Light client: what it looks for in the bytes it receives.
const NEWEST_KEY = Buffer.from('"newestPacketAt":');
const MSG_PREFIX = Buffer.from('{"msg":"');
const CHAR = (c) => c.charCodeAt(0);

/** The number written at `at` in `data` (digits only), or null (`null`, or anything else). */
function readInteger(data, at) {
  let value = 0;
  let digits = 0;
  for (let i = at; i < data.length; i++) {
    const c = data[i];
    if (c < 48 || c > 57) break;
    value = value * 10 + (c - 48);
    digits++;
  }
  return digits ? value : null;
}

/** A DDP data message (added / changed / removed), told from its first bytes: {"msg":"<type>". */
function isDataMessage(data) {
  if (data.length < 12 || data.compare(MSG_PREFIX, 0, MSG_PREFIX.length, 0, MSG_PREFIX.length) !== 0) return false;
  const c0 = data[8];
  const c1 = data[9];
  const c2 = data[10];
  return (c0 === CHAR('a') && c1 === CHAR('d')) || (c0 === CHAR('c') && c1 === CHAR('h')) || (c0 === CHAR('r') && c2 === CHAR('m'));
}

/** One light subscriber: connect, subscribe to everything at once, resolve when every sub is ready. */
function openLightClient(url, subscriptions, timeoutMs = 60000) {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { perMessageDeflate: false, skipUTF8Validation: true });
    const client = { socket, closing: false, close: () => socket.close() };
    const waiting = new Set(subscriptions.map((s, i) => String(i + 1)));
    let settled = false;
    const timer = setTimeout(() => fail(new Error(`light client: not ready after ${timeoutMs} ms`)), timeoutMs);
    function fail(err) {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.terminate();
      reject(err);
    }
    socket.once('open', () => socket.send('{"msg":"connect","version":"1","support":["1","pre2","pre1"]}'));
    socket.once('error', fail);
    socket.on('message', (data) => {
      lightBytes += data.length;
      if (isDataMessage(data)) {
        if (!measuring) return;
        lightMessages++;
        updates++;
        const at = data.indexOf(NEWEST_KEY);
        if (at >= 0) {
          const newest = readInteger(data, at + NEWEST_KEY.length);
          if (newest !== null) delay.recordValue(Math.max(0, Date.now() - newest));
        }
        return;
      }
      // Control messages are small: parse them.
      let msg;
      try { msg = JSON.parse(data.toString()); } catch { return; }
      if (msg.msg === 'ping') socket.send(msg.id ? JSON.stringify({ msg: 'pong', id: msg.id }) : '{"msg":"pong"}');
      else if (msg.msg === 'connected') {
        subscriptions.forEach(({ name, params }, i) => socket.send(JSON.stringify({ msg: 'sub', id: String(i + 1), name, params: [params] })));
      } else if (msg.msg === 'ready') {
        for (const id of msg.subs || []) waiting.delete(id);
        if (waiting.size === 0 && !settled) { settled = true; clearTimeout(timer); resolve(client); }
      } else if (msg.msg === 'nosub') fail(new Error(`light client: subscription refused: ${JSON.stringify(msg.error || msg)}`));
      else if (msg.msg === 'failed') fail(new Error('light client: DDP version refused'));
    });
    socket.on('close', () => {
      if (!settled) fail(new Error('light client: connection closed before ready'));
      else if (!client.closing) { failures++; lastError = 'connection closed by the server'; }
    });
  });
}

// `deadlineMs`: a time (ms) or null for none. The pool sends null for an unbounded step (IPC's
// JSON has no Infinity), and `Date.now() > null` is true: null must mean "no deadline" here.
async function connect({ url, count, subscriptions, perMessageDeflate = true, light = false, deadlineMs = null }) {
  let next = 0;
  let failed = 0;
  const errors = new Set();
  const lane = async () => {
    // Past the deadline, clients not yet started are counted as failures, not waited for.
    while (next < count) {
      if (typeof deadlineMs === 'number' && Date.now() > deadlineMs) {
        failed += count - next;
        errors.add(`not connected within the step's connect budget (${count - next} never started)`);
        next = count;
        break;
      }
      next++;
      try {
        if (light) clients.push(await openLightClient(url, subscriptions));
        else await openClient(url, subscriptions, perMessageDeflate);
      } catch (err) {
        failed++;
        errors.add(err.message);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONNECT_CONCURRENCY, count) }, lane));
  return { clients: clients.length, failures: failed, errors: Array.from(errors).slice(0, 5) };
}

process.on('message', async (command) => {
  try {
    if (command.type === 'connect') {
      process.send({ type: 'connected', ...(await connect(command)) });
    } else if (command.type === 'measure') {
      delay = newHistogram();
      updates = 0;
      wire = createWireStats();
      lag.disable();
      lag = monitorEventLoopDelay({ resolution: 10 });
      lag.enable();
      cpuAtMeasure = process.cpuUsage();
      measureStartedAt = Date.now();
      lightBytes = 0;
      lightMessages = 0;
      measuring = true;
      process.send({ type: 'measuring' });
    } else if (command.type === 'report') {
      measuring = false;
      let payload = 0;
      let wireBytes = 0;
      for (const client of clients) {
        payload += client.bytesReceived || 0;
        wireBytes += client.socket._socket ? client.socket._socket.bytesRead : 0;
      }
      const cpu = process.cpuUsage(cpuAtMeasure);
      const windowS = (Date.now() - measureStartedAt) / 1000;
      process.send({
        type: 'report',
        delay: hdr.encodeIntoCompressedBase64(delay),
        updates,
        messages: wire.snapshot(),
        totals: { payload, wire: wireBytes },
        lagP99Ms: lag.percentile(99) / 1e6,
        // This worker's own CPU over the window (% of one core), and what light clients received.
        cpuPct: windowS > 0 ? ((cpu.user + cpu.system) / 1e6 / windowS) * 100 : null,
        light: { bytes: lightBytes, dataMessages: lightMessages },
        clients: clients.length,
        failures,
        lastError,
      });
    } else if (command.type === 'close') {
      for (const client of clients) { client.closing = true; client.close(); }
      setTimeout(() => process.exit(0), 200);
    }
  } catch (err) {
    process.send({ type: 'error', message: err.message });
  }
});

process.on('disconnect', () => process.exit(0));
