'use strict';
/**
 * Reads the reload's observation documents straight from their BSON bytes (the driver's
 * `raw: true` find option hands each document over undecoded), instead of letting the driver
 * build a full JavaScript object per document. A reload reads millions of these documents and
 * needs only ten flat fields of each; the generic decoder was a third of the reload's CPU and
 * most of its garbage. Nothing here imports the driver: BSON is a simple, stable layout
 * (bsonspec.org), and only its flat part is read; everything else is skipped by its size.
 *
 *   const doc = readObservationDocument(bytes); // { hash, observerId, time, ingestOrder, snr, rssi,
 *                                              //   score, direction, first, raw }
 *
 * Stored documents are input like any other (older layouts, hand edits): a field of the
 * expected name but an unexpected BSON type reads as INVALID_VALUE, an object the store's input
 * checks refuse like any wrong type, so the document is skipped and counted by reason; bytes
 * that are not a well-formed document throw a RangeError the caller counts as a bad document.
 * `raw` reads from a string (hex, how documents are written) or a binary (bytes; given back
 * as hex), so either layout loads.
 */

/** A field of the right name and the wrong BSON type (a Decimal128 SNR, an ObjectId hash...). */
const INVALID_VALUE = Object.freeze({ invalidBsonValue: true });

// BSON element types read here; the others are skipped by size (see skipValue).
const DOUBLE = 0x01;
const STRING = 0x02;
const BINARY = 0x05;
const BOOLEAN = 0x08;
const DATE = 0x09;
const NULL = 0x0a;
const INT32 = 0x10;
const INT64 = 0x12;

// The fields we keep, by name. Names are compared as bytes (no string built per element).
const FIELD_NAMES = ['hash', 'observerId', 'time', 'ingestOrder', 'snr', 'rssi', 'score', 'direction', 'first', 'raw'];
const FIELD_KIND = { hash: 'string', observerId: 'string', time: 'number', ingestOrder: 'number', snr: 'number', rssi: 'number', score: 'number', direction: 'string', first: 'boolean', raw: 'raw' };
// Candidates by name length, then by first byte: at most one comparison per element.
const CANDIDATES = new Map();
for (const name of FIELD_NAMES) {
  const bytes = Buffer.from(name, 'latin1');
  if (!CANDIDATES.has(bytes.length)) CANDIDATES.set(bytes.length, new Map());
  CANDIDATES.get(bytes.length).set(bytes[0], { name, bytes, kind: FIELD_KIND[name] });
}
const MAX_NAME_LENGTH = Math.max(...FIELD_NAMES.map((name) => name.length));

function asBuffer(bytes) {
  if (Buffer.isBuffer(bytes)) return bytes;
  if (bytes instanceof Uint8Array) return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  throw new TypeError('readObservationDocument: expected the BSON bytes of one document (a Buffer or Uint8Array)');
}

function malformed(what, at) {
  return new RangeError(`malformed BSON document: ${what} at byte ${at}`);
}

/** The field this element name (bytes [start, end) of buf) is, or null. */
function fieldAt(buf, start, end) {
  const length = end - start;
  if (length > MAX_NAME_LENGTH) return null;
  const byLength = CANDIDATES.get(length);
  if (!byLength) return null;
  const field = byLength.get(buf[start]);
  if (!field) return null;
  const { bytes } = field;
  for (let i = 1; i < length; i++) if (buf[start + i] !== bytes[i]) return null;
  return field;
}

function int64At(buf, at) {
  // Exact up to 2^53, like the driver's default (promoteLongs); beyond, the nearest double.
  return buf.readInt32LE(at + 4) * 4294967296 + buf.readUInt32LE(at);
}

/** Where the value of type `type` starting at `at` ends; throws past `limit`. */
function skipValue(buf, type, at, limit) {
  let end;
  switch (type) {
    case DOUBLE: case DATE: case INT64: case 0x11: end = at + 8; break; // 0x11 timestamp
    case INT32: end = at + 4; break;
    case BOOLEAN: end = at + 1; break;
    case NULL: case 0x06: case 0x7f: case 0xff: end = at; break; // undefined, maxKey, minKey
    case 0x07: end = at + 12; break; // ObjectId
    case 0x13: end = at + 16; break; // Decimal128
    case STRING: case 0x0d: case 0x0e: end = at + 4 + checkedLength(buf, at, limit); break; // string, code, symbol
    case 0x03: case 0x04: case 0x0f: end = at + checkedLength(buf, at, limit); break; // document, array, code with scope
    case BINARY: end = at + 5 + checkedLength(buf, at, limit); break;
    case 0x0c: end = at + 4 + checkedLength(buf, at, limit) + 12; break; // DBPointer
    case 0x0b: { // regular expression: two C strings
      const first = buf.indexOf(0, at);
      const second = first < 0 ? -1 : buf.indexOf(0, first + 1);
      if (second < 0 || second >= limit) throw malformed('unterminated regular expression', at);
      end = second + 1;
      break;
    }
    default: throw malformed(`unknown element type 0x${type.toString(16)}`, at - 1);
  }
  if (end > limit) throw malformed('element past the end of the document', at);
  return end;
}

function checkedLength(buf, at, limit) {
  if (at + 4 > limit) throw malformed('length past the end of the document', at);
  const length = buf.readInt32LE(at);
  if (length < 0) throw malformed('negative length', at);
  return length;
}

function readValue(buf, kind, type, at, end) {
  if (type === NULL) return null;
  switch (kind) {
    case 'number':
      if (type === DOUBLE) return buf.readDoubleLE(at);
      if (type === INT32) return buf.readInt32LE(at);
      if (type === INT64) return int64At(buf, at);
      return INVALID_VALUE;
    case 'string':
      return type === STRING ? buf.utf8Slice(at + 4, end - 1) : INVALID_VALUE;
    case 'boolean':
      return type === BOOLEAN ? buf[at] === 1 : INVALID_VALUE;
    case 'raw':
      if (type === STRING) return buf.utf8Slice(at + 4, end - 1);
      if (type === BINARY) return buf.hexSlice(at + 5, end);
      return INVALID_VALUE;
    default:
      return INVALID_VALUE;
  }
}

/**
 * The observation fields of one BSON document (a Buffer or Uint8Array holding exactly one
 * document, as `find(..., { raw: true })` returns them). Absent fields are undefined, like the
 * driver's objects; unexpected types read as INVALID_VALUE; a malformed document throws RangeError.
 */
function readObservationDocument(bytes) {
  const buf = asBuffer(bytes);
  if (buf.length < 5) throw malformed('shorter than an empty document', 0);
  const size = buf.readInt32LE(0);
  if (size < 5 || size > buf.length || buf[size - 1] !== 0) throw malformed('bad document size', 0);
  const limit = size - 1; // the terminating zero
  const doc = { hash: undefined, observerId: undefined, time: undefined, ingestOrder: undefined, snr: undefined, rssi: undefined, score: undefined, direction: undefined, first: undefined, raw: undefined };
  let at = 4;
  while (at < limit) {
    const type = buf[at];
    const nameStart = at + 1;
    const nameEnd = buf.indexOf(0, nameStart);
    if (nameEnd < 0 || nameEnd >= limit) throw malformed('unterminated element name', nameStart);
    const valueAt = nameEnd + 1;
    const end = skipValue(buf, type, valueAt, limit);
    const field = fieldAt(buf, nameStart, nameEnd);
    if (field !== null) {
      if (type === STRING && buf[end - 1] !== 0) throw malformed('unterminated string', valueAt);
      doc[field.name] = readValue(buf, field.kind, type, valueAt, end);
    }
    at = end;
  }
  if (at !== limit) throw malformed('element past the end of the document', at);
  return doc;
}

module.exports = { readObservationDocument, INVALID_VALUE };
