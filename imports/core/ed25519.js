'use strict';
/**
 * Ed25519 signature checks for adverts, through the fastest backend this machine can load.
 *
 * Node's crypto (OpenSSL) verifies one advert in ~110-130 µs on the reference machine; libsodium
 * (the optional `sodium-native` package, prebuilt for Linux, macOS and Windows on x64 and arm64)
 * in ~60-70 µs. Verification was 16% of default-mesh ingest with Node's crypto (benchmarks/CORE.md),
 * so libsodium is used when it loads and Node's crypto otherwise: an install without it (a platform
 * with no prebuild, `npm install --omit=optional`) works the same, only slower.
 *
 * Both backends answer the same for every honestly signed advert (tests/core/ed25519.test.js); on
 * crafted inputs libsodium is the stricter (it refuses small-order keys and non-canonical
 * encodings), and either refusal only makes an advert count as `bad_signature`.
 *
 * `MESHPULSE_ED25519=node` forces Node's crypto (benchmarks measure one backend against the other).
 */
const crypto = require('crypto');
const { loadSodium, sodium: loadedSodium } = require('./sodium');

// Importing a key costs about a tenth of verifying with it, and a node adverts again and again:
// keep the most recent keys (a bounded Map used as an LRU; random-key floods just cycle it).
const KEY_CACHE_SIZE = 4096;

function createNodeVerifier() {
  const keyCache = new Map();
  function publicKeyOf(publicKey) {
    const id = publicKey.toString('latin1');
    let key = keyCache.get(id);
    if (key !== undefined) {
      keyCache.delete(id);
      keyCache.set(id, key);
      return key;
    }
    // JWK import measured ~10x faster than DER here (15 vs 140 µs per key).
    key = crypto.createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: publicKey.toString('base64url') }, format: 'jwk' });
    keyCache.set(id, key);
    if (keyCache.size > KEY_CACHE_SIZE) keyCache.delete(keyCache.keys().next().value);
    return key;
  }
  return {
    name: 'node-crypto',
    verify(publicKey, message, signature) {
      try {
        return crypto.verify(null, message, publicKeyOf(publicKey), signature);
      } catch (err) {
        return false; // not a valid curve point: no key can have signed it
      }
    },
  };
}

function createSodiumVerifier(sodium) {
  return {
    name: 'libsodium',
    verify(publicKey, message, signature) {
      try {
        return sodium.crypto_sign_verify_detached(signature, message, publicKey);
      } catch (err) {
        return false;
      }
    },
  };
}

/**
 * A verifier { name, verify(publicKey32, message, signature64) -> boolean }. `prefer`: 'auto'
 * (libsodium when it loads), 'node' or 'libsodium' (falls back to node when it does not load).
 */
function createVerifier(prefer = 'auto', requireModule = null) {
  if (prefer !== 'node') {
    const sodium = requireModule === null ? loadedSodium : loadSodium(requireModule);
    if (sodium !== null) return createSodiumVerifier(sodium);
  }
  return createNodeVerifier();
}

const defaultVerifier = createVerifier(process.env.MESHPULSE_ED25519 === 'node' ? 'node' : 'auto');

/** Verify with the process's backend (see `backend`). Arguments are Buffers (32, any, 64 bytes). */
function verifyEd25519(publicKey, message, signature) {
  if (publicKey.length !== 32 || signature.length !== 64) return false;
  return defaultVerifier.verify(publicKey, message, signature);
}

module.exports = { verifyEd25519, createVerifier, backend: defaultVerifier.name };
