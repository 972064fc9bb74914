'use strict';
/**
 * imports/api/ddp/shared-send.js against stand-ins shaped like Meteor 3.0.x ddp-server
 * (Subscription, Session, socket). The real Meteor is checked by tests/e2e/ddp.test.js, which
 * fails if the running server does not take the shared path.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createSharedSender, inspectSend } = require('../../imports/api/ddp/shared-send');
const { PublishHub } = require('../../imports/core/publish-hub');

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
  const sender = createSharedSender({ server: server(NO_MERGE), stringifyDDP: stringify });
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
  const sender = createSharedSender({ server: server(NO_MERGE), stringifyDDP: stringify });
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
    { why: /no longer calls/, send: function (msg) { this.transport.write(msg); } },
    { why: /_isDeactivated/, strip: '_isDeactivated' },
    { why: /_session/, strip: '_session' },
    { why: /_documents/, strip: '_documents' },
    { why: /disabled/, sender: { server: server(NO_MERGE), enabled: false } },
  ];
  for (const c of cases) {
    const { stringify } = stringifyCounter();
    const sender = createSharedSender({ server: server(NO_MERGE), stringifyDDP: stringify, ...(c.sender || {}) });
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
  const sender = createSharedSender({ server: server(NO_MERGE), stringifyDDP: stringify, meteor });
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
  const sender = createSharedSender({ server: server(NO_MERGE), stringifyDDP: stringify });
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
  const sender = createSharedSender({ server: server(NO_MERGE), stringifyDDP: stringify });
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
  const sender = createSharedSender({ server: server(NO_MERGE), stringifyDDP: stringify });
  const fake = fakePublication();
  const sink = sender.relay(fake.publication, 'meshpulse.live', null);
  const shared = new Map();
  sink.added('h1', { a: 1 }, shared);
  sink.added('h2', { a: 1 }, shared);
  sink.removed('h1', shared);
  assert.deepEqual([...fake.publication._documents.get('meshpulse.live')], ['h2']);
  const noHistory = createSharedSender({ server: server(NO_MERGE_NO_HISTORY), stringifyDDP: stringify });
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
  const sender = createSharedSender({ server: server(NO_MERGE), stringifyDDP: stringify, batchWrites: true, defer: (fn) => deferred.push(fn) });
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
  const sender = createSharedSender({ server: server(NO_MERGE), stringifyDDP: stringify, batchWrites: false, defer: () => { throw new Error('not expected'); } });
  const f = fakePublication();
  let corks = 0;
  f.session.socket._session = { recv: { connection: { writableCorked: 0, cork: () => { corks++; }, uncork() {}, write() {} } } };
  sender.relay(f.publication, 'meshpulse.views', 'stats|{}').added('stats|{}', { a: 1 }, new Map());
  assert.equal(corks, 0);
  assert.equal(f.written.length, 1);
});
