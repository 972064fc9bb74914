'use strict';
// The decoder's bounded memos (README, "Memory, caps and hostile input"), past their bounds and
// on the collisions they must survive: each answer equals one computed without a memo.
// A file of its own: the memos are per process, and these tests fill them.
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('crypto');
const { decodePacket, createDecodeScratch, verifyAdvertSignature, signatureChecks } = require('../../imports/core/decode');
const { createVerifier } = require('../../imports/core/ed25519');
const { keyPairFromSeed } = require('../../imports/core/simulate/packets');
const { seededRandom } = require('../helpers/mesh');

const TXT_MSG = 2;
const FLOOD = 1;
const HEADER = ((TXT_MSG << 2) | FLOOD).toString(16).padStart(2, '0');

/** The memos' 32-bit FNV-1a key: `seed` mixed in first, then every byte. */
function fnvKey(seed, bytes) {
  let key = Math.imul(0x811c9dc5 ^ seed, 16777619);
  for (const byte of bytes) key = Math.imul(key ^ byte, 16777619);
  return key;
}

/** Two different byte strings of `length` with the same key (a birthday search, seeded). */
function collidingBytes(seed, length, randomSeed) {
  const random = seededRandom(randomSeed);
  const seen = new Map();
  for (let trial = 0; trial < 2000000; trial++) {
    const bytes = Buffer.from(Array.from({ length }, () => Math.floor(random() * 256)));
    const key = fnvKey(seed, bytes);
    const earlier = seen.get(key);
    if (earlier !== undefined && !earlier.equals(bytes)) return [earlier, bytes];
    seen.set(key, bytes);
  }
  throw new Error('no collision found');
}

test('the content-hash memo: two payloads with the same memo key and length each get their own hash', () => {
  const [a, b] = collidingBytes(TXT_MSG, 10, 11);
  const firmwareHash = (payload) => crypto.createHash('sha256').update(Buffer.from([TXT_MSG])).update(payload).digest('hex').slice(0, 16);
  const hex = (payload) => `${HEADER}00${payload.toString('hex')}`;
  assert.notEqual(firmwareHash(a), firmwareHash(b));
  for (const payload of [a, b, a, b, b, a]) assert.equal(decodePacket(hex(payload)).packet.hash, firmwareHash(payload), payload.toString('hex'));
});

test('the path memo: two paths with the same memo key each decode to their own hops', () => {
  const hops = 6; // of 1 byte: path length byte 0x06
  const hashSize = 1;
  const [a, b] = collidingBytes(hops ^ (hashSize << 6), hops, 12); // the key mixes in hop count and hash size first
  const scratch = createDecodeScratch(); // the store's way of decoding, through the memo
  const hex = (path) => `${HEADER}06${path.toString('hex')}0102030405`;
  const hopsOf = (path) => Array.from(path, (byte) => byte.toString(16).padStart(2, '0'));
  for (const path of [a, b, a, a, b]) {
    const decoded = decodePacket(hex(path), { scratch });
    assert.deepEqual([...decoded.packet.path], hopsOf(path), path.toString('hex'));
  }
});

test('hop strings past the interning bound still decode to their hex', () => {
  // 63 hops of 3 bytes per packet: 3,300 packets name ~208,000 distinct hops, past the 200,000 interned.
  let value = 0;
  for (let packet = 0; packet < 3300; packet++) {
    const path = Buffer.alloc(63 * 3);
    for (let hop = 0; hop < 63; hop++, value++) path.writeUIntBE(value, hop * 3, 3);
    const { packet: decoded } = decodePacket(`${HEADER}bf${path.toString('hex')}01020304`); // 0xbf: 63 hops of 3 bytes
    if (packet % 100 !== 99) continue;
    assert.deepEqual(decoded.path, Array.from({ length: 63 }, (_, hop) => path.toString('hex', hop * 3, hop * 3 + 3)));
  }
  // Values interned early and values past the bound, in one path, decode alike.
  const mixed = decodePacket(`${HEADER}83000001${(value - 1).toString(16).padStart(6, '0')}00000201020304`).packet.path; // 0x83: 3 hops of 3 bytes
  assert.deepEqual(mixed, ['000001', (value - 1).toString(16).padStart(6, '0'), '000002']);
});

/** An advert payload: public key, timestamp, signature over key + timestamp + app data, app data. */
function advertPayload(key, timestamp, name) {
  const appData = Buffer.concat([Buffer.from([0x81]), Buffer.from(name)]); // a chat node, named
  const time = Buffer.alloc(4);
  time.writeUInt32LE(timestamp);
  const signature = crypto.sign(null, Buffer.concat([key.publicKey, time, appData]), key.privateKey);
  return Buffer.concat([key.publicKey, time, signature, appData]);
}

test('the verified-advert memo: past its 1,024 adverts the oldest are verified again, and altered bytes are never taken for verified', () => {
  const key = keyPairFromSeed(Buffer.alloc(32, 7));
  const adverts = Array.from({ length: 1100 }, (_, i) => advertPayload(key, 1700000000 + i, `node ${i}`));
  const before = { ...signatureChecks };
  for (const advert of adverts) assert.equal(verifyAdvertSignature(advert), true);
  assert.equal(signatureChecks.verified - before.verified, 1100);
  // The newest are remembered; the oldest left the ring and are checked again.
  const remembered = signatureChecks.remembered;
  assert.equal(verifyAdvertSignature(adverts[1099]), true);
  assert.equal(signatureChecks.remembered, remembered + 1);
  const verified = signatureChecks.verified;
  assert.equal(verifyAdvertSignature(adverts[0]), true);
  assert.equal(signatureChecks.verified, verified + 1);
  // A remembered advert with one app-data byte changed: other bytes, so checked, and refused.
  const forged = Buffer.from(adverts[1099]);
  forged[forged.length - 1] ^= 1;
  assert.equal(verifyAdvertSignature(forged), false);
  assert.equal(verifyAdvertSignature(forged), false, 'and remembered as refused');
});

test('Node\'s crypto key cache: past its 4,096 keys, a key imported again still verifies only its own signatures', () => {
  const verifier = createVerifier('node');
  const message = Buffer.from('meshpulse');
  const keys = Array.from({ length: 4200 }, (_, i) => {
    const seed = Buffer.alloc(32);
    seed.writeUInt32BE(i + 1);
    return keyPairFromSeed(seed);
  });
  const signatures = keys.map((key) => crypto.sign(null, message, key.privateKey));
  for (let i = 0; i < keys.length; i++) assert.equal(verifier.verify(keys[i].publicKey, message, signatures[i]), true, `key ${i}`);
  // The first keys left the cache: imported again, each verifies its own signature and not another's.
  for (let i = 0; i < 50; i++) {
    assert.equal(verifier.verify(keys[i].publicKey, message, signatures[i]), true, `key ${i} again`);
    assert.equal(verifier.verify(keys[i].publicKey, message, signatures[i + 1]), false, `key ${i}, another's signature`);
  }
});
