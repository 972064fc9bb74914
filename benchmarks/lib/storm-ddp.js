'use strict';
/**
 * A light DDP virtual user for connection storms (benchmarks/capacity.js): exactly what one
 * user of tests/artillery/ramp.yml does, on a bare `ws` socket, at a fraction of the CPU.
 *
 *   reactive  connect -> `connected`; subscribe to every dashboard view at once -> every
 *             `ready`; hold holdMs recording each view update's ingest -> arrival delay (and
 *             the first one's); close.
 *   method    connect -> `connected`; call every dashboard view at once -> every `result` and
 *             `updated`; then call each again refreshMs after its answer until holdMs after
 *             the first call; record latency and data age; close.
 *
 *   const user = runStormUser({ url, path: 'reactive', holdMs: 5000, metrics });
 *   user.done.then((outcome) => ...)   // { ok: true, sawUpdate } or { ok: false, error }
 *
 * Why it is cheaper than Artillery + tests/helpers/ddp-client.js (same protocol, same steps):
 * the socket is storm-socket.js (each distinct compressed message inflated once per process,
 * not once per socket; `transport: 'ws'` uses the `ws` package instead), and
 * data messages (`added`/`changed`/`removed`, method `result`s) are never decoded as a whole.
 * Their kind, collection and id are read from the first bytes (DDP's own key order), and the
 * one figure the study needs, `newestPacketAt`, is found with Buffer#indexOf; no local copy of
 * the documents is kept. Control messages (`connected`, `ready`, `ping`, `updated`, `nosub`,
 * errors) are small and go through JSON.parse. Anything that does not look as expected falls
 * back to JSON.parse too, so a different key order costs CPU, never correctness.
 *
 * `metrics` receives the figures: record(name, ms) for open_ms (start -> websocket open),
 * connect_ms (DDP `connect` -> `connected`), joined_ms (start -> `connected`), ready_ms, delay_ms,
 * first_update_ms, method_latency_ms; count(name, n) for updates, bytes_payload, bytes_wire.
 */
const WebSocket = require('ws');
const { openStormSocket } = require('./storm-socket');

/** The dashboard both paths load: the same views and params as tests/artillery/processor.js. */
const { DASHBOARD_VIEWS } = require('../../tests/artillery/processor');

// Limits of one user's steps, as in tests/artillery/processor.js and tests/helpers/ddp-client.js.
const DEFAULTS = {
  holdMs: 5000,
  refreshMs: 2000,
  liveLimit: 16,
  connectTimeoutMs: 15000, // websocket open + DDP `connected`
  requestTimeoutMs: 15000, // one `sub` until `ready`, one `method` until `result` and `updated`
  perMessageDeflate: true, // as ramp.yml's `ws.perMessageDeflate`
  // 'raw': storm-socket.js (each distinct compressed message inflated once per process);
  // 'ws': the `ws` package (every socket inflates its own copy), for comparison.
  transport: 'raw',
};
const OPEN = 1; // readyState, the same for `ws` and storm-socket.js

const VIEWS_COLLECTION = 'meshpulse.views';
const DATA_KINDS = new Set(['added', 'changed', 'removed']);
// `{"msg":"changed","collection":"meshpulse.views","id":"stats:{}"` : kind, collection, id.
const DATA_HEAD = /^\{"msg":"(added|changed|removed)","collection":"([^"\\]*)","id":"(?:[^"\\]|\\.)*"/;
// `{"msg":"result","id":"7","result":` (an error result is small and parsed whole).
const RESULT_HEAD = /^\{"msg":"result","id":"([^"\\]*)","result":/;
const HEAD_BYTES = 200;
// Messages shorter than this are parsed whole: cheap, and exact whatever their key order.
const SMALL_MESSAGE_BYTES = 256;
const NEWEST_KEY = Buffer.from('"newestPacketAt":');

/** newestPacketAt (a number) in a raw message, or null. Only view documents carry it, at their top level. */
function newestPacketAtIn(buffer) {
  const at = buffer.indexOf(NEWEST_KEY);
  if (at < 0) return null;
  const from = at + NEWEST_KEY.length;
  const value = Number.parseInt(buffer.toString('latin1', from, Math.min(buffer.length, from + 20)), 10);
  return Number.isFinite(value) ? value : null;
}

/**
 * What a DDP message says, reading as little of it as possible. Returns
 *   { msg, collection, newestPacketAt }            for added/changed/removed
 *   { msg: 'result', id, newestPacketAt }          for a successful method result
 *   { msg, parsed }                                 for everything else (parsed = the whole object)
 * or null for a message that is not JSON.
 */
function readDdpMessage(data) {
  const buffer = Buffer.isBuffer(data) ? data : Buffer.from(String(data));
  if (buffer.length >= SMALL_MESSAGE_BYTES) {
    const head = buffer.toString('latin1', 0, Math.min(buffer.length, HEAD_BYTES));
    const dataHead = DATA_HEAD.exec(head);
    if (dataHead) return { msg: dataHead[1], collection: dataHead[2], newestPacketAt: newestPacketAtIn(buffer) };
    const resultHead = RESULT_HEAD.exec(head);
    if (resultHead) return { msg: 'result', id: resultHead[1], newestPacketAt: newestPacketAtIn(buffer) };
  }
  let parsed;
  try {
    parsed = JSON.parse(buffer.toString('utf8'));
  } catch (err) {
    return null;
  }
  if (!parsed || typeof parsed !== 'object') return null;
  if (DATA_KINDS.has(parsed.msg)) {
    const newest = parsed.fields && typeof parsed.fields.newestPacketAt === 'number' ? parsed.fields.newestPacketAt : null;
    return { msg: parsed.msg, collection: parsed.collection, newestPacketAt: newest };
  }
  if (parsed.msg === 'result' && !parsed.error) {
    const newest = parsed.result && typeof parsed.result.newestPacketAt === 'number' ? parsed.result.newestPacketAt : null;
    return { msg: 'result', id: parsed.id, newestPacketAt: newest };
  }
  return { msg: parsed.msg, parsed };
}

/** The dashboard's subscriptions or calls, as ramp.yml's user makes them. */
function dashboardRequests(path, liveLimit) {
  if (path === 'method') {
    return [
      ...DASHBOARD_VIEWS.map((view) => ({ msg: 'method', method: `view.${view}`, params: [{}] })),
      { msg: 'method', method: 'view.packets', params: [{ limit: liveLimit }] },
    ];
  }
  return [
    ...DASHBOARD_VIEWS.map((view) => ({ msg: 'sub', name: `view.${view}`, params: [{}] })),
    { msg: 'sub', name: 'packets.live', params: [{ limit: liveLimit }] },
  ];
}

const noMetrics = { record() {}, count() {} };

// What readDdpMessage said about a message Buffer: storm-socket.js hands every socket that
// received the same compressed bytes the same Buffer, so each distinct message is read once.
const readMessages = new WeakMap();
function readOnce(data) {
  if (!Buffer.isBuffer(data)) return readDdpMessage(data);
  let info = readMessages.get(data);
  if (info === undefined) {
    info = readDdpMessage(data);
    readMessages.set(data, info);
  }
  return info;
}

/**
 * Start one virtual user now. Returns { done: Promise<{ ok, error? }>, socket }; `done` never
 * rejects. The user closes its socket itself when it is done or has failed.
 */
function runStormUser(options) {
  const o = { ...DEFAULTS, ...options };
  const metrics = o.metrics || noMetrics;
  const socket = o.transport === 'ws'
    ? new WebSocket(o.url, { perMessageDeflate: o.perMessageDeflate, skipUTF8Validation: true })
    : openStormSocket(o.url, { perMessageDeflate: o.perMessageDeflate });
  const startedAt = Date.now();
  let phase = 'connecting';
  let settle;
  const done = new Promise((resolve) => { settle = resolve; });
  const timers = new Set();
  // Requests in flight: id -> { sentAt, needs: Set of 'ready' | 'result' | 'updated', request }
  const pending = new Map();
  let nextId = 1;
  let payloadBytes = 0;
  let readyAt = null;
  let firstUpdateSeen = false;
  let holdUntil = Infinity;
  let refreshing = 0; // method path: calls still going round

  const later = (ms, fn) => {
    const timer = setTimeout(() => { timers.delete(timer); fn(); }, ms);
    timers.add(timer);
    return timer;
  };
  const cancel = (timer) => { clearTimeout(timer); timers.delete(timer); };
  const send = (message) => socket.send(JSON.stringify(message));

  function finish(error) {
    if (phase === 'done') return;
    phase = 'done';
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
    metrics.count('bytes_payload', payloadBytes);
    const wire = socket._socket ? socket._socket.bytesRead : socket.bytesRead;
    if (wire) metrics.count('bytes_wire', wire);
    try {
      if (error && socket.readyState !== OPEN) socket.terminate();
      else socket.close();
    } catch (err) {
      // already closed
    }
    settle(error ? { ok: false, error } : { ok: true, sawUpdate: firstUpdateSeen });
  }

  function request(message, needs, onAnswered) {
    const id = String(nextId++);
    const entry = { sentAt: Date.now(), needs: new Set(needs), onAnswered, message };
    entry.timer = later(o.requestTimeoutMs, () => finish(`${message.msg} ${message.name || message.method} timed out after ${o.requestTimeoutMs} ms`));
    pending.set(id, entry);
    send({ ...message, id });
  }

  function answered(id, need, newestPacketAt) {
    const entry = pending.get(id);
    if (!entry) return;
    entry.needs.delete(need);
    if (need === 'result') entry.newestPacketAt = newestPacketAt;
    if (entry.needs.size) return;
    pending.delete(id);
    cancel(entry.timer);
    entry.onAnswered(entry);
  }

  // Reactive: every `sub` at once; ready when the last `ready` came; then hold.
  function subscribeDashboard() {
    const requests = dashboardRequests('reactive', o.liveLimit);
    const subscribedAt = Date.now();
    let left = requests.length;
    phase = 'subscribing';
    for (const message of requests) {
      request(message, ['ready'], () => {
        if (--left) return;
        readyAt = Date.now();
        metrics.record('ready_ms', readyAt - subscribedAt);
        phase = 'holding';
        holdUntil = readyAt + o.holdMs;
        later(o.holdMs, () => finish(null));
      });
    }
  }

  // Method: every call at once (the page load), then each again refreshMs after its answer.
  function refreshDashboard() {
    const requests = dashboardRequests('method', o.liveLimit);
    const calledAt = Date.now();
    holdUntil = calledAt + o.holdMs;
    let left = requests.length;
    phase = 'loading';
    const callAgain = (message) => {
      later(o.refreshMs, () => {
        if (Date.now() >= holdUntil) {
          if (--refreshing === 0) finish(null);
          return;
        }
        request(message, ['result', 'updated'], (entry) => {
          const now = Date.now();
          metrics.record('method_latency_ms', now - entry.sentAt);
          metrics.count('updates', 1);
          if (entry.newestPacketAt) metrics.record('delay_ms', now - entry.newestPacketAt);
          callAgain(message);
        });
      });
    };
    for (const message of requests) {
      request(message, ['result', 'updated'], (entry) => {
        const now = Date.now();
        metrics.record('method_latency_ms', now - entry.sentAt);
        metrics.count('updates', 1);
        if (--left === 0) {
          readyAt = now;
          metrics.record('ready_ms', now - calledAt);
          phase = 'holding';
          // Each call goes round again on its own; the user leaves when the last one stops.
          refreshing = requests.length;
          for (const each of requests) callAgain(each);
        }
      });
    }
  }

  function onData(info, receivedAt) {
    // Updates count from `ready` on (the initial `added`s are the snapshot), as the processor does.
    if (readyAt === null || o.path === 'method') return;
    metrics.count('updates', 1);
    if (info.collection !== VIEWS_COLLECTION || !info.newestPacketAt) return;
    const delay = receivedAt - info.newestPacketAt;
    metrics.record('delay_ms', delay);
    if (!firstUpdateSeen) {
      firstUpdateSeen = true;
      metrics.record('first_update_ms', receivedAt - readyAt);
    }
  }

  // The message names how far the user got: TCP, the websocket handshake, or DDP's `connected`.
  let openedAt = null;
  const connectTimer = later(o.connectTimeoutMs, () => finish(`DDP connect timed out after ${o.connectTimeoutMs} ms (${openedAt !== null ? 'websocket open, no DDP connected' : socket.stage ? `websocket not open: ${socket.stage}` : 'websocket not open'})`));

  socket.on('open', () => {
    openedAt = Date.now();
    metrics.record('open_ms', openedAt - startedAt);
    send({ msg: 'connect', version: '1', support: ['1', 'pre2', 'pre1'] });
  });
  socket.on('message', (data) => {
    if (phase === 'done') return;
    const receivedAt = Date.now();
    payloadBytes += data.length;
    const info = readOnce(data);
    if (!info) return;
    switch (info.msg) {
      case 'added':
      case 'changed':
      case 'removed':
        onData(info, receivedAt);
        break;
      case 'result':
        if (info.parsed) finish(`method ${pending.get(info.parsed.id)?.message.method || info.parsed.id} failed: ${info.parsed.error ? `${info.parsed.error.error}: ${info.parsed.error.reason || info.parsed.error.message || ''}` : 'no result'}`);
        else answered(info.id, 'result', info.newestPacketAt);
        break;
      case 'updated':
        for (const id of info.parsed.methods || []) answered(id, 'updated');
        break;
      case 'ready':
        for (const id of info.parsed.subs || []) answered(id, 'ready');
        break;
      case 'nosub': {
        const entry = pending.get(info.parsed.id);
        const error = info.parsed.error;
        finish(`subscription ${entry ? entry.message.name : info.parsed.id} stopped${error ? `: ${error.error}: ${error.reason || error.message || ''}` : ''}`);
        break;
      }
      case 'ping':
        send(info.parsed.id ? { msg: 'pong', id: info.parsed.id } : { msg: 'pong' });
        break;
      case 'connected':
        if (phase !== 'connecting') break;
        cancel(connectTimer);
        // As the processor's ddp.connect_ms: DDP `connect` -> `connected` (the handshake is open_ms).
        metrics.record('connect_ms', receivedAt - openedAt);
        metrics.record('joined_ms', receivedAt - startedAt);
        if (o.path === 'method') refreshDashboard();
        else subscribeDashboard();
        break;
      case 'failed':
        finish(`DDP version refused: ${JSON.stringify(info.parsed)}`);
        break;
      case 'error':
        finish(`DDP error: ${info.parsed.reason || JSON.stringify(info.parsed)}`);
        break;
      default:
        break;
    }
  });
  socket.on('error', (err) => finish(err.message || String(err)));
  socket.on('close', () => {
    if (phase === 'done') return;
    finish(phase === 'connecting' ? 'socket closed before DDP connected'
      : phase === 'holding' && Date.now() < holdUntil ? 'socket closed while holding the dashboard'
        : `socket closed while ${phase === 'subscribing' ? 'subscribing' : 'loading the dashboard'}`);
  });

  return { done, socket };
}

module.exports = { runStormUser, readDdpMessage, newestPacketAtIn, dashboardRequests, DEFAULTS, VIEWS_COLLECTION };
