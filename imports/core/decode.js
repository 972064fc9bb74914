'use strict';
/**
 * MeshCore packet decoding: raw hex (as observers publish it) -> a compact packet record.
 *
 * Why not call @michaelhart/meshcore-decoder on the hot path: it builds hex strings and
 * segment objects for every field and runs at about 30k packets/s here, which alone would
 * eat the whole ingest budget. This module reads the same wire format straight from a
 * Buffer (several times faster); the library stays our reference: the tests check this decoder
 * against it on every real fixture packet and every simulated one, and `layout()` below is
 * cross-checked against its `analyzeStructure`.
 *
 * Nothing throws out of this module: every bad input gives `{ error: { reason, message } }`
 * with a reason from DECODE_ERRORS, so callers can count and keep it.
 */
const crypto = require('crypto');
const { verifyEd25519 } = require('./ed25519');
const { sodium } = require('./sodium');
const { hashOfHops } = require('./path-interner');

const ROUTE_TYPES = ['TRANSPORT_FLOOD', 'FLOOD', 'DIRECT', 'TRANSPORT_DIRECT'];
const PAYLOAD_TYPES = {
  0: 'REQ', 1: 'RESPONSE', 2: 'TXT_MSG', 3: 'ACK', 4: 'ADVERT', 5: 'GRP_TXT', 6: 'GRP_DATA',
  7: 'ANON_REQ', 8: 'PATH', 9: 'TRACE', 10: 'MULTIPART', 11: 'CONTROL', 15: 'RAW_CUSTOM',
};
const PAYLOAD_TYPE_IDS = Object.fromEntries(Object.entries(PAYLOAD_TYPES).map(([id, name]) => [name, Number(id)]));
const ROLES = { 0: 'unknown', 1: 'companion', 2: 'repeater', 3: 'room', 4: 'sensor' };

/** The reasons a packet can be rejected with; `reason` is one of these keys. */
const DECODE_ERRORS = {
  not_string: 'input is not a string',
  not_hex: 'input is not an even-length hex string',
  too_short: 'packet shorter than 2 bytes (header and path length)',
  too_long: 'packet longer than 255 bytes (MeshCore MAX_TRANS_UNIT)',
  truncated_transport: 'route type carries transport codes but the packet ends inside them',
  reserved_hash_size: 'path length byte uses the reserved hash size (bits 7:6 = 11)',
  truncated_path: 'packet ends inside its path',
  truncated_payload: 'payload shorter than its type requires',
};

const MAX_PACKET_BYTES = 255;
// Shared by every zero-hop packet; frozen so that no caller can append to it.
const EMPTY_PATH = Object.freeze([]);

// Minimum payload lengths per type; shorter payloads are truncated fields, not packets.
const MIN_PAYLOAD = { 0: 4, 1: 4, 2: 4, 3: 4, 4: 100, 5: 3, 6: 3, 7: 35, 8: 4, 9: 9, 11: 1 };

function fail(reason, extra) {
  return { error: { reason, message: extra ? `${DECODE_ERRORS[reason]} (${extra})` : DECODE_ERRORS[reason] } };
}

/**
 * MeshCore's content hash: first 8 bytes of SHA-256 over the payload-type byte, then the
 * path-length byte for TRACE only, then the payload. Path and route are left out so that
 * one transmission heard over different paths has one hash.
 */
// One-shot hashing (Node >= 20.12) over one scratch buffer is ~35% cheaper than a Hash object
// with two updates; every report is hashed, so it shows in the ingest rate.
const oneShotHash = typeof crypto.hash === 'function' ? crypto.hash : null;
// SHA-256 of a short input into `out` (32 bytes): libsodium's takes ~0.6 µs here against ~1.0-1.2
// for Node's one-shot crypto.hash (which also allocates its result), and there is one per new
// transmission and two per group-message MAC check. Same digest either way (tests/core/decode.test.js).
const sha256Into = sodium !== null
  ? (out, input) => { sodium.crypto_hash_sha256(out, input); return out; }
  : oneShotHash !== null ? (out, input) => { oneShotHash('sha256', input, 'buffer').copy(out); return out; } : null;
const digestScratch = Buffer.alloc(32);

// Repeats of one transmission hash the same bytes (every observer's copy; half the reports on
// the default mesh, 6 in 7 on the large one): recent hashed bytes give their hash back without
// SHA-256. A direct-mapped memo of HASH_MEMO_SIZE slots keyed by a 32-bit FNV-1a of the bytes,
// each slot holding the bytes themselves (compared in full, so a collision is only a miss) and
// the hash: no string is built and no Map is probed per report. Fixed size (~1 MB), allocated once.
const HASH_MEMO_SIZE = 4096; // a power of two
const HASH_MEMO_SLOT = 2 + 256; // type byte, TRACE's path-length byte, payload
const hashMemoBytes = Buffer.alloc(HASH_MEMO_SIZE * HASH_MEMO_SLOT);
const hashMemoLengths = new Int32Array(HASH_MEMO_SIZE); // 0 = empty
const hashMemoKeys = new Int32Array(HASH_MEMO_SIZE);
const hashMemoHashes = new Array(HASH_MEMO_SIZE).fill(null);

function contentHash(payloadType, pathLenByte, bytes, payloadOffset, end = bytes.length) {
  // toString on the 8 bytes, not slice() of the 64-char hex: a slice would keep the whole
  // parent string alive in every stored transmission.
  if (sha256Into !== null && end - payloadOffset <= 256) {
    const isTrace = payloadType === 9;
    const length = (isTrace ? 2 : 1) + end - payloadOffset;
    let key = Math.imul(0x811c9dc5 ^ payloadType, 16777619);
    if (isTrace) key = Math.imul(key ^ pathLenByte, 16777619);
    for (let i = payloadOffset; i < end; i++) key = Math.imul(key ^ bytes[i], 16777619);
    const slot = key & (HASH_MEMO_SIZE - 1);
    const at = slot * HASH_MEMO_SLOT;
    if (hashMemoKeys[slot] === key && hashMemoLengths[slot] === length && memoHolds(at, payloadType, pathLenByte, isTrace, bytes, payloadOffset, end)) {
      return hashMemoHashes[slot];
    }
    let to = at;
    hashMemoBytes[to++] = payloadType;
    if (isTrace) hashMemoBytes[to++] = pathLenByte;
    bytes.copy(hashMemoBytes, to, payloadOffset, end);
    const hash = sha256Into(digestScratch, hashMemoBytes.subarray(at, at + length)).toString('hex', 0, 8);
    hashMemoKeys[slot] = key;
    hashMemoLengths[slot] = length;
    hashMemoHashes[slot] = hash;
    return hash;
  }
  const sha = crypto.createHash('sha256');
  sha.update(payloadType === 9 ? Buffer.from([payloadType, pathLenByte]) : Buffer.from([payloadType]));
  sha.update(bytes.subarray(payloadOffset, end));
  return sha.digest().toString('hex', 0, 8);
}

/** The memo slot at byte `at` holds exactly these hashed bytes (its length already matched). */
function memoHolds(at, payloadType, pathLenByte, isTrace, bytes, payloadOffset, end) {
  const memo = hashMemoBytes;
  let i = at;
  if (memo[i++] !== payloadType) return false;
  if (isTrace && memo[i++] !== pathLenByte) return false;
  return sameBytes(memo, i, bytes, payloadOffset, end - payloadOffset);
}

/** a[aStart ..] and b[bStart ..] hold the same `length` bytes (both memos' check; no view made). */
function sameBytes(a, aStart, b, bStart, length) {
  for (let i = 0; i < length; i++) if (a[aStart + i] !== b[bStart + i]) return false;
  return true;
}

/**
 * Hop hashes, source/destination hashes and channel hashes repeat endlessly (a mesh has a few
 * hundred nodes), so each distinct short hex string is kept once and shared by every packet
 * that mentions it. Bounded: past MAX_INTERNED distinct values, new ones are not interned.
 */
const MAX_INTERNED = 200000;
const interned = new Map();

function hexOf(bytes, start, end) {
  // Key by the numeric value (at most 3 bytes here) plus length, to avoid building a string first.
  let key = end - start;
  for (let i = start; i < end; i++) key = key * 256 + bytes[i];
  let value = interned.get(key);
  if (value === undefined) {
    value = bytes.toString('hex', start, end);
    if (interned.size < MAX_INTERNED) interned.set(key, value);
  }
  return value;
}

/**
 * Channel keyring: channel hash (first byte of SHA-256 of the key) -> candidate keys.
 * Accepts `{ name, key }` (16-byte hex) or a `#hashtag` string, whose key is the first 16
 * bytes of SHA-256 of the name including '#'.
 */
const PUBLIC_CHANNEL = { name: 'Public', key: '8b3387e9c5cdea6ac9e5edbaa115cd72' };

function channelKeyFromName(name) {
  return crypto.createHash('sha256').update(name, 'utf8').digest().subarray(0, 16);
}

function createKeyring(channels = [PUBLIC_CHANNEL]) {
  const byHash = new Map();
  for (const entry of channels) {
    const channel = typeof entry === 'string' ? { name: entry } : entry;
    const key = channel.key ? Buffer.from(channel.key, 'hex') : channelKeyFromName(channel.name);
    if (key.length !== 16) continue;
    const hash = crypto.createHash('sha256').update(key).digest()[0].toString(16).padStart(2, '0');
    if (!byHash.has(hash)) byHash.set(hash, []);
    byHash.get(hash).push({ name: channel.name, key, hash });
  }
  return { byHash, has: (hash) => byHash.has(hash), get: (hash) => byHash.get(hash) || [] };
}

/**
 * Per channel key, what every message under it reuses: the HMAC-SHA256 key pads (the MAC key is
 * the 16-byte key zero-padded to 32 bytes) and one AES-128-ECB decipher. ECB has no chaining and
 * padding is off, so update() decrypts whole blocks and the decipher serves every message
 * (creating an Hmac and a Decipher per message was most of a group message's decode time).
 */
const channelContexts = new WeakMap(); // key Buffer -> { innerPad, outerPad, decipher }
const macScratch = Buffer.allocUnsafe(64 + 256);

function channelContext(key) {
  let context = channelContexts.get(key);
  if (context === undefined) {
    const innerPad = Buffer.alloc(64, 0x36);
    const outerPad = Buffer.alloc(64, 0x5c);
    for (let i = 0; i < key.length; i++) {
      innerPad[i] ^= key[i];
      outerPad[i] ^= key[i];
    }
    const decipher = crypto.createDecipheriv('aes-128-ecb', key, null);
    decipher.setAutoPadding(false);
    context = { innerPad, outerPad, decipher };
    channelContexts.set(key, context);
  }
  return context;
}

/** The first two bytes of HMAC-SHA256(key zero-padded to 32 bytes, data) match `mac`. */
function macMatches(key, mac, data) {
  if (sha256Into === null || data.length > 256) {
    const secret = Buffer.alloc(32);
    key.copy(secret);
    const expected = crypto.createHmac('sha256', secret).update(data).digest();
    return expected[0] === mac[0] && expected[1] === mac[1];
  }
  const { innerPad, outerPad } = channelContext(key);
  innerPad.copy(macScratch, 0);
  data.copy(macScratch, 64);
  sha256Into(digestScratch, macScratch.subarray(0, 64 + data.length));
  outerPad.copy(macScratch, 0);
  digestScratch.copy(macScratch, 64);
  const expected = sha256Into(digestScratch, macScratch.subarray(0, 96));
  return expected[0] === mac[0] && expected[1] === mac[1];
}

/** Verify the 2-byte MAC, then AES-128-ECB-decrypt a group message; null when the key does not fit. */
function decryptGroupText(key, mac, ciphertext) {
  if (key.length !== 16 || ciphertext.length === 0 || ciphertext.length % 16 !== 0) return null;
  if (!macMatches(key, mac, ciphertext)) return null;
  const plain = channelContext(key).decipher.update(ciphertext);
  if (plain.length !== ciphertext.length) return null;
  const timestamp = plain.readUInt32LE(0);
  const flags = plain[4];
  let end = plain.indexOf(0, 5);
  if (end < 0) end = plain.length;
  const body = plain.toString('utf8', 5, end);
  const colon = body.indexOf(': ');
  return {
    timestamp,
    textType: flags >> 2,
    sender: colon > 0 ? body.slice(0, colon) : null,
    text: colon > 0 ? body.slice(colon + 2) : body,
  };
}

/**
 * MeshCore signs an advert's public key + timestamp + app data (flags, location, name) with the
 * node's Ed25519 key; the signature sits between the timestamp and the app data. True when it
 * verifies: only then may the advert speak for that key (name, role, position).
 */
function verifyAdvertSignature(payload) {
  if (payload.length < 100) return false;
  // The same signed bytes give the same answer: an advert replayed after its first copy left the
  // store (its content hash no longer known) is not verified again (~150 us each here).
  const signedBytes = payload.toString('latin1');
  const known = verifiedAdverts.get(signedBytes);
  if (known !== undefined) {
    signatureChecks.remembered++;
    return known;
  }
  signatureChecks.verified++;
  const valid = verifyUncached(payload);
  const slot = verifiedNext;
  verifiedNext = slot + 1 === VERIFIED_CACHE_SIZE ? 0 : slot + 1;
  if (verifiedRing[slot] !== null) verifiedAdverts.delete(verifiedRing[slot]);
  verifiedRing[slot] = signedBytes;
  verifiedAdverts.set(signedBytes, valid);
  return valid;
}

// Ed25519 verifications run, and answers given from the memo below (this process, every store).
const signatureChecks = { verified: 0, remembered: 0 };

// Recent advert payloads (all of their bytes, so a replayed signature over other bytes is never
// taken for verified) -> whether they verified; a ring overwrites the oldest.
const VERIFIED_CACHE_SIZE = 1024;
const verifiedAdverts = new Map();
const verifiedRing = new Array(VERIFIED_CACHE_SIZE).fill(null);
let verifiedNext = 0;

function verifyUncached(payload) {
  const signed = Buffer.concat([payload.subarray(0, 36), payload.subarray(100)]);
  return verifyEd25519(payload.subarray(0, 32), signed, payload.subarray(36, 100));
}

function parseAdvert(payload) {
  const advert = {
    pubKey: payload.toString('hex', 0, 32),
    timestamp: payload.readUInt32LE(32),
    signature: payload.toString('hex', 36, 100),
    flags: 0, role: 'unknown', lat: null, lon: null, name: null,
    // true/false once checked (decodePacket's verifyAdverts option), null when not checked.
    signatureValid: null,
  };
  if (payload.length <= 100) return advert;
  let offset = 100;
  const flags = payload[offset++];
  advert.flags = flags;
  advert.role = ROLES[flags & 0x0f] || 'unknown';
  if (flags & 0x10) {
    if (payload.length < offset + 8) return null;
    advert.lat = payload.readInt32LE(offset) / 1e6;
    advert.lon = payload.readInt32LE(offset + 4) / 1e6;
    offset += 8;
  }
  if (flags & 0x20) offset += 2; // feature 1, reserved
  if (flags & 0x40) offset += 2; // feature 2, reserved
  if (flags & 0x80 && payload.length > offset) {
    let end = payload.indexOf(0, offset);
    if (end < 0) end = payload.length;
    advert.name = payload.toString('utf8', offset, end);
  }
  return advert;
}

/**
 * Decode one packet. `input` is the raw packet as hex (any case) or a Buffer.
 * Options: `keyring` (from createKeyring) to decrypt GRP_TXT; `isKnown(hash)` to skip the
 * payload of transmissions already stored (then `{ packet, repeat: true }` with payload fields null).
 * Returns `{ packet }` or `{ error: { reason, message } }`.
 */
/** A new hop list read from the path bytes (exact size: push() would reserve 16+ slots). */
function pathOf(bytes, pathOffset, hopCount, hashSize) {
  const path = new Array(hopCount);
  for (let i = 0; i < hopCount; i++) {
    const start = pathOffset + i * hashSize;
    path[i] = hexOf(bytes, start, start + hashSize);
  }
  return path;
}

// A mesh repeats its routes: for a caller that only shares or copies the hop list (the store,
// through its path interner, which never mutates one), the same path bytes give the same array
// back. Direct-mapped by a hash of the path length byte and hops; a slot keeps the bytes' key,
// the path bytes themselves (compared byte by byte: re-deriving each hop's interned string to
// compare it cost a Map probe per hop) and the array. Fixed size (~160 KB), allocated once.
const PATH_MEMO_SIZE = 2048; // a power of two
const PATH_MEMO_SLOT = 64; // MeshCore's longest path; a longer one is decoded without the memo
const pathMemoKeys = new Int32Array(PATH_MEMO_SIZE);
const pathMemoShapes = new Int32Array(PATH_MEMO_SIZE); // hopCount | hashSize << 8 (0: empty)
const pathMemoBytes = Buffer.alloc(PATH_MEMO_SIZE * PATH_MEMO_SLOT);
const pathMemoPaths = new Array(PATH_MEMO_SIZE).fill(EMPTY_PATH);
// Each memoized path's hashOfHops, the key the store's path interner files it under: computed
// once per path here rather than hop by hop on every report there (see `pathHash`).
const pathMemoHopHashes = new Int32Array(PATH_MEMO_SIZE);
// The hashOfHops of the path the last memoPath call returned (null: not memoized).
let memoPathHash = null;

function memoPath(bytes, pathOffset, hopCount, hashSize) {
  const length = hopCount * hashSize;
  if (length > PATH_MEMO_SLOT) {
    memoPathHash = null;
    return pathOf(bytes, pathOffset, hopCount, hashSize);
  }
  const end = pathOffset + length;
  let key = Math.imul(0x811c9dc5 ^ hopCount ^ (hashSize << 6), 16777619);
  for (let i = pathOffset; i < end; i++) key = Math.imul(key ^ bytes[i], 16777619);
  const slot = key & (PATH_MEMO_SIZE - 1);
  const shape = hopCount | (hashSize << 8);
  const at = slot * PATH_MEMO_SLOT;
  if (pathMemoKeys[slot] === key && pathMemoShapes[slot] === shape && sameBytes(pathMemoBytes, at, bytes, pathOffset, length)) {
    memoPathHash = pathMemoHopHashes[slot];
    return pathMemoPaths[slot];
  }
  const path = pathOf(bytes, pathOffset, hopCount, hashSize);
  pathMemoKeys[slot] = key;
  pathMemoShapes[slot] = shape;
  bytes.copy(pathMemoBytes, at, pathOffset, end);
  pathMemoPaths[slot] = path;
  memoPathHash = pathMemoHopHashes[slot] = hashOfHops(path);
  return path;
}

/**
 * A reusable decode result for a caller that keeps nothing of it but the per-type content
 * objects (advert, message, trace) and the path (the store): `decodePacket(input, { scratch })`
 * fills `scratch.packet` and returns `scratch` ({ packet, repeat, bytes, length }: `bytes` holds
 * the packet's `length` bytes until the next decode) instead of allocating. Its path may be an
 * array an earlier decode returned: share it, never change it. Errors are still new objects.
 */
function createDecodeScratch() {
  const scratch = { packet: null, repeat: false, bytes: null, length: 0 };
  scratch.packet = decodePacket('050000000000').packet; // a RESPONSE: the shape of every decoded packet
  return scratch;
}

// Hex input is decoded into this scratch buffer (no Buffer allocated per report). Nothing that
// decodePacket returns points into it: fields are copied out as strings and numbers.
const hexScratch = Buffer.allocUnsafe(MAX_PACKET_BYTES);

function decodePacket(input, options = {}) {
  let bytes;
  let length;
  if (Buffer.isBuffer(input)) {
    bytes = input;
    length = input.length;
  } else if (typeof input !== 'string') return fail('not_string');
  else {
    if (input.length % 2 !== 0) return fail('not_hex');
    if (input.length <= 2 * MAX_PACKET_BYTES) {
      bytes = hexScratch;
      length = hexScratch.write(input, 0, MAX_PACKET_BYTES, 'hex');
    } else {
      bytes = Buffer.from(input, 'hex');
      length = bytes.length;
    }
    // Decoding hex stops at the first non-hex pair, so a short result means bad input
    // (cheaper than a regular expression over every packet).
    if (length * 2 !== input.length) return fail('not_hex');
  }
  if (length < 2) return fail('too_short', `${length} bytes`);
  if (length > MAX_PACKET_BYTES) return fail('too_long', `${length} bytes`);

  const header = bytes[0];
  const routeType = header & 0x03;
  const payloadType = (header >> 2) & 0x0f;
  const payloadVersion = header >> 6;
  let offset = 1;
  let transportCodes = null;
  if (routeType === 0 || routeType === 3) {
    if (length < 6) return fail('truncated_transport');
    transportCodes = [bytes.readUInt16LE(1), bytes.readUInt16LE(3)];
    offset = 5;
  }
  const pathLenByte = bytes[offset];
  const hashSize = (pathLenByte >> 6) + 1;
  if (hashSize === 4) return fail('reserved_hash_size');
  const hopCount = pathLenByte & 0x3f;
  const pathOffset = offset + 1;
  const payloadOffset = pathOffset + hopCount * hashSize;
  if (payloadOffset > length) return fail('truncated_path', `${hopCount} hops of ${hashSize} bytes`);
  const payloadLength = length - payloadOffset;
  const minPayload = MIN_PAYLOAD[payloadType] || 0;
  if (payloadLength < minPayload) {
    return fail('truncated_payload', `${PAYLOAD_TYPES[payloadType] || payloadType} needs ${minPayload} bytes, got ${payloadLength}`);
  }

  // TRACE carries per-hop SNR bytes where other types carry hop hashes.
  // Exact-size arrays: `[]` plus push() would reserve 16+ slots for a 3-hop path, and stored
  // paths are the bulk of the store.
  let path = EMPTY_PATH;
  let pathHash = null; // hashOfHops(path) when the memo knows it (path-interner.js takes it as given)
  let traceSnrs = null;
  if (payloadType === 9) {
    traceSnrs = new Array(hopCount);
    for (let i = 0; i < hopCount; i++) traceSnrs[i] = bytes.readInt8(pathOffset + i) / 4;
  } else if (hopCount > 0) {
    if (!options.scratch) path = pathOf(bytes, pathOffset, hopCount, hashSize);
    else {
      path = memoPath(bytes, pathOffset, hopCount, hashSize);
      pathHash = memoPathHash;
    }
  }

  const hash = contentHash(payloadType, pathLenByte, bytes, payloadOffset, length);
  // A repeat of a known transmission needs only its hash and this observer's path: skip
  // payload parsing and decryption (half of all reports are such repeats).
  const repeat = options.isKnown ? options.isKnown(hash) : false;
  const scratch = options.scratch ? options.scratch : undefined;
  let packet;
  if (scratch === undefined) {
    packet = {
      hash,
      routeType,
      payloadType,
      payloadVersion,
      transportCodes,
      hashSize,
      hopCount,
      path,
      pathHash,
      size: length,
      payloadOffset,
      advert: null,
      srcHash: null,
      destHash: null,
      channelHash: null,
      message: null,
      trace: null,
      ackChecksum: null,
      controlSubtype: null,
      // Filled in by the store; declared here so every stored transmission keeps all its fields
      // in-object (properties added later would need a separate backing array per object).
      seq: 0,
      time: 0,
      raw: null,
      observations: null,
    };
  } else {
    // The caller's reusable record (createDecodeScratch): every field set, as above.
    packet = scratch.packet;
    packet.hash = hash;
    packet.routeType = routeType;
    packet.payloadType = payloadType;
    packet.payloadVersion = payloadVersion;
    packet.transportCodes = transportCodes;
    packet.hashSize = hashSize;
    packet.hopCount = hopCount;
    packet.path = path;
    packet.pathHash = pathHash;
    packet.size = length;
    packet.payloadOffset = payloadOffset;
    packet.advert = null;
    packet.srcHash = null;
    packet.destHash = null;
    packet.channelHash = null;
    packet.message = null;
    packet.trace = null;
    packet.ackChecksum = null;
    packet.controlSubtype = null;
    scratch.repeat = repeat;
    scratch.bytes = bytes;
    scratch.length = length;
  }

  if (repeat) return scratch === undefined ? { packet, repeat: true } : scratch;
  // Payload fields are read at their offset in `bytes`; a payload view is made only for the
  // types that hand one on (a Buffer view per new transmission was a tenth of what decode allocated).
  const p = payloadOffset;
  switch (payloadType) {
    case 0: case 1: case 2: case 8: // REQ, RESPONSE, TXT_MSG, PATH: dest, src, MAC, ciphertext
      packet.destHash = hexOf(bytes, p, p + 1);
      packet.srcHash = hexOf(bytes, p + 1, p + 2);
      break;
    case 7: // ANON_REQ: dest, ephemeral public key, MAC, ciphertext
      packet.destHash = hexOf(bytes, p, p + 1);
      packet.srcHash = hexOf(bytes, p + 1, p + 2); // first byte of the ephemeral key
      break;
    case 3:
      packet.ackChecksum = bytes.toString('hex', p, p + 4);
      break;
    case 4: {
      const payload = bytes.subarray(p, length);
      const advert = parseAdvert(payload);
      if (!advert) return fail('truncated_payload', 'ADVERT location cut short');
      // 'trusted': an advert read back from our own database passed this check when it arrived.
      if (options.verifyAdverts === 'trusted') advert.signatureValid = true;
      else if (options.verifyAdverts) advert.signatureValid = verifyAdvertSignature(payload);
      packet.advert = advert;
      break;
    }
    case 5: case 6: {
      packet.channelHash = hexOf(bytes, p, p + 1);
      if (payloadType === 5 && options.keyring && options.keyring.has(packet.channelHash)) {
        for (const channel of options.keyring.get(packet.channelHash)) {
          const message = decryptGroupText(channel.key, bytes.subarray(p + 1, p + 3), bytes.subarray(p + 3, length));
          if (message) {
            message.channel = channel.name;
            packet.message = message;
            break;
          }
        }
      }
      break;
    }
    case 9: {
      const payload = bytes.subarray(p, length);
      const flags = payload[8];
      const traceHashSize = 1 << (flags & 0x03);
      const hashes = [];
      for (let at = 9; at + traceHashSize <= payload.length; at += traceHashSize) {
        hashes.push(payload.toString('hex', at, at + traceHashSize));
      }
      packet.trace = { tag: payload.readUInt32LE(0), authCode: payload.readUInt32LE(4), flags, hashes, snrs: traceSnrs };
      break;
    }
    case 11:
      packet.controlSubtype = bytes[p] >> 4;
      break;
    default:
      break;
  }
  return scratch === undefined ? { packet } : scratch;
}

/**
 * Byte ranges of every field of a raw packet, for the packet detail page.
 * Off the hot path: called only when a user opens one packet.
 */
function layout(rawHex, options = {}) {
  const { packet, error } = decodePacket(rawHex, options);
  if (error) return { error };
  const fields = [];
  const add = (name, start, length, value) => {
    if (length > 0) fields.push({ name, start, end: start + length - 1, value });
  };
  const bytes = Buffer.from(rawHex, 'hex');
  add('header', 0, 1, `route ${ROUTE_TYPES[packet.routeType]}, type ${PAYLOAD_TYPES[packet.payloadType] || packet.payloadType}, version ${packet.payloadVersion}`);
  let offset = 1;
  if (packet.transportCodes) {
    add('transportCodes', 1, 4, packet.transportCodes.join(','));
    offset = 5;
  }
  add('pathLength', offset, 1, `${packet.hopCount} hops x ${packet.hashSize} bytes`);
  add(packet.payloadType === 9 ? 'pathSnr' : 'path', offset + 1, packet.payloadOffset - offset - 1, bytes.toString('hex', offset + 1, packet.payloadOffset));
  const p = packet.payloadOffset;
  const hex = (start, length) => bytes.toString('hex', p + start, p + start + length);
  const rest = (start) => bytes.length - p - start;
  switch (packet.payloadType) {
    case 0: case 1: case 2: case 8:
      add('destHash', p, 1, hex(0, 1)); add('srcHash', p + 1, 1, hex(1, 1));
      add('mac', p + 2, 2, hex(2, 2)); add('ciphertext', p + 4, rest(4), hex(4, rest(4)));
      break;
    case 7:
      add('destHash', p, 1, hex(0, 1)); add('ephemeralPubKey', p + 1, 32, hex(1, 32));
      add('mac', p + 33, 2, hex(33, 2)); add('ciphertext', p + 35, rest(35), hex(35, rest(35)));
      break;
    case 3:
      add('ackChecksum', p, 4, hex(0, 4));
      break;
    case 4: {
      add('pubKey', p, 32, hex(0, 32)); add('timestamp', p + 32, 4, String(packet.advert.timestamp));
      add('signature', p + 36, 64, hex(36, 64));
      if (rest(100) > 0) {
        add('flags', p + 100, 1, `role ${packet.advert.role}`);
        let at = 101;
        if (packet.advert.flags & 0x10) { add('location', p + at, 8, `${packet.advert.lat},${packet.advert.lon}`); at += 8; }
        if (packet.advert.flags & 0x20) { add('feature1', p + at, 2, hex(at, 2)); at += 2; }
        if (packet.advert.flags & 0x40) { add('feature2', p + at, 2, hex(at, 2)); at += 2; }
        if (packet.advert.flags & 0x80) add('name', p + at, rest(at), packet.advert.name);
      }
      break;
    }
    case 5: case 6:
      add('channelHash', p, 1, hex(0, 1)); add('mac', p + 1, 2, hex(1, 2));
      add('ciphertext', p + 3, rest(3), packet.message ? `${packet.message.sender}: ${packet.message.text}` : hex(3, rest(3)));
      break;
    case 9:
      add('traceTag', p, 4, String(packet.trace.tag)); add('authCode', p + 4, 4, String(packet.trace.authCode));
      add('flags', p + 8, 1, String(packet.trace.flags)); add('traceHashes', p + 9, rest(9), packet.trace.hashes.join(','));
      break;
    default:
      add('payload', p, rest(0), hex(0, rest(0)));
  }
  return { packet, fields, size: bytes.length };
}

module.exports = {
  verifyAdvertSignature,
  signatureChecks,
  decodePacket,
  createDecodeScratch,
  layout,
  contentHash,
  createKeyring,
  channelKeyFromName,
  decryptGroupText,
  PUBLIC_CHANNEL,
  DECODE_ERRORS,
  ROUTE_TYPES,
  PAYLOAD_TYPES,
  PAYLOAD_TYPE_IDS,
  ROLES,
  MAX_PACKET_BYTES,
};
