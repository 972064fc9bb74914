#!/usr/bin/env node
'use strict';
/**
 * The fan-out floor: the same view documents, broadcast with no framework.
 *
 * The same core as the app (imports/core engine, the ingest pipeline and the simulator feed,
 * the same PublishHub computing each (view, params) snapshot once per 250 ms tick and diffing
 * its top-level fields), behind a bare `ws` server that speaks just enough DDP for the load
 * clients (connect/connected, sub -> added + ready, changed, unsub, ping/pong). Each change is
 * serialised ONCE per tick and the same string is written to every subscriber, which is the
 * least any server can do; no sessions, no merge box, no per-client copies.
 *
 *   node benchmarks/lib/bare-ws-server.js --port 3500 --rate 50 [--mode changed|full] [--compression off|threshold-fast] [--chunks on|off]
 *   prints "LISTENING <port>" when ready; GET /health returns counters.
 */
const http = require('http');
const { WebSocketServer } = require('ws');
const { createEngine } = require('../../imports/core/engine');
const { createPipeline } = require('../../imports/ingest/pipeline');
const { createSimulatorFeed } = require('../../imports/ingest/simulator-feed');
const { PublishHub } = require('../../imports/core/publish-hub');
const { CHUNK_DEFAULTS } = require('../../imports/core/field-chunks');
const { DEFAULT_SETTINGS } = require('../../imports/core/settings');
const { viewDocumentId } = require('../../imports/core/view-key');

function option(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : fallback;
}

const PORT = Number(option('port', 3500));
const RATE = Number(option('rate', 50));
const MODE = option('mode', 'changed'); // 'changed': changed fields only (as the hub); 'full': the whole document
const COMPRESSION = option('compression', 'off');
const INTERVAL_MS = Number(option('interval', 250));

// ws's own permessage-deflate, configured like the app's threshold-fast preset when asked.
const perMessageDeflate = COMPRESSION === 'off' ? false : {
  threshold: 1024,
  zlibDeflateOptions: { level: 1, memLevel: 8 },
  serverMaxWindowBits: 15,
  serverNoContextTakeover: true,
};

const pipelineHolder = {};
const feed = createSimulatorFeed({
  pipeline: { submitMessage: (...args) => pipelineHolder.pipeline.submitMessage(...args) },
  ratePerSecond: RATE,
});
const engine = createEngine({ channels: feed.channels });
pipelineHolder.pipeline = createPipeline({ engine });
const decorate = (snapshot) => ({ ...snapshot, generatedAt: Date.now(), newestPacketAt: engine.store.lastTime || null });
const hub = new PublishHub((name) => {
  const view = engine.views.get(name);
  if (!view) return null;
  return { normalizeParams: view.normalizeParams, versionFor: (params) => view.versionFor(params), snapshot: (params, now) => decorate(view.snapshot(params, now)) };
  // The same documents the app's publications send: big lists as chunks, keyed lists split.
}, { publishIntervalMs: INTERVAL_MS, viewIntervalMs: DEFAULT_SETTINGS.publish.viewIntervalMs, timeRefreshMs: DEFAULT_SETTINGS.publish.timeRefreshMs, chunkMinBytes: option('chunks', 'on') === 'off' ? 0 : CHUNK_DEFAULTS.minBytes });

const counters = { connections: 0, subscriptions: 0, messagesSent: 0, serialisations: 0 };
// One serialised string per change object: the hub hands every subscriber the same object.
const serialised = new WeakMap();

function encode(key, build) {
  let text = serialised.get(key);
  if (!text) {
    text = JSON.stringify(build());
    serialised.set(key, text);
    counters.serialisations++;
  }
  return text;
}

function documentSink(socket, collection, documentId, groupOf) {
  const send = (text) => { counters.messagesSent++; socket.send(text); };
  return {
    added: (id, fields) => send(encode(fields, () => ({ msg: 'added', collection, id: documentId || id, fields }))),
    changed: (id, fields) => {
      if (MODE === 'full' && collection === 'meshpulse.views') {
        const group = groupOf();
        send(encode(group.snapshot, () => ({ msg: 'changed', collection, id: documentId, fields: group.snapshot })));
      } else {
        send(encode(fields, () => ({ msg: 'changed', collection, id: documentId || id, fields })));
      }
    },
    removed: (id) => send(JSON.stringify({ msg: 'removed', collection, id: documentId || id })),
  };
}

const server = http.createServer((req, res) => {
  if (req.url === '/health') {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ status: 'ok', mode: MODE, compression: COMPRESSION, ...counters, publish: hub.stats(), ingest: pipelineHolder.pipeline.stats().ratePerSecond }));
    return;
  }
  res.statusCode = 404;
  res.end();
});
const wss = new WebSocketServer({ server, path: '/websocket', perMessageDeflate });

wss.on('connection', (socket) => {
  counters.connections++;
  const subscriptions = new Map();
  socket.on('message', (data) => {
    let msg;
    try { msg = JSON.parse(data.toString()); } catch (err) { return; }
    if (msg.msg === 'connect') socket.send(JSON.stringify({ msg: 'connected', session: String(counters.connections) }));
    else if (msg.msg === 'ping') socket.send(JSON.stringify(msg.id ? { msg: 'pong', id: msg.id } : { msg: 'pong' }));
    else if (msg.msg === 'sub') {
      const params = (msg.params && msg.params[0]) || {};
      const live = msg.name === 'packets.live';
      const viewName = live ? 'packets' : String(msg.name).replace(/^view\./, '');
      try {
        let handle = null;
        const groupOf = () => Array.from(hub.groups.values()).find((g) => g.docId === handle.id && g.shape === 'document');
        const sink = documentSink(socket, live ? 'meshpulse.live' : 'meshpulse.views', live ? null : viewDocumentId(viewName, params), groupOf);
        handle = hub.subscribe(viewName, params, sink, live ? 'rows' : 'document');
        subscriptions.set(msg.id, handle);
        counters.subscriptions++;
        socket.send(JSON.stringify({ msg: 'ready', subs: [msg.id] }));
      } catch (err) {
        socket.send(JSON.stringify({ msg: 'nosub', id: msg.id, error: { error: 'bad-params', reason: err.message } }));
      }
    } else if (msg.msg === 'unsub') {
      const handle = subscriptions.get(msg.id);
      if (handle) handle.stop();
      subscriptions.delete(msg.id);
    }
  });
  socket.on('close', () => {
    for (const handle of subscriptions.values()) handle.stop();
    subscriptions.clear();
  });
});

server.listen(PORT, '127.0.0.1', () => {
  feed.start();
  console.log(`LISTENING ${server.address().port}`);
});

const stop = () => {
  feed.stop();
  hub.close();
  wss.close();
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 2000).unref();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
