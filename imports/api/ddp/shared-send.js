'use strict';
/**
 * Serialize a shared DDP message once and write the same string to every session that
 * receives it. The ONLY module of MeshPulse that touches ddp-server internals.
 *
 * Why: with 200 dashboards, `this.changed()` makes every session run stringifyDDP (EJSON.clone
 * + JSON.stringify) on the same view document; the publish hub already builds one change per
 * (view, params) group per tick and hands every subscriber the same `shared` Map (see
 * imports/core/publish-hub.js), so the text can be made once and memoized there.
 *
 * What it relies on (Meteor 3.0.x ddp-server, livedata_server.js; same shape in the newer
 * session.js/subscription.js layout), checked before use, per publication:
 *   - `sub._session`, `sub._isDeactivated()`, `sub._idFilter.idStringify(id)`;
 *   - for a collection without a merge box (NO_MERGE: `useCollectionView: false`),
 *     `sub.added/changed/removed` reduce to `session.send(msg)`, plus, when the strategy does
 *     accounting (NO_MERGE does, so a stopped subscription removes its documents), adding and
 *     deleting the id in the Set at `sub._documents.get(collection)`;
 *   - `session.send(msg)` is `socket.send(DDPCommon.stringifyDDP(msg))` (optionally wrapped in
 *     `_checkPublishPromiseBeforeSend`), with no message buffering or batching; or exactly
 *     Meteor 3.5's send (COUNTED_SEND_BODY: a queue while the session is away, a count of the
 *     messages sent), which a shared write reproduces (see write).
 * Batching (optional, never needed for correctness): a session's TCP socket, at
 * `session.socket._session.recv.connection` (SockJS), is corked for the rest of the current
 * turn on the first shared write, so a tick's messages to that session leave in one writev;
 * when the path is not there the writes are simply not batched (MESHPULSE_BATCH_WRITES=off: never).
 * Pre-framed writes (optional, on unless MESHPULSE_PREFRAMED=off): the websocket frame of a shared
 * message is the same bytes for every session with the same transport and compression, so it is
 * built once (FIN + text opcode, unmasked, as websocket-driver's hybi _sendFrame writes it;
 * inside SockJS's `a[...]` array frame for SockJS-framed websockets, quoted by SockJS's own
 * doSendBulk) and written straight to each session's TCP socket. With permessage-deflate
 * negotiated and the shared deflate installed (imports/core/shared-deflate.js), the frame is
 * what the package would emit through it: RSV1 set and the shared deflate's output without its
 * 00 00 ff ff tail, or a plain frame under permessage-deflate2's own `threshold`; the shared
 * deflate compresses each message independently of the session's history, so that is the same
 * for every session with the same negotiated parameters. faye-websocket keeps no outgoing queue
 * (its driver emits each frame to the socket synchronously, and the shared deflate answers
 * synchronously), so the order of a session's messages is kept. A session takes this path only
 * when it is an open websocket whose driver is at `session.socket._session.ws._driver` (raw
 * /websocket) or `session.socket._session.recv.ws._driver` (SockJS), writes unmasked to the same
 * TCP socket, has no extension other than a permessage-deflate session driving the shared
 * deflate with nothing queued (`_lockOut`, `_queueOut`), and (SockJS) an empty send buffer;
 * otherwise the text goes through `session.socket.send` as above, and the reason is counted in
 * stats().framedFallbacks.
 * Batches: the live feed's rows of one tick (a dozen removed/added/changed messages at 50
 * packets/s) come from the hub as one array (sink.batch); each message is serialized and framed
 * once per batch, and a pre-framed session gets all of them in ONE TCP write of the frames laid
 * end to end (the same bytes as one write per message), instead of a dozen sends per session.
 * Plain JSON (on unless MESHPULSE_PLAIN_DDP=off): a view document holds only what JSON holds,
 * so EJSON's deep copy and type pass in stringifyDDP change nothing; stringifyPlainDDP writes
 * the same text without them, and anything EJSON would convert still goes through stringifyDDP.
 * If any of that is not as expected, or `Meteor._printSentDDP` is on, the relay falls back to
 * the public path (`this.added/changed/removed`) and says why in stats().fallbackReason.
 * tests/e2e/ddp.test.js fails loudly if the running Meteor does not take the shared path.
 *
 *
 * installSharedDeflate() hands permessage-deflate (faye-websocket via SockJS) a `zlib` that
 * compresses each distinct message once for every session (imports/core/shared-deflate.js),
 * through the package's documented `zlib` option, reached at
 * `Meteor.server.stream_server.server.options.faye_server_options.extensions` (Meteor 3.0 to
 * 3.4), or through the first websocket connection's driver where Meteor keeps no handle on its
 * SockJS server (3.5). When neither is there (compression off, another transport), nothing is
 * changed and the reason is kept.
 *
 * Plain CommonJS, no `meteor/*` imports: Meteor parts are passed in, so tests run under Node.
 */

// What Session#send must look like for a shared string to be exactly what it would have sent.
const SEND_WRITES_STRINGIFIED = /socket\.send\(\s*DDPCommon\.stringifyDDP\(\s*msg\s*\)\s*\)/;
// Any sign of an outgoing buffer: then messages must go through send() to keep their order.
const SEND_BUFFERS = /_bufferedMessages|_flush|batch/i;
const SEND_WAITS_FOR_PUBLISH = /_checkPublishPromiseBeforeSend/;

/**
 * Session#send as Meteor 3.5 writes it (packages/ddp-server/livedata_server.js, with DDP session
 * resumption): while a disconnected session waits out its grace period (`messageQueue` set,
 * `socket` null) messages are queued, and every message sent but pings and pongs is counted in
 * `sentCount` (compared with the client's count when it resumes). Its body, normalized by
 * `normalizedBody` (comments and layout dropped, `var`/`let` read as `const`, quotes as "). A
 * shared write reproduces exactly this (see `write`), so the body must be exactly this: any
 * other change to Session#send sends every message through the public path instead.
 */
const COUNTED_SEND_BODY = normalizedBody(`function (msg) {
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
}`);

/**
 * A function's body as comparable text: comments dropped, whitespace kept only between two
 * word characters, `var`/`let` as `const`, single quotes as double. Enough to compare a body
 * with a known one across formatting (source, Meteor's compiled package, method shorthand),
 * never to parse JavaScript in general: a string holding `//` or a quote would be mangled, and
 * then the comparison fails, which only means the public path.
 */
function normalizedBody(source) {
  const start = source.indexOf('{');
  const body = start < 0 ? '' : source.slice(start);
  return body
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .replace(/\/\/[^\n]*/g, ' ')
    .replace(/'/g, '"')
    .replace(/\b(?:var|let)\b/g, 'const')
    .replace(/\s+/g, ' ')
    .replace(/ ?([^\w$ ]) ?/g, '$1')
    .trim();
}

/**
 * How a Session#send function delivers, from its source: { ok, waitsForPublish, counted, reason }.
 * Two shapes are understood: Meteor 3.0.x's (`socket.send(DDPCommon.stringifyDDP(msg))`, at most
 * wrapped in `_checkPublishPromiseBeforeSend`) and Meteor 3.5's (`counted`: COUNTED_SEND_BODY).
 */
function inspectSend(send) {
  if (typeof send !== 'function') return { ok: false, reason: 'Session#send is not a function' };
  const source = Function.prototype.toString.call(send);
  if (normalizedBody(source) === COUNTED_SEND_BODY) return { ok: true, waitsForPublish: false, counted: true, reason: null };
  if (!SEND_WRITES_STRINGIFIED.test(source)) return { ok: false, reason: 'Session#send is neither Meteor 3.0\'s socket.send(DDPCommon.stringifyDDP(msg)) nor Meteor 3.5\'s counted, queueing send' };
  if (SEND_BUFFERS.test(source)) return { ok: false, reason: 'Session#send buffers or batches messages' };
  return { ok: true, waitsForPublish: SEND_WAITS_FOR_PUBLISH.test(source), counted: false, reason: null };
}

/**
 * The TCP socket under a session, for cork(): SockJS keeps it at `socket._session.recv.connection`
 * (raw /websocket and SockJS-framed websockets alike; long-polling has none). null when the path
 * is not there or does not look like a net.Socket: then writes are simply not batched.
 */
function tcpSocketOf(session) {
  try {
    const connection = session.socket._session.recv.connection;
    if (connection && typeof connection.cork === 'function' && typeof connection.uncork === 'function' && typeof connection.write === 'function') return connection;
  } catch {
    // not a SockJS websocket session
  }
  return null;
}

const OPEN = 1; // faye-websocket API, websocket-driver and SockJS sessions all say OPEN with 1

const MIN_DEFLATE_WINDOW_BITS = 9; // permessage-deflate's common.MIN_WINDOW_BITS (zlib refuses 8 for raw deflate)

/**
 * One unmasked final text frame holding `payload` (a string, as UTF-8, or a Buffer) (RFC 6455
 * 5.2), as websocket-driver frames it; `compressed` sets RSV1 (permessage-deflate, RFC 7692).
 */
function textFrame(payload, compressed = false) {
  const length = typeof payload === 'string' ? Buffer.byteLength(payload, 'utf8') : payload.length;
  const header = length <= 125 ? 2 : length <= 65535 ? 4 : 10;
  const frame = Buffer.allocUnsafe(header + length);
  frame[0] = compressed ? 0xc1 : 0x81; // FIN, (RSV1,) opcode 1 (text)
  if (length <= 125) {
    frame[1] = length;
  } else if (length <= 65535) {
    frame[1] = 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = 127;
    frame.writeUInt32BE(Math.floor(length / 0x100000000), 2);
    frame.writeUInt32BE(length % 0x100000000, 6);
  }
  if (typeof payload === 'string') frame.write(payload, header, 'utf8');
  else payload.copy(frame, header);
  return frame;
}

/**
 * The permessage-deflate session of a websocket's extensions, when it drives `sharedDeflate`:
 * { session, params, thresholdBytes, key } or a string saying why its frames cannot be shared.
 */
function deflateRouteOf(extensionSessions, sharedDeflate) {
  if (extensionSessions.length !== 1) return `${extensionSessions.length} websocket extensions are active`;
  const [extension, session] = extensionSessions[0] || [];
  if (!extension || extension.name !== 'permessage-deflate') return `websocket extension ${extension && extension.name} is active`;
  if (!sharedDeflate) return 'permessage-deflate is active and the shared deflate is not installed';
  if (!session || session._zlib !== sharedDeflate.zlib) return 'permessage-deflate does not drive the shared deflate';
  if (!Array.isArray(session._queueOut)) return 'permessage-deflate session has no _queueOut';
  const ownWindowBits = session._ownWindowBits;
  if (!Number.isInteger(ownWindowBits) || ownWindowBits < 8 || ownWindowBits > 15) return `permessage-deflate window bits ${ownWindowBits} not understood`;
  // As Session#_getDeflate asks the zlib for it; the shared deflate normalizes it the same way.
  const params = sharedDeflate.paramsFor({ windowBits: Math.max(ownWindowBits, MIN_DEFLATE_WINDOW_BITS), level: session._level, memLevel: session._memLevel, strategy: session._strategy });
  // permessage-deflate2 (Meteor 3.1.1+) sends messages under its own threshold uncompressed.
  const thresholdBytes = Number(session._threshold) || 0;
  return { session, params, thresholdBytes, key: `deflate/${params.key}/${thresholdBytes}` };
}

/**
 * How a session's messages can be written pre-framed: { kind: 'raw' | 'sockjs', tcp, ws, driver,
 * sockjsSession, recv, sockjsArray } or { reason } when they cannot (then: the standard send).
 */
function frameRouteOf(session, sharedDeflate = null) {
  let sockjsSession;
  let recv;
  try {
    sockjsSession = session.socket._session;
    recv = sockjsSession.recv;
  } catch {
    return { reason: 'no SockJS session under the DDP session' };
  }
  if (!sockjsSession || !recv) return { reason: 'no SockJS session under the DDP session' };
  let kind;
  let ws;
  if (recv.protocol === 'websocket-raw') {
    kind = 'raw';
    ws = sockjsSession.ws;
  } else if (recv.protocol === 'websocket') {
    kind = 'sockjs';
    ws = recv.ws;
  } else {
    return { reason: `transport ${String(recv.protocol)} is not a websocket` };
  }
  const tcp = recv.connection;
  const driver = ws && ws._driver;
  if (!driver || typeof driver.readyState !== 'number' || !driver.io) return { reason: 'websocket-driver not found at ws._driver' };
  if (!tcp || typeof tcp.write !== 'function' || ws._stream !== tcp) return { reason: 'the websocket does not write to the TCP socket SockJS holds' };
  if (driver._masking) return { reason: 'the websocket masks its frames (a client, not a server)' };
  const extensions = driver._extensions;
  let deflate = null;
  if (extensions) {
    if (!Array.isArray(extensions._sessions)) return { reason: 'websocket-extensions has no _sessions list' };
    if (extensions._sessions.length > 0) {
      deflate = deflateRouteOf(extensions._sessions, sharedDeflate);
      if (typeof deflate === 'string') return { reason: deflate };
    }
  }
  let sockjsArray = null;
  if (kind === 'sockjs') {
    if (!Array.isArray(sockjsSession.send_buffer)) return { reason: 'SockJS session has no send_buffer' };
    const doSendBulk = recv.doSendBulk;
    if (typeof doSendBulk !== 'function') return { reason: 'SockJS receiver has no doSendBulk' };
    // SockJS's own quoting (utils.quote): its doSendBulk, with the frame caught instead of sent.
    sockjsArray = (text) => {
      let frame = null;
      doSendBulk.call({ doSendFrame: (payload) => { frame = payload; } }, [text]);
      if (typeof frame !== 'string' || !frame.startsWith('a[')) throw new Error('SockJS doSendBulk did not frame an a[...] array');
      return frame;
    };
  }
  return { kind, tcp, ws, driver, sockjsSession, recv, sockjsArray, deflate, frameKey: deflate ? `${kind}/${deflate.key}` : kind, reason: null };
}

/** Whether a pre-framed write now is what faye would put on the wire now. */
function canWriteFramed(route) {
  const { ws, driver, tcp, sockjsSession, recv } = route;
  if (ws.readyState !== OPEN || driver.readyState !== OPEN || !driver.io.readable || tcp.destroyed || !tcp.writable) return false;
  if (sockjsSession.readyState !== OPEN) return false;
  if (route.kind === 'sockjs' && (sockjsSession.recv !== recv || sockjsSession.send_buffer.length > 0)) return false;
  // A message still inside permessage-deflate must leave first.
  if (route.deflate && (route.deflate.session._lockOut || route.deflate.session._queueOut.length > 0)) return false;
  return true;
}

function isEmpty(fields) {
  for (const key in fields) if (Object.prototype.hasOwnProperty.call(fields, key)) return false;
  return true;
}

/**
 * Whether EJSON has nothing to convert in `value`: only null, booleans, strings, finite numbers,
 * undefined, and plain arrays and objects of those whose keys never start with `$` (EJSON
 * escapes only objects shaped like its own `$date`, `$InfNaN`, `$binary`, `$type`, `$escape`,
 * `$regexp` forms). Then EJSON.clone + _adjustTypesToJSONValue change nothing JSON.stringify
 * would write, and a view document can skip them (they deep-copied every message).
 */
function isPlainJson(value, depth = 0) {
  if (value === null || value === undefined) return true;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object':
      break;
    default:
      return false;
  }
  if (depth > 100) return false; // let EJSON deal with anything that deep
  const proto = Object.getPrototypeOf(value);
  if (proto === Array.prototype) {
    for (let i = 0; i < value.length; i++) if (!isPlainJson(value[i], depth + 1)) return false;
    return true;
  }
  if (proto !== Object.prototype) return false;
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) return false; // enumerable inherited keys: not plain
    if (key.charCodeAt(0) === 36 /* $ */ || !isPlainJson(value[key], depth + 1)) return false;
  }
  return true;
}

/**
 * DDPCommon.stringifyDDP(msg) for a data message ({ msg, collection, id[, fields] }) whose
 * fields are plain JSON (isPlainJson): the same text, key for key (fields set to undefined
 * become `cleared`, appended after `fields`; `fields` left out when nothing else remains), without
 * EJSON's deep copy. Returns null when a field is not plain: then the caller uses stringifyDDP.
 */
function stringifyPlainDDP(msg) {
  if (typeof msg.id !== 'string') return null;
  if (!Object.prototype.hasOwnProperty.call(msg, 'fields')) return JSON.stringify(msg);
  const { fields } = msg;
  if (!fields || Object.getPrototypeOf(fields) !== Object.prototype) return null;
  let cleared = null;
  let kept = 0;
  for (const key in fields) {
    if (!Object.prototype.hasOwnProperty.call(fields, key)) return null;
    const value = fields[key];
    if (value === undefined) (cleared = cleared || []).push(key);
    else if (key.charCodeAt(0) === 36 || !isPlainJson(value)) return null;
    else kept++;
  }
  if (cleared === null && kept > 0) return JSON.stringify(msg);
  // stringifyDDP: the clone keeps msg's key order; `fields` stays where it was (left out when
  // empty), `cleared` comes last.
  const ordered = {};
  for (const key in msg) {
    if (key !== 'fields') {
      ordered[key] = msg[key];
    } else if (kept > 0) {
      const rest = {};
      for (const name in fields) if (fields[name] !== undefined) rest[name] = fields[name];
      ordered.fields = rest;
    }
  }
  if (cleared === null) return JSON.stringify(ordered);
  ordered.cleared = cleared;
  return JSON.stringify(ordered);
}

/**
 * `server`: Meteor.server (getPublicationStrategy); `stringifyDDP`: DDPCommon.stringifyDDP;
 * `meteor`: Meteor (for _printSentDDP); `enabled: false` forces the public path (A/B studies).
 */
function createSharedSender({ server, stringifyDDP, meteor = {}, enabled = true, batchWrites = process.env.MESHPULSE_BATCH_WRITES !== 'off', preFramed = process.env.MESHPULSE_PREFRAMED !== 'off', sharedDeflate = null, defer = process.nextTick, plainDDP = process.env.MESHPULSE_PLAIN_DDP !== 'off' }) {
  // The installed shared deflate (useSharedDeflate): deflated sessions' frames are built with it.
  let deflater = sharedDeflate;
  const counters = { sharedSends: 0, serializations: 0, standardSends: 0, fallbackRelays: 0, sharedRelays: 0, corkedSockets: 0, batchedWrites: 0, framedWrites: 0, framesBuilt: 0, batches: 0, batchFramedWrites: 0, plainSerializations: 0, queuedSends: 0 };
  // Sessions not written pre-framed, by reason (a negotiated deflate, long-polling, ...).
  const framedFallbacks = {};
  let fallbackReason = enabled ? null : 'disabled (MESHPULSE_SHARED_SEND=off)';
  const sendShapes = new WeakMap(); // Session#send function -> inspectSend() result

  /** Why this publication cannot take the shared path for `collection`, or null. */
  function problemWith(publication, collection) {
    if (!enabled) return fallbackReason;
    if (typeof stringifyDDP !== 'function') return 'DDPCommon.stringifyDDP is not a function';
    if (!publication || typeof publication._isDeactivated !== 'function') return 'Subscription#_isDeactivated is missing';
    if (!publication._idFilter || typeof publication._idFilter.idStringify !== 'function') return 'Subscription#_idFilter.idStringify is missing';
    const session = publication._session;
    if (!session || typeof session !== 'object') return 'Subscription#_session is missing';
    if (!server || typeof server.getPublicationStrategy !== 'function') return 'Meteor.server.getPublicationStrategy is missing';
    const strategy = server.getPublicationStrategy(collection);
    if (!strategy || strategy.useCollectionView !== false) return `collection ${collection} is not published with NO_MERGE`;
    if (strategy.doAccountingForCollection && !(publication._documents instanceof Map)) return 'Subscription#_documents is not a Map';
    if (typeof session._canSend === 'function' && session._canSend(collection) !== true) return 'Session#_canSend refuses the collection';
    let shape = sendShapes.get(session.send);
    if (!shape) {
      shape = inspectSend(session.send);
      if (typeof session.send === 'function') sendShapes.set(session.send, shape);
    }
    if (!shape.ok) return shape.reason;
    if (shape.waitsForPublish && typeof session._checkPublishPromiseBeforeSend !== 'function') return 'Session#_checkPublishPromiseBeforeSend is missing';
    return null;
  }

  // A publish tick hands each session a stats change, a dozen live rows and maybe a few view
  // changes, one websocket frame each: corking the session's TCP socket until the tick's
  // synchronous fan-out is over turns those writes into one writev (one syscall per session per
  // tick instead of one per message). Order is kept: corked writes leave in write order.
  // Keyed by the session's socket, not the session: on Meteor 3.5 a session that resumes after a
  // reconnection gets a new socket, and nothing may still write to the old one.
  const tcpSockets = new WeakMap(); // session.socket -> net.Socket | null
  let corked = [];
  const uncorkAll = () => {
    const sockets = corked;
    corked = [];
    for (const socket of sockets) {
      try { socket.uncork(); } catch { /* a socket closed meanwhile has nothing to flush */ }
    }
  };
  function corkFor(session) {
    let socket = tcpSockets.get(session.socket);
    if (socket === undefined) {
      socket = tcpSocketOf(session);
      tcpSockets.set(session.socket, socket);
    }
    if (!socket || socket.writableCorked > 0 || socket.destroyed) return;
    socket.cork();
    counters.corkedSockets++;
    if (corked.length === 0) defer(uncorkAll);
    corked.push(socket);
  }

  const frameRoutes = new WeakMap(); // session.socket -> frameRouteOf(session)
  function frameRouteFor(session) {
    let route = frameRoutes.get(session.socket);
    if (route === undefined) {
      route = frameRouteOf(session, deflater);
      if (route.reason) framedFallbacks[route.reason] = (framedFallbacks[route.reason] || 0) + 1;
      frameRoutes.set(session.socket, route);
    }
    return route;
  }

  /** The message's frame for this route, built once per message memo ({ text, frames }). */
  function frameFor(route, memo) {
    let frame = memo.frames.get(route.frameKey);
    if (frame === undefined) {
      const payload = route.kind === 'sockjs' ? route.sockjsArray(memo.text) : memo.text;
      frame = route.deflate ? deflatedFrame(payload, route.deflate) : textFrame(payload);
      memo.frames.set(route.frameKey, frame);
      counters.framesBuilt++;
    }
    return frame;
  }

  /** A batch's frames for this route, one after the other in one Buffer, built once per batch memo. */
  function batchFrameFor(route, batch) {
    let joined = batch.frames.get(route.frameKey);
    if (joined === undefined) {
      const frames = [];
      for (const memo of batch.memos) if (memo) frames.push(frameFor(route, memo));
      joined = frames.length === 1 ? frames[0] : Buffer.concat(frames);
      batch.frames.set(route.frameKey, joined);
    }
    return joined;
  }

  /** What permessage-deflate, driving the shared deflate, puts on the wire for `payload`. */
  function deflatedFrame(payload, deflate) {
    const data = Buffer.from(payload, 'utf8');
    if (data.length < deflate.thresholdBytes) return textFrame(data);
    // Shared: the frame goes to every session of the route, so the session's level at once.
    const output = deflater.compress(data, deflate.params, true);
    return textFrame(output.length === 0 ? output : output.subarray(0, output.length - 4), true);
  }

  /** The pre-framed route of a session if a framed write is possible now, else null. */
  function framedRoute(session) {
    if (!preFramed) return null;
    const route = frameRouteFor(session);
    return !route.reason && canWriteFramed(route) ? route : null;
  }

  /**
   * As Meteor 3.5's Session#send (COUNTED_SEND_BODY): while the session waits out its grace
   * period the message object itself is queued (stringified when the queue is flushed, or
   * dropped with the session when it overflows), so session.send does that; a message written
   * is counted.
   */
  function write(session, shape, memo) {
    if (shape.counted) {
      if (session.messageQueue) {
        session.send(memo.msg);
        counters.queuedSends++;
        return;
      }
      if (session.socket) session.sentCount++;
    }
    if (shape.waitsForPublish) {
      session._checkPublishPromiseBeforeSend(() => { if (session.socket) session.socket.send(memo.text); });
    } else if (session.socket) {
      if (batchWrites) {
        corkFor(session);
        counters.batchedWrites++;
      }
      const route = framedRoute(session);
      if (route) {
        counters.framedWrites++;
        route.tcp.write(frameFor(route, memo));
        return;
      }
      session.socket.send(memo.text);
    }
  }

  /** A batch's messages, in order: one TCP write for a pre-framed session, else one send each. */
  function writeBatch(session, shape, batch) {
    if (shape.waitsForPublish || !session.socket || (shape.counted && session.messageQueue)) {
      for (const memo of batch.memos) if (memo) write(session, shape, memo);
      return;
    }
    if (shape.counted) session.sentCount += batch.count;
    if (batchWrites) {
      corkFor(session);
      counters.batchedWrites += batch.count;
    }
    const route = framedRoute(session);
    if (route) {
      counters.framedWrites += batch.count;
      counters.batchFramedWrites++;
      route.tcp.write(batchFrameFor(route, batch));
      return;
    }
    for (const memo of batch.memos) if (memo) session.socket.send(memo.text);
  }

  /**
   * A hub sink for one subscription: `documentId` (optional) replaces the hub's id, as the
   * client computes it from the params it passed.
   */
  function relay(publication, collection, documentId = null) {
    const idFor = (id) => documentId || id;
    const problem = problemWith(publication, collection);
    if (problem) {
      counters.fallbackRelays++;
      fallbackReason = problem;
      return {
        shared: false,
        added: (id, fields) => { counters.standardSends++; publication.added(collection, idFor(id), fields); },
        changed: (id, fields) => { counters.standardSends++; publication.changed(collection, idFor(id), fields); },
        removed: (id) => { counters.standardSends++; publication.removed(collection, idFor(id)); },
      };
    }
    counters.sharedRelays++;
    const session = publication._session;
    const shape = sendShapes.get(session.send);
    const accounting = Boolean(server.getPublicationStrategy(collection).doAccountingForCollection);
    // As Subscription#added/removed: remember the ids sent, so stopping the subscription removes them.
    const account = (msgType, id) => {
      if (!accounting) return;
      let ids = publication._documents.get(collection);
      if (msgType === 'added') {
        if (!ids) { ids = new Set(); publication._documents.set(collection, ids); }
        ids.add(id);
      } else if (msgType === 'removed' && ids) {
        ids.delete(id);
      }
    };

    // The memo key of a message: fixed per relay for a view document (its id never changes), so
    // a tick's fan-out builds no string per session.
    const fixedKeys = documentId === null ? null : {};
    const keyFor = (msgType, id) => {
      if (fixedKeys === null) return `${msgType}\u0000${collection}\u0000${id}`;
      return fixedKeys[msgType] || (fixedKeys[msgType] = `${msgType}\u0000${collection}\u0000${id}`);
    };
    const serialize = (msgType, id, fields) => {
      counters.serializations++;
      const msg = msgType === 'removed' ? { msg: 'removed', collection, id } : { msg: msgType, collection, id, fields };
      let text = plainDDP ? stringifyPlainDDP(msg) : null;
      if (text === null) text = stringifyDDP(msg);
      else counters.plainSerializations++;
      // `msg` is kept for Meteor 3.5's queue (see write); shared messages are never mutated.
      return { text, frames: new Map(), msg };
    };

    const publicSend = (msgType, rawId, fields) => {
      counters.standardSends++;
      if (msgType === 'removed') publication.removed(collection, idFor(rawId));
      else publication[msgType](collection, idFor(rawId), fields);
    };

    const send = (msgType, rawId, fields, shared) => {
      // Same guards, in the same order, as Subscription#added/changed/removed and Session#send*.
      if (publication._isDeactivated()) return;
      const id = publication._idFilter.idStringify(idFor(rawId));
      if (msgType === 'changed' && isEmpty(fields)) return;
      if (!shared || meteor._printSentDDP) {
        // No memo to share (a caller outside the hub) or DDP logging on: the public path.
        publicSend(msgType, rawId, fields);
        return;
      }
      account(msgType, id);
      const key = keyFor(msgType, id);
      let memo = shared.get(key);
      if (memo === undefined) {
        memo = serialize(msgType, id, fields);
        shared.set(key, memo);
      }
      counters.sharedSends++;
      write(session, shape, memo);
    };

    // A batch ({ method, id, fields } in order, the same array for every sink of a group) is
    // serialized and framed once, under one key per relay shape.
    const batchKey = `batch\u0000${collection}\u0000${documentId === null ? '' : documentId}`;
    const batch = (messages, shared) => {
      if (publication._isDeactivated()) return;
      if (!shared || meteor._printSentDDP) {
        for (const message of messages) send(message.method, message.id, message.fields, null);
        return;
      }
      let memo = shared.get(batchKey);
      if (memo === undefined || memo.messages !== messages) {
        memo = { messages, ids: [], memos: [], frames: new Map(), count: 0 };
        for (const message of messages) {
          const id = publication._idFilter.idStringify(idFor(message.id));
          // An empty change sends nothing (as Subscription#changed); it keeps its slot, unsent.
          const skip = message.method === 'changed' && isEmpty(message.fields);
          memo.ids.push(id);
          memo.memos.push(skip ? null : serialize(message.method, id, message.fields));
          if (!skip) memo.count++;
        }
        shared.set(batchKey, memo);
      }
      if (memo.count === 0) return;
      if (accounting) {
        for (let i = 0; i < messages.length; i++) if (memo.memos[i]) account(messages[i].method, memo.ids[i]);
      }
      counters.sharedSends += memo.count;
      counters.batches++;
      writeBatch(session, shape, memo);
    };
    return {
      shared: true,
      added: (id, fields, shared) => send('added', id, fields, shared),
      changed: (id, fields, shared) => send('changed', id, fields, shared),
      removed: (id, shared) => send('removed', id, undefined, shared),
      batch,
    };
  }

  function stats() {
    const mode = !enabled ? 'off' : counters.fallbackRelays === 0 ? 'shared' : counters.sharedRelays === 0 ? 'standard' : 'mixed';
    return { mode, fallbackReason, preFramed: Boolean(enabled && preFramed), ...counters, framedFallbacks: { ...framedFallbacks } };
  }

  /** Build deflated sessions' frames with this shared deflate (once installSharedDeflate succeeded). */
  function useSharedDeflate(installed) {
    deflater = installed;
  }

  return { relay, stats, problemWith, useSharedDeflate };
}

/**
 * The configured permessage-deflate extension behind one DDP socket: every websocket's driver
 * holds the extension objects faye-websocket was given (one per server: ddp-server memoizes
 * its websocketExtensions()), registered by name even when this client did not negotiate it.
 * null when the socket is not a websocket (SockJS long-polling: ask the next one), or a string
 * saying why there is none to find.
 */
function deflateExtensionOf(socket) {
  const sockjsSession = socket && socket._session;
  if (!sockjsSession || typeof sockjsSession !== 'object') return 'the DDP socket is not a SockJS connection (another DDP transport)';
  const ws = sockjsSession.ws || (sockjsSession.recv && sockjsSession.recv.ws);
  if (!ws) return null;
  const extensions = ws._driver && ws._driver._extensions;
  if (!extensions || !extensions._byName || typeof extensions._byName !== 'object') return 'websocket-extensions not found at ws._driver._extensions';
  const deflate = extensions._byName['permessage-deflate'];
  if (!deflate) return 'no permessage-deflate extension (compression off)';
  return deflate;
}

/** Hand `deflate` (a configured permessage-deflate) the shared zlib: { installed, reason }. */
function installIntoExtension(deflate, sharedDeflate) {
  const options = deflate._options;
  if (!options || typeof options !== 'object' || typeof deflate.createServerSession !== 'function') {
    return { installed: false, reason: 'permessage-deflate has no _options object or createServerSession' };
  }
  // Probe the extension before use where the shared deflate can (imports/core/shared-deflate.js).
  if (typeof sharedDeflate.installInto === 'function') return sharedDeflate.installInto(deflate);
  options.zlib = sharedDeflate.zlib;
  return { installed: true, reason: null };
}

/**
 * Give Meteor's permessage-deflate extension the shared compressor.
 *
 * Meteor 3.0 to 3.4 keep their SockJS server at `Meteor.server.stream_server.server`, whose
 * options hold the extension: installed at once (call before the first connection: sessions
 * read the option when they are created), { installed, reason }.
 *
 * Meteor 3.5 (pluggable DDP transports, packages/ddp-server/transports/sockjs.js) keeps no
 * handle on it, so the extension is found through the first websocket connection instead
 * (deflateExtensionOf), by a StreamServer.register callback: the answer is then { installed:
 * false, pending: true, reason } and `onLateResult` gets the outcome once a websocket has
 * connected. Sessions created before that, the first connection's, keep the package's own
 * zlib; shared-send writes them the standard way (stats().framedFallbacks says so).
 * `firstConnection: true` takes that path on an older Meteor too (to check it where 3.5 is not
 * at hand: tests/e2e). Under another DDP transport (DDP_TRANSPORT=uws) nothing is installed.
 */
function installSharedDeflate(server, sharedDeflate, { onLateResult = null, firstConnection = false, transport = process.env.DDP_TRANSPORT } = {}) {
  const streamServer = server && server.stream_server;
  if (transport && transport !== 'sockjs') return { installed: false, reason: `DDP transport ${transport}: only SockJS websockets use permessage-deflate sessions the shared deflate can drive` };
  const sockjsOptions = !firstConnection && streamServer && streamServer.server && streamServer.server.options;
  if (sockjsOptions) {
    const fayeOptions = sockjsOptions.faye_server_options;
    if (!fayeOptions || !Array.isArray(fayeOptions.extensions)) return { installed: false, reason: 'no websocket extensions (compression off, or websockets disabled)' };
    const deflate = fayeOptions.extensions.find((extension) => extension && extension.name === 'permessage-deflate');
    if (!deflate) return { installed: false, reason: 'no permessage-deflate extension (compression off)' };
    return installIntoExtension(deflate, sharedDeflate);
  }
  if (!streamServer || typeof streamServer.register !== 'function' || typeof onLateResult !== 'function') {
    return { installed: false, reason: 'Meteor.server.stream_server.server.options is missing and no websocket connection can be watched (not SockJS)' };
  }
  let decided = false;
  streamServer.register((socket) => {
    if (decided) return;
    const found = deflateExtensionOf(socket);
    if (found === null) return; // long-polling: the next connection may be a websocket
    decided = true;
    const result = typeof found === 'string' ? { installed: false, reason: found } : installIntoExtension(found, sharedDeflate);
    onLateResult({ ...result, via: 'first websocket connection' });
  });
  return { installed: false, pending: true, reason: 'waiting for the first websocket connection (this Meteor keeps no handle on its SockJS server)' };
}

module.exports = { createSharedSender, stringifyPlainDDP, isPlainJson, inspectSend, installSharedDeflate, deflateExtensionOf, tcpSocketOf, textFrame, frameRouteOf };
