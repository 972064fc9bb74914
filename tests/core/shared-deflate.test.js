'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const zlib = require('zlib');
const { createSharedDeflate, probeExtension, storedBlocks } = require('../../imports/core/shared-deflate');

const TAIL = Buffer.from([0x00, 0x00, 0xff, 0xff]);

/** What a permessage-deflate receiver does with one message: append 00 00 ff ff, inflate. */
function receive(output) {
  assert.deepEqual(output.subarray(-4), TAIL, 'ends in a sync flush');
  const payload = output.subarray(0, -4); // permessage-deflate strips the tail on the wire
  return zlib.inflateRawSync(Buffer.concat([payload, TAIL]), { finishFlush: zlib.constants.Z_SYNC_FLUSH });
}

function viewDocument(n) {
  return Buffer.from(JSON.stringify({ msg: 'changed', collection: 'meshpulse.views', id: 'rf|{}', fields: { rows: Array.from({ length: 200 }, (_, i) => ({ node: `node-${i}`, snr: (i * n) % 17, rssi: -90 + (i % 30) })) } }));
}

test('large messages are deflated once and the same bytes reused; small ones go out stored', () => {
  const shared = createSharedDeflate({ thresholdBytes: 1024 });
  const doc = viewDocument(1);
  const outputs = [];
  for (let session = 0; session < 50; session++) {
    const stream = shared.zlib.createDeflateRaw({ level: 1, windowBits: 15, memLevel: 8 });
    const chunks = [];
    stream.on('data', (c) => chunks.push(c));
    stream.write(Buffer.from(doc)); // each session converts its own copy of the string
    let flushed = false;
    stream.flush(zlib.constants.Z_SYNC_FLUSH, () => { flushed = true; });
    assert.ok(flushed);
    outputs.push(Buffer.concat(chunks));
  }
  assert.ok(outputs.every((o) => o.equals(outputs[0])));
  assert.deepEqual(receive(outputs[0]), doc);
  const stats = shared.stats();
  assert.equal(stats.compressed, 1, 'one deflate for 50 sessions');
  assert.equal(stats.cacheHits, 49);
  assert.ok(outputs[0].length < doc.length * 0.3, `large view documents compress (${outputs[0].length} of ${doc.length} bytes)`);

  const ping = Buffer.from('{"msg":"ping"}');
  const small = shared.compress(ping, { key: '1/15/8/0', level: 1, windowBits: 15, memLevel: 8, strategy: 0 });
  assert.deepEqual(receive(small), ping);
  assert.equal(shared.stats().stored, 1);
});

test('a receiver keeping its context across messages (context takeover) decodes every message', () => {
  const shared = createSharedDeflate({ thresholdBytes: 100 });
  const params = { key: '6/15/8/0', level: 6, windowBits: 15, memLevel: 8, strategy: 0 };
  const messages = [viewDocument(1), Buffer.from('{"msg":"ready","subs":["a"]}'), viewDocument(2), viewDocument(1), Buffer.alloc(70000, 'x'), Buffer.alloc(0)];
  // One inflate for the whole connection, fed message by message as a browser's would be.
  const inflate = zlib.createInflateRaw();
  const received = [];
  let pending = Promise.resolve();
  for (const message of messages) {
    const output = shared.compress(message, params);
    pending = pending.then(() => new Promise((resolve, reject) => {
      const chunks = [];
      const onData = (c) => chunks.push(c);
      inflate.on('data', onData);
      inflate.once('error', reject);
      inflate.write(Buffer.concat([output.subarray(0, -4), TAIL]));
      inflate.flush(zlib.constants.Z_SYNC_FLUSH, () => { inflate.removeListener('data', onData); received.push(Buffer.concat(chunks)); resolve(); });
    }));
  }
  return pending.then(() => {
    assert.equal(received.length, messages.length);
    messages.forEach((m, i) => assert.deepEqual(received[i], m, `message ${i}`));
    assert.equal(shared.stats().cacheHits, 1, 'the repeated document came from the cache');
  });
});

test('stored blocks split above 64 KB; the cache is bounded; bad thresholds are refused', () => {
  const big = Buffer.alloc(150000, 'y');
  assert.deepEqual(zlib.inflateRawSync(storedBlocks(big), { finishFlush: zlib.constants.Z_SYNC_FLUSH }), big);
  const shared = createSharedDeflate({ thresholdBytes: 0, cacheEntries: 3 });
  const params = { key: '1/15/8/0', level: 1, windowBits: 15, memLevel: 8, strategy: 0 };
  for (let i = 0; i < 10; i++) shared.compress(viewDocument(i + 2), params);
  assert.equal(shared.stats().cacheEntries, 3);
  assert.equal(shared.stats().cacheEvictions, 7);
  assert.throws(() => createSharedDeflate({ thresholdBytes: 70000 }), /thresholdBytes must be between 0 and 65535/);
  // A first-use level outside zlib's (a mistyped MESHPULSE_DEFLATE_FIRST_USE_LEVEL) is refused by name.
  for (const bad of [10, -1, 1.5, NaN, '1']) assert.throws(() => createSharedDeflate({ firstUseLevel: bad }), /firstUseLevel must be a zlib level from 0 to 9/);
  assert.equal(createSharedDeflate({ firstUseLevel: null }).stats().firstUseLevel, null);
});

test('a zlib default level maps to the configured default; different parameters never share bytes', () => {
  const shared = createSharedDeflate({ defaultLevel: 1 });
  const doc = viewDocument(3);
  const run = (opts) => {
    const stream = shared.zlib.createDeflateRaw(opts);
    const chunks = [];
    stream.on('data', (c) => chunks.push(c));
    stream.write(doc);
    stream.flush(() => {});
    return Buffer.concat(chunks);
  };
  const a = run({ level: -1 });
  const b = run({ level: 9 });
  assert.deepEqual(receive(a), doc);
  assert.deepEqual(receive(b), doc);
  assert.equal(shared.stats().compressed, 2);
  // Unconfigured, zlib's default means what it means to zlib: level 6.
  assert.equal(createSharedDeflate().paramsFor({ level: -1 }).level, 6);
  assert.equal(createSharedDeflate().paramsFor({}).level, 6);
  assert.equal(createSharedDeflate().paramsFor({ level: 1 }).level, 1);
});

test('a message first sent by one session is deflated fast; sent again, once more at the session\'s level for every later session', () => {
  const shared = createSharedDeflate({ thresholdBytes: 1024 });
  const params = shared.paramsFor({ level: 6, windowBits: 15, memLevel: 8 });
  const doc = viewDocument(5);
  const deflatedAt = (level) => zlib.deflateRawSync(doc, { level, windowBits: 15, memLevel: 8, finishFlush: zlib.constants.Z_SYNC_FLUSH });
  assert.notDeepEqual(deflatedAt(1), deflatedAt(6), 'the document tells the two levels apart');

  // A method's answer, say: one session.
  const first = shared.compress(Buffer.from(doc), params);
  assert.deepEqual(first, deflatedAt(1));
  assert.deepEqual(receive(first), doc);
  // A second session sends the same bytes: shared after all.
  const second = shared.compress(Buffer.from(doc), params);
  assert.deepEqual(second, deflatedAt(6));
  assert.deepEqual(receive(second), doc);
  const third = shared.compress(Buffer.from(doc), params);
  assert.equal(third, second, 'later sessions reuse the level-6 bytes');
  let stats = shared.stats();
  assert.equal(stats.compressed, 1);
  assert.equal(stats.compressedFirstUse, 1);
  assert.equal(stats.promoted, 1);
  assert.equal(stats.cacheHits, 2);
  assert.equal(stats.cacheBytes, doc.length + second.length, 'the cache counts the bytes it now holds');

  // A pre-framed hub message is shared from the start: the session's level at once, never again.
  const hubDoc = viewDocument(6);
  const framed = shared.compress(Buffer.from(hubDoc), params, true);
  assert.deepEqual(framed, zlib.deflateRawSync(hubDoc, { level: 6, windowBits: 15, memLevel: 8, finishFlush: zlib.constants.Z_SYNC_FLUSH }));
  shared.compress(Buffer.from(hubDoc), params);
  stats = shared.stats();
  assert.equal(stats.promoted, 1, 'nothing to promote');
  assert.equal(stats.compressedFirstUse, 1);

  // A session asking for level 1 (or less than firstUseLevel) gets its own level; null turns the first-use level off.
  const fast = createSharedDeflate({ thresholdBytes: 1024 });
  fast.compress(Buffer.from(doc), fast.paramsFor({ level: 1 }));
  fast.compress(Buffer.from(doc), fast.paramsFor({ level: 1 }));
  assert.equal(fast.stats().compressedFirstUse, 0);
  assert.equal(fast.stats().promoted, 0);
  const always = createSharedDeflate({ thresholdBytes: 1024, firstUseLevel: null });
  assert.deepEqual(always.compress(Buffer.from(doc), params), deflatedAt(6));
  assert.equal(always.stats().compressedFirstUse, 0);
});

// ---- The real packages Meteor configures: permessage-deflate (3.0.x) and permessage-deflate2 (3.1.1+).
// These drive the packages the way faye-websocket's driver does; if a package release changes
// how it uses the `zlib` option, they fail here rather than in production.

/** One websocket connection through a configured extension: frames out as the driver sends them. */
function connect(extension, offer = { client_max_window_bits: true }) {
  const session = extension.createServerSession([offer]);
  assert.ok(session, 'the extension accepts a browser-like offer');
  session.generateResponse();
  return {
    send(data) {
      let frame = null;
      session.processOutgoingMessage({ rsv1: false, rsv2: false, rsv3: false, opcode: 1, data: Buffer.from(data) }, (err, message) => {
        assert.ifError(err);
        frame = message;
      });
      assert.ok(frame, 'with the shared deflate a frame is ready synchronously');
      return frame;
    },
    close: () => session.close(),
  };
}

/** What a browser does with a frame: inflate when RSV1 is set (tail re-appended), else take it. */
function payloadOf(frame) {
  return frame.rsv1 ? zlib.inflateRawSync(Buffer.concat([frame.data, TAIL]), { finishFlush: zlib.constants.Z_SYNC_FLUSH }) : frame.data;
}

test('permessage-deflate 0.1.7 as Meteor 3.0.x configures it: installed, every message through the shared deflate', () => {
  const extension = require('permessage-deflate').configure({}); // SERVER_WEBSOCKET_COMPRESSION unset
  const shared = createSharedDeflate();
  assert.deepEqual(shared.installInto(extension), { installed: true, reason: null, package: 'permessage-deflate', packageThresholdBytes: 0 });
  assert.equal(extension._options.zlib, shared.zlib);
  const doc = viewDocument(4);
  const ping = Buffer.from('{"msg":"ping"}');
  const frames = [];
  for (let i = 0; i < 20; i++) {
    const connection = connect(extension);
    const large = connection.send(doc);
    const small = connection.send(ping);
    assert.equal(large.rsv1, true);
    assert.equal(small.rsv1, true, '0.1.7 has no threshold: small messages are deflate frames (stored blocks)');
    assert.deepEqual(payloadOf(large), doc);
    assert.deepEqual(payloadOf(small), ping);
    frames.push(large.data);
    connection.close();
  }
  // The first connection's send deflated it at the first-use level (level 1); the second made it
  // shared and re-deflated it at zlib's default (6), the bytes every later connection got.
  assert.ok(frames.slice(1).every((f) => f.equals(frames[1])), 'every connection after the first got the same bytes');
  assert.ok(frames[1].length < frames[0].length, `level 6 bytes (${frames[1].length}) are fewer than level 1's (${frames[0].length})`);
  const stats = shared.stats();
  assert.equal(stats.compressed, 1, 'one deflate for 20 connections, one more when it proved shared');
  assert.equal(stats.promoted, 1);
  assert.equal(stats.cacheHits, 19);
  assert.equal(stats.stored, 20);
  assert.equal(stats.package, 'permessage-deflate');
});

test('permessage-deflate2 0.1.8 as Meteor 3.1.1 configures it: installed; under its threshold frames stay plain and never reach zlib', () => {
  const meteorDefaults = {
    threshold: 1024,
    level: zlib.constants.Z_BEST_SPEED,
    memLevel: zlib.constants.Z_MIN_MEMLEVEL,
    noContextTakeover: true,
    maxWindowBits: zlib.constants.Z_MIN_WINDOWBITS,
  };
  const extension = require('permessage-deflate2').configure({ ...meteorDefaults });
  const shared = createSharedDeflate();
  assert.deepEqual(shared.installInto(extension), { installed: true, reason: null, package: 'permessage-deflate2', packageThresholdBytes: 1024 });
  const doc = viewDocument(5);
  const ping = Buffer.from('{"msg":"ping"}');
  const frames = [];
  for (let i = 0; i < 20; i++) {
    // A client that also limits the server window (Meteor's 8 becomes zlib's 9): still decodable.
    const connection = connect(extension, i % 2 ? { client_max_window_bits: true } : { server_max_window_bits: 8 });
    const large = connection.send(doc);
    const small = connection.send(ping);
    assert.equal(large.rsv1, true);
    assert.equal(small.rsv1, false, 'under 1 KB: a plain frame');
    assert.deepEqual(small.data, ping);
    assert.deepEqual(payloadOf(large), doc);
    frames.push(large.data);
    connection.close();
  }
  assert.ok(frames.every((f) => f.equals(frames[0])));
  const stats = shared.stats();
  assert.equal(stats.messages, 20, 'only the large messages reached the shared deflate');
  assert.equal(stats.compressed, 1);
  assert.equal(stats.cacheHits, 19);
  assert.equal(stats.stored, 0);
  assert.equal(stats.packageThresholdBytes, 1024);

  // SERVER_WEBSOCKET_COMPRESSION='{"threshold":0}': the package hands every message over, small ones go out stored.
  const everything = require('permessage-deflate2').configure({ ...meteorDefaults, threshold: 0 });
  const sharedAll = createSharedDeflate();
  assert.equal(sharedAll.installInto(everything).installed, true);
  const frame = connect(everything).send(ping);
  assert.equal(frame.rsv1, true);
  assert.deepEqual(payloadOf(frame), ping);
  assert.equal(sharedAll.stats().stored, 1);
});

test('an extension that does not drive the zlib option as expected is left alone, with the reason', () => {
  const real = require('permessage-deflate2').configure({ threshold: 1024 });
  // A package release that stopped reading `zlib`: sessions would deflate on their own.
  const ignoresZlib = { name: 'permessage-deflate', _options: { threshold: 1024 }, createServerSession: (offers) => real.createServerSession(offers) };
  const shared = createSharedDeflate();
  const result = shared.installInto(ignoresZlib);
  assert.equal(result.installed, false);
  assert.match(result.reason, /permessage-deflate2 did not drive the shared deflate as expected/);
  assert.equal(ignoresZlib._options.zlib, undefined, 'the package keeps its own per-session zlib streams');
  assert.equal(shared.stats().messages, 0, 'the probe used its own shared deflate');
  // Not an extension at all.
  assert.match(shared.installInto({ name: 'x-webkit-deflate-frame' }).reason, /not a permessage-deflate extension/);
  assert.match(shared.installInto({ name: 'permessage-deflate' }).reason, /no _options object/);
  assert.equal(probeExtension(require('permessage-deflate').configure({})).ok, true);
});
