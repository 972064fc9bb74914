'use strict';
/**
 * Compact records for what the store keeps: one StoredTransmission per distinct packet and one
 * StoredObservation per later observer report. A million reports make about a million of these,
 * so each is sized to the bone (issue 8, measured with heap snapshots on the simulated meshes):
 *
 * - Fields that the raw bytes already hold (payload type, route, version, hash size, hop count,
 *   size, payload offset, transport codes, src/dest/channel hash, ACK checksum, control subtype)
 *   are prototype getters reading `raw`: no per-instance cost. A decoded packet has 22 fields
 *   (200 bytes); a stored transmission has 11 (112 bytes) and is also its first observation.
 * - The one per-type object (advert, decrypted message or trace) shares one field, `content`.
 * - Times are kept as small integers (Smis) relative to a process-wide epoch: a double field
 *   costs a separate 16-byte heap number per object.
 * - An observation's SNR (quarter dB), RSSI, score and direction are packed into one Smi when
 *   they are the usual values (SNR in quarter dB, integer RSSI and score in input-limits.js
 *   ranges, direction 'rx'); anything else is kept exactly in a small frozen object instead.
 *   An observation object of 7 fields and two heap numbers (112 bytes) becomes 4 fields (56).
 *
 * Readers see the same property names as before (time, payloadType, snr, ...). Writes to a
 * derived field throw in strict mode (getters without setters), except `observations` (below).
 */

// Times are stored as `time - timeEpoch`. A Smi holds 32 signed bits on 64-bit Node without
// pointer compression (+-24.8 days of milliseconds): the epoch is set 2^30 ms (12.4 days) after
// the first time stored, so times from 12.4 days before the first report to 37 days after it
// are Smis. Outside that range a time is still exact, only stored as a heap number (16 bytes more).
const EPOCH_LEAD_MS = 2 ** 30;
let timeEpoch = null;

function timeOffset(time) {
  if (timeEpoch === null) timeEpoch = time + EPOCH_LEAD_MS;
  const offset = time - timeEpoch;
  // `| 0` makes the value an int32, which V8 stores as a Smi; a double result is boxed even
  // when it is a whole number.
  return (offset | 0) === offset ? offset | 0 : offset;
}

// The last time timeOf made, and its offset. A report's time is read again and again in a row
// (every view reads it and hands it on), and each read made a new heap number (a time is no
// small integer) as soon as it went to a call that was not inlined; the same one handed out
// again allocates nothing.
let lastOffset = NaN;
let lastTime = NaN;

/** The time a record's offset stands for (exact: both are integers or the sum is exact ms). */
function timeOf(offset) {
  if (offset === lastOffset) return lastTime;
  lastTime = timeEpoch + offset;
  lastOffset = offset;
  return lastTime;
}

const HEX_BYTE = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));
const EMPTY_OBSERVATIONS = Object.freeze([]);

/** Offset of the path-length byte in a raw (latin1) packet: after the transport codes when present. */
function pathLengthAt(raw) {
  const routeType = raw.charCodeAt(0) & 0x03;
  return routeType === 0 || routeType === 3 ? 5 : 1;
}

function payloadOffsetOf(raw) {
  const at = pathLengthAt(raw);
  const pathLength = raw.charCodeAt(at);
  return at + 1 + (pathLength & 0x3f) * ((pathLength >> 6) + 1);
}

/** Payload types whose first two payload bytes are destination and source hashes (REQ, RESPONSE, TXT_MSG, ANON_REQ, PATH). */
function hasSrcDest(payloadType) {
  return payloadType <= 2 || payloadType === 7 || payloadType === 8;
}

/** 32 bits of a hex string from `start` (8 lower-case hex digits) as an int32, or null. */
function hexInt32(text, start) {
  let value = 0;
  for (let i = start; i < start + 8; i++) {
    const c = text.charCodeAt(i);
    const digit = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1;
    if (digit < 0) return null;
    value = (value << 4) | digit;
  }
  return value;
}

function hex8(value) {
  return (value >>> 0).toString(16).padStart(8, '0');
}

// Every SNR a signal code can hold, boxed once: computing (code - 129) / 4 in the getter made a
// new heap number on every read (a quarter-dB value is no small integer), and the views read a
// report's SNR half a dozen times. The leading null keeps the array's elements tagged values
// rather than unboxed doubles, so reading one hands out the stored number as it is.
const SNR_BY_CODE = [null];
for (let code = 1; code < 512; code++) SNR_BY_CODE.push((code - 129) / 4);

function snrOf(signal) {
  if (typeof signal !== 'number') return signal.snr;
  return SNR_BY_CODE[signal & 0x1ff];
}

function rssiOf(signal) {
  if (typeof signal !== 'number') return signal.rssi;
  const code = (signal >> 9) & 0xff;
  return code === 0 ? null : 1 - code;
}

function scoreOf(signal) {
  if (typeof signal !== 'number') return signal.score;
  const code = (signal >> 17) & 0x3ff;
  return code === 0 ? null : code - 1;
}

function directionOf(signal) {
  return typeof signal === 'number' ? 'rx' : signal.direction;
}

/**
 * A stored transmission is also its own first observation: that observation's time and path are
 * the transmission's, so only its observer and signal are added here, and `observations[0]` is
 * the transmission itself (one 56-byte observation object less per transmission). The content
 * hash is kept as two int32 halves (16 bytes in the object instead of a pointer to a 32-byte
 * string); `hash` builds the hex string when read.
 */
class StoredTransmission {
  /**
   * `hash`: 16 hex digits; `raw`: the packet as a one-byte (latin1) string; `path`: the (interned)
   * hop list; `content`: the advert, decrypted message or trace object of the decoded packet, or
   * null; `observer` and `signal` (packSignal): the first observation.
   */
  constructor(hash, seq, time, raw, path, content, observer, signal) {
    // The content hash kept as two int32 halves, parsed in place (once per transmission).
    const high = typeof hash === 'string' && hash.length === 16 ? hexInt32(hash, 0) : null;
    const low = high === null ? null : hexInt32(hash, 8);
    if (low === null) throw new Error(`a stored transmission needs a 16-hex-digit content hash, got ${String(hash).slice(0, 40)}`);
    this.hashHigh = high;
    this.hashLow = low;
    this.seq = seq;
    this.timeOffset = timeOffset(time);
    this.raw = raw;
    this.path = path;
    // The observations after the first: null (none), the second one, or from three on the whole
    // array (see `observations`).
    this.later = null;
    this.content = content;
    this.observer = observer;
    this.signal = signal;
  }

  get hash() { return hex8(this.hashHigh) + hex8(this.hashLow); }

  /**
   * Every observation, first heard first; the first is the transmission itself. Two thirds of
   * the default mesh's transmissions have one or two observations: their array (48 bytes of
   * headers) is built when read instead of kept. From three on, the kept array is returned.
   */
  get observations() {
    const later = this.later;
    if (later === null) return [this];
    if (later instanceof StoredObservation) return [this, later];
    return later;
  }

  /**
   * Assigning `observations` gives that object its own list, as it would on a plain object:
   * test helpers derive `Object.create(tx)` copies with a subset of observations.
   */
  set observations(list) {
    Object.defineProperty(this, 'observations', { value: list, writable: true, enumerable: true, configurable: true });
    Object.defineProperty(this, 'listed', { value: true, writable: true, enumerable: false, configurable: true });
  }

  get observationCount() {
    const later = this.later;
    if (later === null) return 1;
    return later instanceof StoredObservation ? 2 : later.length;
  }

  /** Append a later observation. */
  addObservation(observation) {
    const later = this.later;
    if (later === null) this.later = observation;
    else if (later instanceof StoredObservation) this.later = [this, later, observation];
    // concat() makes an exact-size array; push() would reserve 16+ slots.
    else this.later = later.concat(observation);
  }
  get time() { return timeOf(this.timeOffset); }

  // As the first observation.
  get snr() { return snrOf(this.signal); }
  get rssi() { return rssiOf(this.signal); }
  get score() { return scoreOf(this.signal); }
  get direction() { return directionOf(this.signal); }

  get routeType() { return this.raw.charCodeAt(0) & 0x03; }
  get payloadType() { return (this.raw.charCodeAt(0) >> 2) & 0x0f; }
  get payloadVersion() { return this.raw.charCodeAt(0) >> 6; }
  get hashSize() { return (this.raw.charCodeAt(pathLengthAt(this.raw)) >> 6) + 1; }
  get hopCount() { return this.raw.charCodeAt(pathLengthAt(this.raw)) & 0x3f; }
  get size() { return this.raw.length; }
  get payloadOffset() { return payloadOffsetOf(this.raw); }

  get transportCodes() {
    const raw = this.raw;
    const routeType = raw.charCodeAt(0) & 0x03;
    if (routeType !== 0 && routeType !== 3) return null;
    return [raw.charCodeAt(1) | (raw.charCodeAt(2) << 8), raw.charCodeAt(3) | (raw.charCodeAt(4) << 8)];
  }

  get advert() { return this.payloadType === 4 ? this.content : null; }
  get message() { return this.payloadType === 5 ? this.content : null; }
  get trace() { return this.payloadType === 9 ? this.content : null; }

  get destHash() {
    return hasSrcDest(this.payloadType) ? HEX_BYTE[this.raw.charCodeAt(payloadOffsetOf(this.raw))] : null;
  }

  get srcHash() {
    return hasSrcDest(this.payloadType) ? HEX_BYTE[this.raw.charCodeAt(payloadOffsetOf(this.raw) + 1)] : null;
  }

  get channelHash() {
    const type = this.payloadType;
    return type === 5 || type === 6 ? HEX_BYTE[this.raw.charCodeAt(payloadOffsetOf(this.raw))] : null;
  }

  get ackChecksum() {
    if (this.payloadType !== 3) return null;
    const at = payloadOffsetOf(this.raw);
    return Buffer.from(this.raw.slice(at, at + 4), 'latin1').toString('hex');
  }

  get controlSubtype() {
    return this.payloadType === 11 ? this.raw.charCodeAt(payloadOffsetOf(this.raw)) >> 4 : null;
  }
}

// Whether a transmission's observations live in the record itself (false) or in a list of its own
// (a derived copy given `observations`, see the setter): the helpers below read the record's
// fields without building the array the `observations` getter returns.
StoredTransmission.prototype.listed = false;

/** Whether `observation` is `tx`'s first (a stored transmission is its own); builds no array. */
function isFirstObservation(tx, observation) {
  if (tx.listed === false) return observation === tx;
  return tx.observations[0] === observation;
}

/** The number of `tx`'s observations; builds no array. */
function observationCountOf(tx) {
  return tx.listed === false ? tx.observationCount : tx.observations.length;
}

/** `tx`'s observation at `index` (0 = first heard), or undefined; builds no array. */
function observationAt(tx, index) {
  if (tx.listed !== false) return tx.observations[index];
  if (index === 0) return tx;
  const later = tx.later;
  if (later === null) return undefined;
  if (later instanceof StoredObservation) return index === 1 ? later : undefined;
  return later[index];
}

/** The index of `observation` among `tx`'s (the last match), or -1; builds no array. */
function observationIndexOf(tx, observation) {
  if (tx.listed !== false) return tx.observations.lastIndexOf(observation);
  const later = tx.later;
  if (later !== null) {
    if (later instanceof StoredObservation) {
      if (later === observation) return 1;
    } else {
      return later.lastIndexOf(observation);
    }
  }
  return observation === tx ? 0 : -1;
}

// Packed signal: bits 0-8 SNR code (0 = null, else SNR x 4 + 129), bits 9-16 RSSI code
// (0 = null, else 1 - RSSI), bits 17-26 score code (0 = null, else score + 1); direction 'rx'.
function snrCode(snr) {
  if (snr === null) return 0;
  const quarters = snr * 4;
  return Number.isInteger(quarters) && quarters >= -128 && quarters <= 128 && !Object.is(snr, -0) ? quarters + 129 : -1;
}

function rssiCode(rssi) {
  if (rssi === null) return 0;
  return Number.isInteger(rssi) && rssi >= -200 && rssi <= 0 && !Object.is(rssi, -0) ? 1 - rssi : -1;
}

function scoreCode(score) {
  if (score === null) return 0;
  return Number.isInteger(score) && score >= 0 && score <= 1000 ? score + 1 : -1;
}

/** One Smi for the usual signal values, else a frozen { snr, rssi, score, direction } kept exactly. */
function packSignal(snr, rssi, score, direction) {
  if (direction === 'rx') {
    const s = snrCode(snr);
    const r = rssiCode(rssi);
    const q = scoreCode(score);
    if (s >= 0 && r >= 0 && q >= 0) return s | (r << 9) | (q << 17);
  }
  return Object.freeze({ snr, rssi, score, direction });
}

class StoredObservation {
  constructor(observer, time, signal, path) {
    this.observer = observer;
    this.timeOffset = timeOffset(time);
    this.signal = signal;
    this.path = path;
  }

  get time() { return timeOf(this.timeOffset); }
  get snr() { return snrOf(this.signal); }
  get rssi() { return rssiOf(this.signal); }
  get score() { return scoreOf(this.signal); }
  get direction() { return directionOf(this.signal); }
}

// Make both offset fields and `signal` tagged (Smi or pointer) from the first instance: had V8
// seen only Smis first, one out-of-range time would turn the field into a double field and box
// it in every record.
const tagged = [new StoredTransmission('0000000000000000', 0, 0, '\u0000\u0000', EMPTY_OBSERVATIONS, null, null, 0), new StoredObservation(null, 0, 0, EMPTY_OBSERVATIONS)];
tagged[0].later = tagged[1];
tagged[0].later = EMPTY_OBSERVATIONS;
for (const record of tagged) {
  record.timeOffset = null;
  record.signal = null;
}
timeEpoch = null;
lastOffset = NaN;

module.exports = { StoredTransmission, StoredObservation, isFirstObservation, observationCountOf, observationAt, observationIndexOf, packSignal, hexInt32, timeOf, EMPTY_OBSERVATIONS, HEX_BYTE };
