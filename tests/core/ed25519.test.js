'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('crypto');
const { createVerifier, verifyEd25519, backend } = require('../../imports/core/ed25519');
const { seededRandom } = require('../helpers/mesh');
const { keyPairFromSeed } = require('../../imports/core/simulate/packets');

/**
 * A signing key and its raw 32-byte public key, from random seed bytes. Not through
 * generateKeyPairSync: on Node 20 exporting a key it generated can deadlock the process when a
 * GC runs during the export (the finished key-generation job's destructor waits on the mutex the
 * export holds; seen once here, the test process asleep in futex_wait for 10 minutes).
 */
function keyPair() {
  const { privateKey, publicKey } = keyPairFromSeed(crypto.randomBytes(32));
  return { privateKey, raw: publicKey };
}

/** Signed messages, and the same with one bit changed in the key, the message or the signature. */
function cases() {
  const random = seededRandom(25519);
  const list = [];
  for (let i = 0; i < 24; i++) {
    const { privateKey, raw } = keyPair();
    const message = Buffer.from(Array.from({ length: 36 + Math.floor(random() * 60) }, () => Math.floor(random() * 256)));
    const signature = crypto.sign(null, message, privateKey);
    list.push({ publicKey: raw, message, signature, valid: true });
    const at = (buffer) => Math.floor(random() * buffer.length);
    const flip = (buffer) => { const copy = Buffer.from(buffer); copy[at(copy)] ^= 1 << Math.floor(random() * 8); return copy; };
    list.push({ publicKey: flip(raw), message, signature, valid: false });
    list.push({ publicKey: raw, message: flip(message), signature, valid: false });
    list.push({ publicKey: raw, message, signature: flip(signature), valid: false });
  }
  // Keys no one can sign with: all zeros (a small-order point) and bytes that are no curve point.
  const { privateKey } = keyPair();
  const message = Buffer.from('meshpulse');
  const signature = crypto.sign(null, message, privateKey);
  list.push({ publicKey: Buffer.alloc(32), message, signature, valid: false });
  list.push({ publicKey: Buffer.alloc(32, 0xff), message, signature, valid: false });
  return list;
}

const sodiumLoads = (() => { try { require('sodium-native'); return true; } catch (err) { return false; } })();

test('libsodium and Node\'s crypto give the same answer on signed, altered and impossible inputs', () => {
  const node = createVerifier('node');
  assert.equal(node.name, 'node-crypto');
  const verifiers = [node];
  if (sodiumLoads) verifiers.push(createVerifier('libsodium'));
  for (const verifier of verifiers) {
    for (const [i, c] of cases().entries()) {
      assert.equal(verifier.verify(c.publicKey, c.message, c.signature), c.valid, `${verifier.name}, case ${i}`);
    }
  }
});

test('the process uses libsodium whenever sodium-native loads, Node\'s crypto otherwise', () => {
  const forcedNode = process.env.MESHPULSE_ED25519 === 'node';
  assert.equal(backend, sodiumLoads && !forcedNode ? 'libsodium' : 'node-crypto');
});

test('a missing or broken sodium-native falls back to Node\'s crypto, which still verifies', () => {
  const missing = () => { throw new Error("Cannot find module 'sodium-native'"); };
  const wrongShape = () => ({});
  for (const requireModule of [missing, wrongShape]) {
    const verifier = createVerifier('auto', requireModule);
    assert.equal(verifier.name, 'node-crypto');
    for (const c of cases().slice(0, 8)) assert.equal(verifier.verify(c.publicKey, c.message, c.signature), c.valid);
  }
});

test('keys and signatures of the wrong length are refused, not thrown on', () => {
  const { privateKey, raw } = keyPair();
  const message = Buffer.from('advert');
  const signature = crypto.sign(null, message, privateKey);
  assert.equal(verifyEd25519(raw, message, signature), true);
  assert.equal(verifyEd25519(raw.subarray(0, 31), message, signature), false);
  assert.equal(verifyEd25519(raw, message, signature.subarray(0, 63)), false);
  assert.equal(verifyEd25519(Buffer.concat([raw, Buffer.alloc(1)]), message, signature), false);
});
