'use strict';
/**
 * MeshCore wire-format encoders shared by the simulator and the hostile streams, so both
 * build packets byte for byte the same way (decode.js is the reading side).
 */
const crypto = require('crypto');

const ROUTE = { TRANSPORT_FLOOD: 0, FLOOD: 1, DIRECT: 2, TRANSPORT_DIRECT: 3 };
const ROLE_IDS = { companion: 1, repeater: 2, room: 3, sensor: 4 };
const MAX_PACKET_BYTES = 255;
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).toUpperCase().padStart(2, '0'));
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

const PLACEHOLDER_X = Buffer.alloc(32).toString('base64url');

/**
 * Fixed-length ed25519 key pair from 32 seed bytes. Imported as JWK, about 5x faster than
 * PKCS#8 DER (OpenSSL 3's decoder), which matters for 5,000-node worlds. Node builds the key
 * from `d` alone and only shape-checks `x`, so a placeholder x is fine: the public key is
 * derived from the private one. Should a Node release check x, we fall back to DER.
 */
function keyPairFromSeed(seed32) {
  let privateKey;
  try {
    privateKey = crypto.createPrivateKey({ key: { kty: 'OKP', crv: 'Ed25519', d: seed32.toString('base64url'), x: PLACEHOLDER_X }, format: 'jwk' });
  } catch (err) {
    privateKey = crypto.createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed32]), format: 'der', type: 'pkcs8' });
  }
  const publicKey = Buffer.from(crypto.createPublicKey(privateKey).export({ format: 'jwk' }).x, 'base64url');
  return { privateKey, publicKey };
}

/** Header byte as uppercase hex: route type in bits 1:0, payload type in bits 5:2. */
function headerHex(routeType, payloadType) {
  return HEX[routeType | (payloadType << 2)];
}

/** Path-length byte: hash size - 1 in bits 7:6, hop count in bits 5:0 (TRACE: size bits 0). */
function pathLenByte(hashSize, hops) {
  return ((hashSize - 1) << 6) | hops;
}

/** MeshCore's content hash as the observers publish it (16 uppercase hex digits). */
function contentHashHex(payloadType, payload, pathLength) {
  const sha = crypto.createHash('sha256');
  sha.update(payloadType === 9 ? Buffer.from([payloadType, pathLength]) : Buffer.from([payloadType]));
  sha.update(payload);
  return sha.digest('hex').slice(0, 16).toUpperCase();
}

/** Transport codes (4 bytes, hex): an HMAC of the payload under a region key, then 0000. */
function transportCodeHex(regionKey, payloadType, payload) {
  const hmac = crypto.createHmac('sha256', regionKey);
  hmac.update(Buffer.from([payloadType]));
  hmac.update(payload);
  const digest = hmac.digest();
  let code = digest[0] | (digest[1] << 8);
  if (code === 0) code = 1;
  else if (code === 0xffff) code = 0xfffe;
  return HEX[code & 0xff] + HEX[code >> 8] + '0000';
}

/** Advert app data: flags (role, has location, has name), optional lat/lon, name. */
function advertAppData(roleId, name, lat, lon) {
  const hasLocation = lat !== null && lat !== undefined;
  const appData = Buffer.alloc(1 + (hasLocation ? 8 : 0) + Buffer.byteLength(name, 'utf8'));
  appData[0] = roleId | (hasLocation ? 0x10 : 0) | 0x80;
  let at = 1;
  if (hasLocation) {
    appData.writeInt32LE(Math.round(lat * 1e6), 1);
    appData.writeInt32LE(Math.round(lon * 1e6), 5);
    at = 9;
  }
  appData.write(name, at, 'utf8');
  return appData;
}

/**
 * What an advert signs, prepared once per node: public key, 4 timestamp bytes, app data.
 * `signAdvert` rewrites only the timestamp before each signature.
 */
function advertSigner({ privateKey, publicKey }, appData) {
  return { privateKey, publicKey, appData, signed: Buffer.concat([publicKey, Buffer.alloc(4), appData]) };
}

/** ADVERT payload: public key, timestamp, ed25519 signature, app data. */
function signAdvert(signer, timestamp) {
  signer.signed.writeUInt32LE(timestamp >>> 0, 32);
  const signature = crypto.sign(null, signer.signed, signer.privateKey);
  return Buffer.concat([signer.publicKey, signer.signed.subarray(32, 36), signature, signer.appData]);
}

/** A channel ready to encrypt: key (hex) -> ECB cipher, HMAC secret and hash byte. */
function channelCipher(channel) {
  const key = Buffer.from(channel.key, 'hex');
  // ECB has no chaining, so one cipher object serves every message (no padding, whole blocks).
  const cipher = crypto.createCipheriv('aes-128-ecb', key, null);
  cipher.setAutoPadding(false);
  return { ...channel, hashByte: parseInt(channel.hash, 16), secret: Buffer.concat([key, Buffer.alloc(16)]), cipher };
}

/** GRP_TXT payload: channel hash, 2-byte MAC, AES-128-ECB of (timestamp, flags, "name: text"). */
function groupTextPayload(channel, body, timestamp) {
  const bodyBytes = Buffer.byteLength(body, 'utf8');
  const plain = Buffer.alloc(Math.ceil((5 + bodyBytes) / 16) * 16);
  plain.writeUInt32LE(timestamp >>> 0, 0);
  plain.write(body, 5, 'utf8');
  const ciphertext = channel.cipher.update(plain);
  const mac = crypto.createHmac('sha256', channel.secret).update(ciphertext).digest();
  const payload = Buffer.allocUnsafe(3 + ciphertext.length);
  payload[0] = channel.hashByte;
  payload[1] = mac[0];
  payload[2] = mac[1];
  ciphertext.copy(payload, 3);
  return payload;
}

/** Whole packet as uppercase hex, from its parts (path as concatenated hop hex). */
function packetHex({ routeType, payloadType, transportHex = '', pathLength, pathHex = '', payload }) {
  return headerHex(routeType, payloadType) + transportHex + HEX[pathLength] + pathHex + payload.toString('hex').toUpperCase();
}

module.exports = {
  ROUTE,
  ROLE_IDS,
  MAX_PACKET_BYTES,
  HEX,
  keyPairFromSeed,
  headerHex,
  pathLenByte,
  contentHashHex,
  transportCodeHex,
  advertAppData,
  advertSigner,
  signAdvert,
  channelCipher,
  groupTextPayload,
  packetHex,
};
