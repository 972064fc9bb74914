'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const zlib = require('zlib');
const { createSharedDeflate, storedBlocks } = require('../../imports/core/shared-deflate');

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
});
