'use strict';
/**
 * libsodium through the optional `sodium-native` package (prebuilt for Linux, macOS and Windows on
 * x64 and arm64), or null where it does not load (not installed, no prebuild, `--omit=optional`).
 * Callers keep a Node-crypto path for null: same results, only slower.
 *
 * A literal require(): Meteor's bundler ships only the modules it sees required by name (required
 * through a variable, the server bundle had no sodium-native and fell back).
 * `requireModule` is for tests.
 */
function loadSodium(requireModule = null) {
  try {
    const sodium = requireModule !== null ? requireModule('sodium-native') : require('sodium-native');
    if (typeof sodium.crypto_sign_verify_detached !== 'function' || typeof sodium.crypto_hash_sha256 !== 'function') return null;
    return sodium;
  } catch (err) {
    return null;
  }
}

module.exports = { loadSodium, sodium: loadSodium() };
