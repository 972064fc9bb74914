'use strict';
/**
 * imports/api/ddp/shared-send.js against stand-ins shaped like Meteor 3.0.x ddp-server
 * (Subscription, Session, socket). The real Meteor is checked by tests/e2e/ddp.test.js, which
 * fails if the running server does not take the shared path.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createSharedSender, inspectSend, textFrame, stringifyPlainDDP, isPlainJson } = require('../../imports/api/ddp/shared-send');
const { Receiver } = require('ws');
const { PublishHub } = require('../../imports/core/publish-hub');
const { createSharedDeflate } = require('../../imports/core/shared-deflate');
const zlib = require('zlib');

// DDPServer.publicationStrategies as Meteor 3.0.4 defines them.
const NO_MERGE = { useDummyDocumentView: false, useCollectionView: false, doAccountingForCollection: true };
const NO_MERGE_NO_HISTORY = { useDummyDocumentView: false, useCollectionView: false, doAccountingForCollection: false };
const SERVER_MERGE = { useCollectionView: true, doAccountingForCollection: true };

// Session#send as Meteor 3.0.4 writes it (packages/ddp-server/livedata_server.js).
const meteor304Send = {
  send: function (msg) {
    const self = this;
    if (self.socket) {
      if (Meteor._printSentDDP) Meteor._debug('Sent DDP', DDPCommon.stringifyDDP(msg));
      self.socket.send(DDPCommon.stringifyDDP(msg));
    }
  },
}.send;

function stringifyCounter() {
  const calls = [];
  const stringify = (msg) => {
    calls.push(msg);
    const copy = JSON.parse(JSON.stringify(msg, (k, v) => (v === undefined ? null : v)));
    return JSON.stringify(copy);
  };
  return { stringify, calls };
}

function fakePublication({ send = meteor304Send, deactivated = false } = {}) {
  const written = [];
  const publicCalls = [];
  const session = { socket: { send: (text) => written.push(text) }, send, _canSend: () => true };
  return {
    written,
    publicCalls,
    session,
    publication: {
      _session: session,
      _isDeactivated: () => deactivated,
      _idFilter: { idStringify: (id) => id },
      _documents: new Map(),
      added: (...args) => publicCalls.push(['added', ...args]),
      changed: (...args) => publicCalls.push(['changed', ...args]),
      removed: (...args) => publicCalls.push(['removed', ...args]),
    },
  };
}

const server = (strategy) => ({ getPublicationStrategy: () => strategy });

test('one serialization for every subscriber that receives the same message', () => {
  const { stringify, calls } = stringifyCounter();
  const sender = createSharedSender({ server: server(NO_MERGE), stringifyDDP: stringify, plainDDP: false });
  const subscribers = Array.from({ length: 50 }, () => fakePublication());
  const sinks = subscribers.map((s) => sender.relay(s.publication, 'meshpulse.views', 'stats|{}'));
  assert.ok(sinks.every((sink) => sink.shared));
  const shared = new Map();
  for (const sink of sinks) sink.changed('stats|{}', { transmissions: 12, gone: undefined }, shared);
  assert.equal(calls.length, 1, 'serialized once for 50 sessions');
  const expected = stringify({ msg: 'changed', collection: 'meshpulse.views', id: 'stats|{}', fields: { transmissions: 12, gone: undefined } });
  for (const s of subscribers) assert.deepEqual(s.written, [expected]);
  assert.equal(sender.stats().mode, 'shared');
  assert.equal(sender.stats().serializations, 1);
  assert.equal(sender.stats().sharedSends, 50);
});

test('per-subscriber ids get their own text; empty changes and stopped subscriptions send nothing', () => {
  const { stringify, calls } = stringifyCounter();
  const sender = createSharedSender({ server: server(NO_MERGE), stringifyDDP: stringify, plainDDP: false });
  const a = fakePublication();
  const b = fakePublication();
  const stopped = fakePublication({ deactivated: true });
  const shared = new Map();
  sender.relay(a.publication, 'meshpulse.views', 'rf|{}').added('rf', { x: 1 }, shared);
  sender.relay(b.publication, 'meshpulse.views', 'rf|{"window":3600}').added('rf', { x: 1 }, shared);
  sender.relay(stopped.publication, 'meshpulse.views', 'rf|{}').added('rf', { x: 1 }, shared);
  sender.relay(a.publication, 'meshpulse.views', 'rf|{}').changed('rf', {}, shared);
  assert.equal(calls.length, 2);
  assert.match(a.written[0], /"id":"rf\|\{\}"/);
  assert.match(b.written[0], /window/);
  assert.equal(stopped.written.length, 0);
  assert.equal(a.written.length, 1, 'an empty change is not sent (as Session#sendChanged)');
});

test('falls back to this.added/changed/removed when the internals are not as expected', () => {
  const cases = [
    { why: /NO_MERGE/, sender: { server: server(SERVER_MERGE) } },
    { why: /stringifyDDP/, sender: { server: server(NO_MERGE), stringifyDDP: null } },
    { why: /buffers or batches/, send: function (msg) { this._bufferedMessages.push(msg); this.socket.send(DDPCommon.stringifyDDP(msg)); } },
    { why: /neither Meteor 3.0's/, send: function (msg) { this.transport.write(msg); } },
    { why: /_isDeactivated/, strip: '_isDeactivated' },
    { why: /_session/, strip: '_session' },
    { why: /_documents/, strip: '_documents' },
    { why: /disabled/, sender: { server: server(NO_MERGE), enabled: false } },
  ];
  for (const c of cases) {
    const { stringify } = stringifyCounter();
    const sender = createSharedSender({ server: server(NO_MERGE), stringifyDDP: stringify, plainDDP: false, ...(c.sender || {}) });
    const fake = fakePublication(c.send ? { send: c.send } : {});
    if (c.strip) delete fake.publication[c.strip];
    const sink = sender.relay(fake.publication, 'meshpulse.views', 'stats|{}');
    assert.equal(sink.shared, false, String(c.why));
    sink.added('stats', { a: 1 }, new Map());
    sink.changed('stats', { a: 2 }, new Map());
    sink.removed('stats', new Map());
    assert.deepEqual(fake.publicCalls.map((call) => call[0]), ['added', 'changed', 'removed'], String(c.why));
    assert.deepEqual(fake.publicCalls[0].slice(1), ['meshpulse.views', 'stats|{}', { a: 1 }]);
    assert.equal(fake.written.length, 0);
    assert.match(sender.stats().fallbackReason, c.why);
    assert.notEqual(sender.stats().mode, 'shared');
  }
});

test('DDP logging on, or a caller without a memo, takes the public path', () => {
  const { stringify } = stringifyCounter();
  const meteor = { _printSentDDP: false };
  const sender = createSharedSender({ server: server(NO_MERGE), stringifyDDP: stringify, plainDDP: false, meteor });
  const fake = fakePublication();
  const sink = sender.relay(fake.publication, 'meshpulse.live', null);
  sink.added('h1', { a: 1 });
  meteor._printSentDDP = true;
  sink.added('h2', { a: 1 }, new Map());
  assert.equal(fake.publicCalls.length, 2);
  assert.equal(fake.written.length, 0);
});

test('a send wrapped in _checkPublishPromiseBeforeSend (a newer ddp-server shape) is honoured', () => {
  const { stringify } = stringifyCounter();
  const sender = createSharedSender({ server: server(NO_MERGE), stringifyDDP: stringify, plainDDP: false });
  const send = function (msg) { const self = this; this._checkPublishPromiseBeforeSend(() => { if (self.socket) self.socket.send(DDPCommon.stringifyDDP(msg)); }); };
  const fake = fakePublication({ send });
  const deferred = [];
  fake.session._checkPublishPromiseBeforeSend = (fn) => deferred.push(fn);
  const sink = sender.relay(fake.publication, 'meshpulse.views', 'stats|{}');
  assert.equal(sink.shared, true);
  sink.added('stats', { a: 1 }, new Map());
  assert.equal(fake.written.length, 0, 'waits for the publish promise like Session#send');
  deferred.forEach((fn) => fn());
  assert.equal(fake.written.length, 1);
  assert.equal(inspectSend(send).waitsForPublish, true);
});

test('through the hub: N subscribers of one group cost one serialization per tick, joiners reuse the cached snapshot text', () => {
  const { stringify, calls } = stringifyCounter();
  const sender = createSharedSender({ server: server(NO_MERGE), stringifyDDP: stringify, plainDDP: false });
  let version = 1;
  const hub = new PublishHub(() => ({ normalizeParams: (p) => p, versionFor: () => version, snapshot: () => ({ version, big: 'x'.repeat(1000) }) }), { publishIntervalMs: 0 });
  const fakes = Array.from({ length: 20 }, () => fakePublication());
  for (const f of fakes) hub.subscribe('stats', {}, sender.relay(f.publication, 'meshpulse.views', 'stats|{}'));
  assert.equal(calls.length, 1, 'the initial document text is made once for 20 joiners');
  version = 2;
  hub.tick();
  assert.equal(calls.length, 2, 'one change, one serialization');
  for (const f of fakes) {
    assert.equal(f.written.length, 2);
    assert.deepEqual(JSON.parse(f.written[1]), { msg: 'changed', collection: 'meshpulse.views', id: 'stats|{}', fields: { version: 2 } });
  }
});

test('NO_MERGE accounting: ids sent are remembered (so stopping removes them), removed ones forgotten; NO_MERGE_NO_HISTORY keeps none', () => {
  const { stringify } = stringifyCounter();
  const sender = createSharedSender({ server: server(NO_MERGE), stringifyDDP: stringify, plainDDP: false });
  const fake = fakePublication();
  const sink = sender.relay(fake.publication, 'meshpulse.live', null);
  const shared = new Map();
  sink.added('h1', { a: 1 }, shared);
  sink.added('h2', { a: 1 }, shared);
  sink.removed('h1', shared);
  assert.deepEqual([...fake.publication._documents.get('meshpulse.live')], ['h2']);
  const noHistory = createSharedSender({ server: server(NO_MERGE_NO_HISTORY), stringifyDDP: stringify, plainDDP: false });
  const other = fakePublication();
  delete other.publication._documents;
  const otherSink = noHistory.relay(other.publication, 'meshpulse.live', null);
  assert.equal(otherSink.shared, true);
  otherSink.added('h1', { a: 1 }, new Map());
  assert.equal(other.written.length, 1);
});

test('installSharedDeflate hands Meteor\'s permessage-deflate the shared zlib, or says why not', () => {
  const { installSharedDeflate } = require('../../imports/api/ddp/shared-send');
  const sharedDeflate = { zlib: { createDeflateRaw() {}, createInflateRaw() {} } };
  // As Meteor 3.0.4 builds it: permessage-deflate's configure() = Object.create(ext, {_options}).
  const configured = Object.create({ name: 'permessage-deflate', createServerSession() {} }, { _options: { value: {} } });
  const server = { stream_server: { server: { options: { faye_server_options: { extensions: [configured] } } } } };
  assert.deepEqual(installSharedDeflate(server, sharedDeflate), { installed: true, reason: null });
  assert.equal(configured._options.zlib, sharedDeflate.zlib);
  const off = { stream_server: { server: { options: { faye_server_options: { extensions: [] } } } } };
  assert.match(installSharedDeflate(off, sharedDeflate).reason, /no permessage-deflate/);
  assert.match(installSharedDeflate({}, sharedDeflate).reason, /not SockJS/);
  assert.match(installSharedDeflate({ stream_server: { server: { options: { faye_server_options: null } } } }, sharedDeflate).reason, /no websocket extensions/);
});

test('a tick\'s shared writes to one session are batched: its TCP socket is corked once and uncorked after the fan-out', () => {
  const { stringify } = stringifyCounter();
  const deferred = [];
  const sender = createSharedSender({ server: server(NO_MERGE), stringifyDDP: stringify, plainDDP: false, batchWrites: true, defer: (fn) => deferred.push(fn) });
  const fakes = Array.from({ length: 3 }, () => fakePublication());
  const log = [];
  for (const [i, f] of fakes.entries()) {
    const tcp = {
      writableCorked: 0,
      destroyed: false,
      cork() { this.writableCorked++; log.push(`cork ${i}`); },
      uncork() { this.writableCorked--; log.push(`uncork ${i}`); },
      write() {},
    };
    f.session.socket._session = { recv: { connection: tcp } };
    f.tcp = tcp;
  }
  const hub = new PublishHub((name) => (name === 'stats' ? { normalizeParams: () => ({}), versionFor: () => version, snapshot: () => ({ version, rows: version }) } : null), { publishIntervalMs: 0 });
  let version = 1;
  for (const f of fakes) hub.subscribe('stats', {}, sender.relay(f.publication, 'meshpulse.views', 'stats|{}'));
  version = 2;
  hub.tick();
  // Joining and the tick ran in one synchronous turn here: each socket corked once, none uncorked yet.
  assert.deepEqual(log, ['cork 0', 'cork 1', 'cork 2']);
  assert.equal(deferred.length, 1, 'one uncork pass for the whole turn');
  for (const f of fakes) assert.equal(f.written.length, 2, 'added, then changed, in order');
  deferred.shift()();
  assert.deepEqual(log.slice(3), ['uncork 0', 'uncork 1', 'uncork 2']);
  for (const f of fakes) assert.equal(f.tcp.writableCorked, 0);
  assert.equal(sender.stats().corkedSockets, 3);
  // A session without a reachable TCP socket is written to as before.
  const plain = fakePublication();
  hub.subscribe('stats', {}, sender.relay(plain.publication, 'meshpulse.views', 'stats|{}'));
  assert.equal(plain.written.length, 1);
  assert.equal(deferred.length, 0, 'nothing corked, nothing to uncork');
});

test('batching off: no socket is corked', () => {
  const { stringify } = stringifyCounter();
  const sender = createSharedSender({ server: server(NO_MERGE), stringifyDDP: stringify, plainDDP: false, batchWrites: false, defer: () => { throw new Error('not expected'); } });
  const f = fakePublication();
  let corks = 0;
  f.session.socket._session = { recv: { connection: { writableCorked: 0, cork: () => { corks++; }, uncork() {}, write() {} } } };
  sender.relay(f.publication, 'meshpulse.views', 'stats|{}').added('stats|{}', { a: 1 }, new Map());
  assert.equal(corks, 0);
  assert.equal(f.written.length, 1);
});

// --- Pre-framed writes -----------------------------------------------------------------------

/** The text messages a websocket client reads from `bytes` (ws's own frame parser, client side). */
function readFrames(bytes) {
  const messages = [];
  const receiver = new Receiver({ isServer: false, maxPayload: 0 });
  receiver.on('message', (data, isBinary) => messages.push({ text: data.toString('utf8'), isBinary }));
  receiver.write(bytes);
  return messages;
}

test('textFrame: an unmasked final text frame a websocket client reads back, at every length encoding', () => {
  for (const length of [0, 5, 125, 126, 127, 1000, 65535, 65536, 70000]) {
    const text = 'x'.repeat(length);
    const [message] = readFrames(textFrame(text));
    assert.equal(message.isBinary, false);
    assert.equal(message.text, text, `length ${length}`);
  }
  // Length is counted in UTF-8 bytes, not characters (123 characters, 129 bytes: a 16-bit length).
  const text = `"name":"Réseau Île ✓ 📡"${'a'.repeat(100)}`;
  assert.ok(Buffer.byteLength(text) > 125 && text.length <= 125);
  assert.equal(readFrames(textFrame(text))[0].text, text);
});

// A DDP session over SockJS 0.3.24 + faye-websocket 0.11.4, as Meteor 3.0.x builds it: raw
// /websocket (RawWebsocketSessionReceiver) or a SockJS-framed websocket (Session + WebSocketReceiver).
function websocketPublication(kind, { extensionSessions = [] } = {}) {
  const wire = []; // every byte chunk that reaches the TCP socket, in order
  const tcp = { writable: true, destroyed: false, writableCorked: 0, cork() { this.writableCorked++; }, uncork() { this.writableCorked--; }, write(chunk) { wire.push(Buffer.from(chunk)); return true; } };
  const driver = { readyState: 1, io: { readable: true }, _masking: false, _extensions: { _sessions: extensionSessions } };
  // What faye would put on the wire for ws.send(text) (the standard path).
  const ws = { readyState: 1, _driver: driver, _stream: tcp, send: (text) => { wire.push(textFrame(text)); return true; } };
  let sockjsSession;
  if (kind === 'raw') {
    sockjsSession = { readyState: 1, ws, recv: { connection: tcp, protocol: 'websocket-raw' }, send: (text) => ws.send(text) };
  } else {
    const recv = {
      protocol: 'websocket',
      ws,
      connection: tcp,
      // GenericReceiver#doSendBulk: each message quoted (utils.quote), one a[...] frame.
      doSendBulk(messages) { return this.doSendFrame(`a[${messages.map((m) => JSON.stringify(m)).join(',')}]`); },
      doSendFrame(payload) { ws.send(payload); return true; },
    };
    sockjsSession = { readyState: 1, send_buffer: [], recv, send(text) { this.send_buffer.push(text); this.recv.doSendBulk(this.send_buffer.splice(0)); } };
  }
  const fake = fakePublication();
  fake.session.socket = { _session: sockjsSession, send: (text) => sockjsSession.send(text) };
  return { ...fake, wire, tcp, driver, ws, sockjsSession };
}

test('pre-framed: one frame per message for every raw and SockJS websocket session, byte for byte what faye would send', () => {
  const { stringify, calls } = stringifyCounter();
  const sender = createSharedSender({ server: server(NO_MERGE), stringifyDDP: stringify, plainDDP: false, preFramed: true, batchWrites: false });
  const raw = Array.from({ length: 20 }, () => websocketPublication('raw'));
  const sockjs = Array.from({ length: 20 }, () => websocketPublication('sockjs'));
  const shared = new Map();
  const fields = { newestPacketAt: 1763900000000, name: 'Île ✓ "quoted" \u2028' };
  for (const s of [...raw, ...sockjs]) sender.relay(s.publication, 'meshpulse.views', 'stats|{}').changed('stats|{}', fields, shared);
  assert.equal(calls.length, 1, 'serialized once');
  const stats = sender.stats();
  assert.equal(stats.framedWrites, 40);
  assert.equal(stats.framesBuilt, 2, 'one frame per transport kind');
  assert.deepEqual(stats.framedFallbacks, {});
  const text = stringify({ msg: 'changed', collection: 'meshpulse.views', id: 'stats|{}', fields });
  // Every session got the same Buffer (built once), and it reads back as the message.
  assert.ok(raw.every((s) => s.wire.length === 1 && s.wire[0].equals(raw[0].wire[0])));
  assert.deepEqual(readFrames(raw[0].wire[0]).map((m) => m.text), [text]);
  assert.deepEqual(readFrames(sockjs[0].wire[0]).map((m) => m.text), [`a[${JSON.stringify(text)}]`]);
  // ... and it is what the standard path writes.
  const standard = [websocketPublication('raw'), websocketPublication('sockjs')];
  const off = createSharedSender({ server: server(NO_MERGE), stringifyDDP: stringify, plainDDP: false, preFramed: false, batchWrites: false });
  for (const s of standard) off.relay(s.publication, 'meshpulse.views', 'stats|{}').changed('stats|{}', fields, new Map());
  assert.ok(standard[0].wire[0].equals(raw[0].wire[0]));
  assert.ok(standard[1].wire[0].equals(sockjs[0].wire[0]));
  assert.equal(off.stats().framedWrites, 0);
  assert.equal(off.stats().preFramed, false);
});

test('pre-framed: a session falls back to its own send when deflate is negotiated, it is not open, or SockJS holds queued messages', () => {
  const { stringify } = stringifyCounter();
  const sender = createSharedSender({ server: server(NO_MERGE), stringifyDDP: stringify, plainDDP: false, preFramed: true, batchWrites: false });
  // permessage-deflate negotiated, but no shared deflate handed to the sender: frames differ per session.
  const deflated = websocketPublication('raw', { extensionSessions: [[{ name: 'permessage-deflate' }, {}]] });
  const closing = websocketPublication('raw');
  const queued = websocketPublication('sockjs');
  const polling = fakePublication(); // long-polling: no websocket under the session
  polling.session.socket._session = { recv: { protocol: 'xhr-polling', connection: null } };
  const sinks = [deflated, closing, queued, polling].map((s) => sender.relay(s.publication, 'meshpulse.views', 'stats|{}'));
  const shared = new Map();
  sinks[1].changed('stats|{}', { a: 1 }, shared); // open: framed
  closing.driver.readyState = 2; // closing: the standard path decides what to do
  queued.sockjsSession.send_buffer.push('"earlier"'); // a message SockJS has not flushed yet must go first
  queued.sockjsSession.send = function send(text) { this.send_buffer.push(text); }; // (no receiver to flush to)
  for (const sink of sinks) sink.changed('stats|{}', { a: 2 }, shared);
  const stats = sender.stats();
  assert.equal(stats.framedWrites, 1, 'only the open, extension-free session before it closed');
  assert.deepEqual(stats.framedFallbacks, { 'permessage-deflate is active and the shared deflate is not installed': 1, 'transport xhr-polling is not a websocket': 1 });
  assert.equal(deflated.wire.length, 1, 'the deflate session went through ws.send');
  assert.equal(closing.wire.length, 2);
  assert.equal(queued.wire.length, 0);
  assert.deepEqual(queued.sockjsSession.send_buffer.length, 2, 'queued behind the earlier message, not written past it');
  assert.equal(polling.written.length, 1);
});

test('pre-framed writes ride the tick\'s cork: one frame per message, all in the session\'s batch', () => {
  const { stringify } = stringifyCounter();
  const deferred = [];
  const sender = createSharedSender({ server: server(NO_MERGE), stringifyDDP: stringify, plainDDP: false, preFramed: true, batchWrites: true, defer: (fn) => deferred.push(fn) });
  const s = websocketPublication('raw');
  const sink = sender.relay(s.publication, 'meshpulse.views', 'stats|{}');
  const shared = new Map();
  sink.added('stats|{}', { a: 1 }, shared);
  sink.changed('stats|{}', { a: 2 }, shared);
  assert.equal(s.tcp.writableCorked, 1);
  assert.deepEqual(readFrames(Buffer.concat(s.wire)).map((m) => JSON.parse(m.text).msg), ['added', 'changed']);
  deferred.shift()();
  assert.equal(s.tcp.writableCorked, 0);
});

// permessage-deflate 0.1.7 (Meteor 3.0.x) and permessage-deflate2 0.1.8 (3.1.1+, threshold 1024),
// each driving the shared deflate, as faye-websocket's driver runs a negotiated session.
for (const { name, options } of [{ name: 'permessage-deflate', options: {} }, { name: 'permessage-deflate2', options: { threshold: 1024 } }]) {
  test(`pre-framed with ${name}: the frame is byte for byte what the package emits through the shared deflate`, () => {
    const sharedDeflate = createSharedDeflate();
    const extension = require(name).configure({ ...options, zlib: sharedDeflate.zlib });
    const negotiated = () => {
      const session = extension.createServerSession([{}]);
      session.generateResponse();
      return [[extension, session]];
    };
    const { stringify } = stringifyCounter();
    const sender = createSharedSender({ server: server(NO_MERGE), stringifyDDP: stringify, plainDDP: false, preFramed: true, batchWrites: false, sharedDeflate });
    const sessions = ['raw', 'raw', 'sockjs', 'sockjs'].map((kind) => websocketPublication(kind, { extensionSessions: negotiated() }));
    const sinks = sessions.map((s) => sender.relay(s.publication, 'meshpulse.views', 'nodes|{}'));
    const small = { a: 1 };
    const large = { rows: Array.from({ length: 200 }, (_, i) => ({ node: `node-${i}`, name: `Île ${i} ✓`, snr: i % 13 })) };
    for (const fields of [small, large]) {
      const shared = new Map();
      for (const sink of sinks) sink.changed('nodes|{}', fields, shared);
    }
    const stats = sender.stats();
    assert.deepEqual(stats.framedFallbacks, {});
    assert.equal(stats.framedWrites, 8);
    assert.equal(stats.framesBuilt, 4, 'one frame per message per transport');
    // Pre-framed messages go to every session of the route: deflated at the session's level at
    // once, never at the shared deflate's first-use level (kept for a session's own sends).
    assert.equal(sharedDeflate.stats().compressedFirstUse, 0);
    assert.equal(sharedDeflate.stats().compressed, 2, 'the large message, once per transport');
    // What the package itself emits for each message (the standard path), framed as faye does.
    for (const [index, s] of sessions.entries()) {
      const [, session] = s.driver._extensions._sessions[0];
      for (const [at, fields] of [small, large].entries()) {
        const text = stringify({ msg: 'changed', collection: 'meshpulse.views', id: 'nodes|{}', fields });
        const payload = s === sessions[0] || s === sessions[1] ? text : `a[${JSON.stringify(text)}]`;
        let emitted = null;
        session.processOutgoingMessage({ rsv1: false, rsv2: false, rsv3: false, opcode: 1, data: Buffer.from(payload) }, (err, message) => { emitted = err || message; });
        assert.ok(emitted && !(emitted instanceof Error), 'the package answered synchronously');
        assert.ok(s.wire[at].equals(textFrame(emitted.data, emitted.rsv1)), `session ${index}, message ${at}`);
        // ... and it inflates back to the message.
        const body = s.wire[at].subarray(s.wire[at][1] === 126 ? 4 : 2);
        const plain = emitted.rsv1 ? zlib.inflateRawSync(Buffer.concat([body, Buffer.from([0, 0, 0xff, 0xff])]), { finishFlush: zlib.constants.Z_SYNC_FLUSH }) : body;
        assert.equal(plain.toString(), payload);
      }
    }
    if (name === 'permessage-deflate2') assert.equal(sessions[0].wire[0][0], 0x81, 'under the package threshold: a plain frame');
    else assert.equal(sessions[0].wire[0][0], 0xc1, 'permessage-deflate 0.1.7 deflates every message');
    assert.equal(sessions[0].wire[1][0], 0xc1);
  });
}

test('pre-framed with deflate: a message still inside permessage-deflate makes the session use its own send', () => {
  const sharedDeflate = createSharedDeflate();
  const extension = require('permessage-deflate').configure({ zlib: sharedDeflate.zlib });
  const session = extension.createServerSession([{}]);
  session.generateResponse();
  const { stringify } = stringifyCounter();
  const sender = createSharedSender({ server: server(NO_MERGE), stringifyDDP: stringify, plainDDP: false, preFramed: true, batchWrites: false, sharedDeflate });
  const s = websocketPublication('raw', { extensionSessions: [[extension, session]] });
  const sink = sender.relay(s.publication, 'meshpulse.views', 'stats|{}');
  session._queueOut.push(['queued', () => {}]);
  sink.changed('stats|{}', { a: 1 }, new Map());
  assert.equal(sender.stats().framedWrites, 0);
  session._queueOut.length = 0;
  session._lockOut = true;
  sink.changed('stats|{}', { a: 2 }, new Map());
  assert.equal(sender.stats().framedWrites, 0);
  session._lockOut = false;
  sink.changed('stats|{}', { a: 3 }, new Map());
  assert.equal(sender.stats().framedWrites, 1);
});

test('batch: a tick\'s row messages are serialized and framed once, and written to each session in one go, the same bytes as one by one', () => {
  const { stringify, calls } = stringifyCounter();
  const sender = createSharedSender({ server: server(NO_MERGE), stringifyDDP: stringify, plainDDP: false, preFramed: true, batchWrites: false });
  const sessions = [...Array.from({ length: 6 }, () => websocketPublication('raw')), ...Array.from({ length: 6 }, () => websocketPublication('sockjs'))];
  const sinks = sessions.map((s) => sender.relay(s.publication, 'meshpulse.live'));
  assert.ok(sinks.every((sink) => typeof sink.batch === 'function'));
  const messages = [
    { method: 'removed', id: 'aa01' },
    { method: 'added', id: 'bb02', fields: { hash: 'bb02', name: 'Île ✓', time: 1763900000000 } },
    { method: 'changed', id: 'cc03', fields: { observers: 3, gone: undefined } },
    { method: 'changed', id: 'dd04', fields: {} }, // empty: sends nothing
  ];
  for (const s of sessions) s.publication._documents.set('meshpulse.live', new Set(['aa01', 'cc03']));
  const shared = new Map();
  for (const sink of sinks) sink.batch(messages, shared);
  assert.equal(calls.length, 3, 'three messages serialized once for twelve sessions');
  const stats = sender.stats();
  assert.equal(stats.framesBuilt, 6, 'one frame per message per transport');
  assert.equal(stats.batchFramedWrites, 12, 'one write per session');
  assert.equal(stats.framedWrites, 36, 'counted per message');
  assert.equal(stats.sharedSends, 36);
  for (const s of sessions) {
    assert.equal(s.wire.length, 1);
    assert.deepEqual([...s.publication._documents.get('meshpulse.live')].sort(), ['bb02', 'cc03'], 'ids accounted as Subscription#added/removed do');
  }
  // One by one through the same sender path: the same bytes, in the same order.
  const single = createSharedSender({ server: server(NO_MERGE), stringifyDDP: stringify, plainDDP: false, preFramed: true, batchWrites: false });
  for (const kind of ['raw', 'sockjs']) {
    const s = websocketPublication(kind);
    const sink = single.relay(s.publication, 'meshpulse.live');
    const memo = new Map();
    sink.removed('aa01', memo);
    sink.added('bb02', messages[1].fields, memo);
    sink.changed('cc03', messages[2].fields, memo);
    sink.changed('dd04', {}, memo);
    const batched = sessions.find((x) => x.sockjsSession.recv.protocol === (kind === 'raw' ? 'websocket-raw' : 'websocket'));
    assert.ok(Buffer.concat(s.wire).equals(batched.wire[0]), `${kind}: batch bytes = one-by-one bytes`);
    assert.equal(readFrames(batched.wire[0]).length, 3);
  }
});

test('batch: sessions that cannot be pre-framed get the texts one by one; stopped ones nothing; no memo means the public path', () => {
  const { stringify } = stringifyCounter();
  const sender = createSharedSender({ server: server(NO_MERGE), stringifyDDP: stringify, plainDDP: false, preFramed: true, batchWrites: false });
  const plain = fakePublication();
  const stopped = fakePublication({ deactivated: true });
  const messages = [{ method: 'added', id: 'x1', fields: { a: 1 } }, { method: 'removed', id: 'x0' }];
  const shared = new Map();
  sender.relay(plain.publication, 'meshpulse.live').batch(messages, shared);
  sender.relay(stopped.publication, 'meshpulse.live').batch(messages, shared);
  assert.deepEqual(plain.written, [
    stringify({ msg: 'added', collection: 'meshpulse.live', id: 'x1', fields: { a: 1 } }),
    stringify({ msg: 'removed', collection: 'meshpulse.live', id: 'x0' }),
  ]);
  assert.deepEqual(stopped.written, []);
  const outside = fakePublication();
  sender.relay(outside.publication, 'meshpulse.live').batch(messages, null);
  assert.deepEqual(outside.publicCalls, [['added', 'meshpulse.live', 'x1', { a: 1 }], ['removed', 'meshpulse.live', 'x0']]);
});

test('batch through the hub: a live feed\'s subscribers each get one write per tick, carrying every row message', () => {
  const { createEngine } = require('../../imports/core/engine');
  const { simulatedReports } = require('../helpers/mesh');
  const { reports, channels } = simulatedReports({ seed: 5, count: 200 });
  const engine = createEngine({ channels });
  const hub = new PublishHub((name) => engine.views.get(name), { publishIntervalMs: 0 });
  const { stringify } = stringifyCounter();
  const sender = createSharedSender({ server: server(NO_MERGE), stringifyDDP: stringify, plainDDP: false, preFramed: true, batchWrites: false });
  for (const report of reports.slice(0, 40)) engine.ingest(report);
  const sessions = Array.from({ length: 5 }, () => websocketPublication('raw'));
  for (const s of sessions) hub.subscribe('packets', { limit: 8 }, sender.relay(s.publication, 'meshpulse.live'), 'rows');
  for (const s of sessions) s.wire.length = 0;
  for (const report of reports.slice(40, 80)) engine.ingest(report);
  hub.tick();
  const frames = readFrames(sessions[0].wire[0]);
  assert.ok(frames.length > 1, 'several row messages in the tick');
  for (const s of sessions) {
    assert.equal(s.wire.length, 1, 'one write per session per tick');
    assert.ok(s.wire[0].equals(sessions[0].wire[0]));
  }
  for (const frame of frames) assert.equal(JSON.parse(frame.text).collection, 'meshpulse.live');
});

// DDPCommon.stringifyDDP (Meteor 3.0.4) for values EJSON leaves alone: deep copy (undefined
// kept), undefined fields moved to `cleared`, empty `fields` dropped, then JSON.stringify.
function referenceStringifyDDP(msg) {
  const clone = (v) => (Array.isArray(v) ? v.map(clone) : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).map((k) => [k, clone(v[k])])) : v);
  const copy = clone(msg);
  if (Object.prototype.hasOwnProperty.call(msg, 'fields')) {
    const cleared = [];
    for (const key of Object.keys(msg.fields)) if (msg.fields[key] === undefined) { cleared.push(key); delete copy.fields[key]; }
    if (cleared.length) copy.cleared = cleared;
    if (Object.keys(copy.fields).length === 0) delete copy.fields;
  }
  return JSON.stringify(copy);
}

test('plain DDP text: the same as stringifyDDP for plain JSON fields, and refused (null) for anything EJSON converts', () => {
  const base = { msg: 'changed', collection: 'meshpulse.views', id: 'rf|{}' };
  const plainCases = [
    { a: 1, b: 'Île ✓ "q" \u2028', c: null, d: [1, [2, { e: false }], null], f: { g: { h: -0 } } },
    { a: 1, gone: undefined, b: [undefined, 2], c: { d: undefined, e: 1 } },
    { gone: undefined, alsoGone: undefined },
    {},
    { 'nodes~': { chunks: ['x1'], path: [], base: null }, 'nodes~x1': [{ pubKey: 'ab', lastSeen: 1763900000000 }] },
  ];
  for (const fields of plainCases) {
    for (const msg of [{ ...base, fields }, { ...base, msg: 'added', fields }]) {
      assert.equal(stringifyPlainDDP(msg), referenceStringifyDDP(msg), JSON.stringify(fields));
    }
  }
  assert.equal(stringifyPlainDDP({ msg: 'removed', collection: 'meshpulse.live', id: 'aa' }), referenceStringifyDDP({ msg: 'removed', collection: 'meshpulse.live', id: 'aa' }));
  class Point { constructor() { this.x = 1; } }
  const refused = [
    { when: new Date(0) }, { n: NaN }, { n: [1, Infinity] }, { deep: { n: -Infinity } }, { bytes: new Uint8Array(2) },
    { $date: 1 }, { wrapped: { $date: 1 } }, { wrapped: [{ $escape: {} }] }, { point: new Point() }, { fn: () => 1 }, { re: /x/ },
    { big: 1n }, { map: new Map() },
  ];
  for (const fields of refused) assert.equal(stringifyPlainDDP({ ...base, fields }), null, Object.keys(fields)[0]);
  assert.equal(isPlainJson({ a: [{ b: 'c' }] }), true);
  assert.equal(isPlainJson(Object.create({ inherited: 1 })), false);
});

test('plain DDP text through the sender: plain fields skip stringifyDDP, others still take it; the same text either way', () => {
  const { stringify, calls } = stringifyCounter();
  const sender = createSharedSender({ server: server(NO_MERGE), stringifyDDP: stringify });
  const s = fakePublication();
  const sink = sender.relay(s.publication, 'meshpulse.views', 'stats|{}');
  sink.changed('stats|{}', { transmissions: 12, gone: undefined }, new Map());
  assert.equal(calls.length, 0, 'plain fields: no EJSON');
  assert.equal(s.written[0], referenceStringifyDDP({ msg: 'changed', collection: 'meshpulse.views', id: 'stats|{}', fields: { transmissions: 12, gone: undefined } }));
  sink.changed('stats|{}', { at: new Date(5) }, new Map());
  assert.equal(calls.length, 1, 'a Date goes through stringifyDDP');
  assert.equal(sender.stats().plainSerializations, 1);
  assert.equal(sender.stats().serializations, 2);
  const off = createSharedSender({ server: server(NO_MERGE), stringifyDDP: stringify, plainDDP: false });
  const t = fakePublication();
  off.relay(t.publication, 'meshpulse.views', 'stats|{}').changed('stats|{}', { transmissions: 12 }, new Map());
  assert.equal(calls.length, 2, 'plainDDP false: always stringifyDDP');
});

// --- Meteor 3.5: counted, queueing Session#send (DDP session resumption) -------------------

// What Meteor 3.5's Session#send reads from its module scope, for the stand-in below to run.
const ignoredMsgsForSessionOutOfDateCheck = ['ping', 'pong'];
const DDPCommon = { stringifyDDP: (msg) => JSON.stringify(msg) };
const Meteor = { _printSentDDP: false, _debug() {}, clearTimeout() {} };

// Session#send as a Meteor 3.5 server runs it (packages/ddp-server/livedata_server.js, as
// compiled in a 3.5 ddp-server bundle), executable here with the stand-ins above.
const meteor35Send = {
  send: function(msg) {
    const self = this;
    const isIgnoredMsg = ignoredMsgsForSessionOutOfDateCheck.includes(msg.msg);
    if (self.messageQueue && !isIgnoredMsg) {
      self.messageQueue.push(msg);
      if (self.messageQueue.length > self.options.maxMessageQueueLength) {
        Meteor.clearTimeout(self._removeTimeoutHandle);
        self._pendingRemoveFunction();
      }
      return;
    }
    if (self.socket) {
      const stringMsg = DDPCommon.stringifyDDP(msg);
      if (Meteor._printSentDDP) Meteor._debug("Sent DDP", stringMsg);
      if (!isIgnoredMsg) {
        self.sentCount++;
      }
      self.socket.send(stringMsg);
    }
  },
}.send;

/** A Meteor 3.5 session stand-in with a TCP socket under its SockJS socket (for corking). */
function meteor35Publication() {
  const fake = fakePublication({ send: meteor35Send });
  Object.assign(fake.session, { sentCount: 0, messageQueue: null, options: { maxMessageQueueLength: 100 }, _pendingRemoveFunction() { fake.removed = true; } });
  return fake;
}

function fakeTcp(log, name) {
  return { name, writableCorked: 0, destroyed: false, cork() { this.writableCorked++; log.push(`cork ${name}`); }, uncork() { this.writableCorked--; }, write() { throw new Error('framed writes are off here'); } };
}

test('Meteor 3.5\'s Session#send is recognized, whatever its layout; any other change to it is not', () => {
  assert.deepEqual(inspectSend(meteor35Send), { ok: true, waitsForPublish: false, counted: true, reason: null });
  // The same function as its source might be written: method shorthand, var, single quotes, comments.
  const source = { send(msg) { // Send a message.
    var self = this;
    const isIgnoredMsg = ignoredMsgsForSessionOutOfDateCheck.includes(msg.msg);
    if (self.messageQueue && !isIgnoredMsg) { self.messageQueue.push(msg); if (self.messageQueue.length > self.options.maxMessageQueueLength) { Meteor.clearTimeout(self._removeTimeoutHandle); self._pendingRemoveFunction(); } return; }
    if (self.socket) { const stringMsg = DDPCommon.stringifyDDP(msg); if (Meteor._printSentDDP) Meteor._debug('Sent DDP', stringMsg); if (!isIgnoredMsg) { self.sentCount++; } self.socket.send(stringMsg); }
  } }.send;
  assert.equal(inspectSend(source).counted, true);
  // One more side effect (here a second counter) is a send we do not reproduce: the public path.
  const changed = { send(msg) {
    const self = this;
    const isIgnoredMsg = ignoredMsgsForSessionOutOfDateCheck.includes(msg.msg);
    if (self.messageQueue && !isIgnoredMsg) { self.messageQueue.push(msg); return; }
    if (self.socket) { const stringMsg = DDPCommon.stringifyDDP(msg); if (!isIgnoredMsg) { self.sentCount++; } self.bytesSent += stringMsg.length; self.socket.send(stringMsg); }
  } }.send;
  assert.equal(inspectSend(changed).ok, false);
  const sender = createSharedSender({ server: server(NO_MERGE), stringifyDDP: DDPCommon.stringifyDDP, plainDDP: false });
  const fake = fakePublication({ send: changed });
  assert.equal(sender.relay(fake.publication, 'meshpulse.views', 'stats|{}').shared, false);
  assert.match(sender.stats().fallbackReason, /neither Meteor 3\.0's .* nor Meteor 3\.5's/);
});

test('Meteor 3.5: shared writes count as Session#send counts, queue while the session is away, and follow a resumed session to its new socket', () => {
  const sender = createSharedSender({ server: server(NO_MERGE), stringifyDDP: DDPCommon.stringifyDDP, plainDDP: false, batchWrites: true, preFramed: false, defer: () => {} });
  const publicPath = createSharedSender({ server: server(NO_MERGE), stringifyDDP: DDPCommon.stringifyDDP, plainDDP: false, enabled: false });
  const fake = meteor35Publication();
  // The reference: the same messages through Session#send itself (what the public path ends in).
  const reference = meteor35Publication();
  const sink = sender.relay(fake.publication, 'meshpulse.views', 'stats|{}');
  assert.equal(sink.shared, true);
  assert.equal(publicPath.relay(reference.publication, 'meshpulse.views', 'stats|{}').shared, false);
  const viaSend = (msg) => reference.session.send(msg);
  const log = [];
  const firstTcp = fakeTcp(log, 'first');
  fake.session.socket._session = { recv: { connection: firstTcp } };

  sink.added('stats', { a: 1 }, new Map());
  viaSend({ msg: 'added', collection: 'meshpulse.views', id: 'stats|{}', fields: { a: 1 } });
  sink.changed('stats', { a: 2 }, new Map());
  viaSend({ msg: 'changed', collection: 'meshpulse.views', id: 'stats|{}', fields: { a: 2 } });
  assert.deepEqual(fake.written, reference.written, 'the same texts as Session#send');
  assert.equal(fake.session.sentCount, 2);
  assert.equal(fake.session.sentCount, reference.session.sentCount, 'counted as Session#send counts');
  assert.deepEqual(log, ['cork first'], 'corked on the first shared write of the turn');

  // Disconnected, in the grace period: messages are queued as objects, nothing written or counted.
  fake.session.socket = null;
  fake.session.messageQueue = [];
  sink.changed('stats', { a: 3 }, new Map());
  const live = sender.relay(fake.publication, 'meshpulse.live', null);
  live.batch([{ method: 'added', id: 'h1', fields: { t: 1 } }, { method: 'changed', id: 'h0', fields: {} }, { method: 'removed', id: 'h9' }], new Map());
  assert.equal(fake.written.length, 2);
  assert.equal(fake.session.sentCount, 2);
  assert.deepEqual(fake.session.messageQueue, [
    { msg: 'changed', collection: 'meshpulse.views', id: 'stats|{}', fields: { a: 3 } },
    { msg: 'added', collection: 'meshpulse.live', id: 'h1', fields: { t: 1 } },
    { msg: 'removed', collection: 'meshpulse.live', id: 'h9' },
  ], 'queued in order, the empty change left out (as Subscription#changed)');
  assert.equal(sender.stats().queuedSends, 3);

  // Resumed on a new socket (Meteor flushes its queue itself): writes go there, corking its TCP socket.
  const written = [];
  const secondTcp = fakeTcp(log, 'second');
  fake.session.socket = { send: (text) => written.push(text), _session: { recv: { connection: secondTcp } } };
  fake.session.messageQueue = null;
  firstTcp.writableCorked = 0;
  sink.changed('stats', { a: 4 }, new Map());
  live.batch([{ method: 'added', id: 'h2', fields: { t: 2 } }, { method: 'removed', id: 'h1' }], new Map());
  assert.deepEqual(written.map((text) => JSON.parse(text).msg), ['changed', 'added', 'removed']);
  assert.equal(fake.session.sentCount, 5, 'every message written is counted, batches included');
  assert.deepEqual(log, ['cork first', 'cork second'], 'the old socket is never written to or corked again');
  assert.equal(fake.written.length, 2);
});

test('Meteor 3.5: a session whose queue overflows while away is dropped by Session#send itself', () => {
  const sender = createSharedSender({ server: server(NO_MERGE), stringifyDDP: DDPCommon.stringifyDDP, plainDDP: false });
  const fake = meteor35Publication();
  fake.session.options.maxMessageQueueLength = 2;
  fake.session.socket = null;
  fake.session.messageQueue = [];
  const sink = sender.relay(fake.publication, 'meshpulse.live', null);
  for (let i = 0; i < 3; i++) sink.added(`h${i}`, { i }, new Map());
  assert.equal(fake.removed, true, 'the third queued message overflowed the queue: the session goes');
});

test('Meteor 3.5 keeps no SockJS server: the shared deflate is installed through the first websocket connection', () => {
  const { installSharedDeflate } = require('../../imports/api/ddp/shared-send');
  const sharedDeflate = createSharedDeflate();
  // As Meteor 3.1.1+ configures it (packages/ddp-server/stream_server.js websocketExtensions()).
  const configured = require('permessage-deflate2').configure({ threshold: 1024, level: zlib.constants.Z_BEST_SPEED, memLevel: zlib.constants.Z_MIN_MEMLEVEL, noContextTakeover: true, maxWindowBits: zlib.constants.Z_MIN_WINDOWBITS });
  // A StreamServer without `server` (Meteor 3.5): register() calls back for current and new sockets.
  const callbacks = [];
  const streamServer = { register: (callback) => callbacks.push(callback) };
  const connect = (socket) => callbacks.forEach((callback) => callback(socket));
  // Every websocket's driver holds the configured extensions by name (websocket-extensions).
  const websocket = (raw) => {
    const ws = { _driver: { _extensions: { _byName: { 'permessage-deflate': configured }, _sessions: [] } } };
    return { _session: raw ? { ws, recv: {} } : { recv: { ws } } };
  };
  const results = [];
  const answer = installSharedDeflate({ stream_server: streamServer }, sharedDeflate, { onLateResult: (result) => results.push(result), transport: undefined });
  assert.equal(answer.installed, false);
  assert.equal(answer.pending, true);
  connect({ _session: { recv: { protocol: 'xhr-polling' } } }); // long-polling: no websocket to look at
  assert.deepEqual(results, [], 'still waiting');
  assert.equal(configured._options.zlib, undefined);
  connect(websocket(false)); // a SockJS-framed websocket
  assert.equal(results.length, 1);
  assert.equal(results[0].installed, true, JSON.stringify(results[0]));
  assert.equal(results[0].via, 'first websocket connection');
  assert.equal(configured._options.zlib, sharedDeflate.zlib, 'sessions created from now on use the shared zlib');
  connect(websocket(true));
  assert.equal(results.length, 1, 'decided once');

  // Compression off: the first websocket says so; another transport's sockets are not SockJS.
  const off = [];
  const offServer = { register: (callback) => callback({ _session: { ws: { _driver: { _extensions: { _byName: {} } } } } }) };
  installSharedDeflate({ stream_server: offServer }, createSharedDeflate(), { onLateResult: (result) => off.push(result), transport: undefined });
  assert.match(off[0].reason, /no permessage-deflate extension/);
  const uwsSockets = [];
  installSharedDeflate({ stream_server: { register: (callback) => callback({ send() {} }) } }, createSharedDeflate(), { onLateResult: (result) => uwsSockets.push(result), transport: undefined });
  assert.match(uwsSockets[0].reason, /not a SockJS connection/);
  assert.match(installSharedDeflate({ stream_server: streamServer }, createSharedDeflate(), { onLateResult() {}, transport: 'uws' }).reason, /DDP transport uws/);
  // Where Meteor keeps its SockJS server (3.0 to 3.4), `firstConnection` still takes the late path.
  const eager = { stream_server: { register: streamServer.register, server: { options: { faye_server_options: { extensions: [require('permessage-deflate').configure({})] } } } } };
  assert.equal(installSharedDeflate(eager, createSharedDeflate(), { transport: undefined }).installed, true);
  assert.equal(installSharedDeflate(eager, createSharedDeflate(), { onLateResult() {}, firstConnection: true, transport: undefined }).pending, true);
});
