'use strict';
// The reload's BSON reader (imports/core/bson-observation.js) against the driver's own BSON
// library: every field it keeps must read as BSON.deserialize reads it, every other field and
// type must be skipped by its size, and wrong input must fail cleanly.
const test = require('node:test');
const assert = require('node:assert/strict');
const { BSON, Binary, Decimal128, Double, Int32, Long, ObjectId, Timestamp, MinKey, MaxKey, BSONRegExp, Code } = require('mongodb');
const { readObservationDocument, INVALID_VALUE } = require('../imports/core/bson-observation');

const FIELDS = ['hash', 'observerId', 'time', 'ingestOrder', 'snr', 'rssi', 'score', 'direction', 'first', 'raw'];

/** What the reader should return: the kept fields as the driver decodes them, undefined when absent. */
function expected(doc) {
  const decoded = BSON.deserialize(BSON.serialize(doc));
  return Object.fromEntries(FIELDS.map((name) => [name, decoded[name]]));
}

const observation = {
  _id: '355da9e9bd61afb5:742A37AE14E15902C0C1609CD8C70DC79532EC979D7BFF9EE3FCC64D1642A060:1748779200631',
  hash: '355da9e9bd61afb5',
  observerId: '742A37AE14E15902C0C1609CD8C70DC79532EC979D7BFF9EE3FCC64D1642A060',
  time: 1748779200631,
  at: new Date(1748779200631),
  ingestOrder: 1795426124983001,
  snr: -2.5,
  rssi: -96,
  score: 1000,
  direction: 'rx',
  first: true,
  raw: '1500d9db92441ae0dc505faaa4ba3d865738fe44ce1b770d7cf185250d9b04839a86a52965',
};

test('an observation document as persistence writes it reads as the driver reads it', () => {
  assert.deepEqual(readObservationDocument(BSON.serialize(observation)), expected(observation));
  const { first, raw, ...later } = observation; // a later observation that heard the same path
  assert.deepEqual(readObservationDocument(BSON.serialize(later)), expected(later));
  assert.equal(readObservationDocument(BSON.serialize(later)).raw, undefined);
  // A Buffer or a plain Uint8Array view into a larger buffer (as the driver hands them out).
  const bytes = BSON.serialize(observation);
  const padded = new Uint8Array(bytes.length + 16);
  padded.set(bytes, 8);
  assert.deepEqual(readObservationDocument(padded.subarray(8, 8 + bytes.length)), expected(observation));
});

test('numbers of every BSON numeric type, null, unicode strings and a binary raw', () => {
  const doc = {
    hash: 'ab', observerId: 'Obsérvateur ☃ 𝄞', time: new Long(0x1234, 0x195), ingestOrder: Long.fromNumber(2 ** 53 - 1),
    snr: new Int32(-7), rssi: new Double(-101), score: null, direction: 'tx',
  };
  const read = readObservationDocument(BSON.serialize(doc));
  assert.deepEqual(read, { ...expected(doc), time: Long.fromBits(0x1234, 0x195).toNumber(), ingestOrder: 2 ** 53 - 1 });
  assert.equal(read.score, null);
  assert.equal(read.observerId, 'Obsérvateur ☃ 𝄞');
  assert.equal(readObservationDocument(BSON.serialize({ time: Long.fromNumber(-5) })).time, -5);
  const binary = readObservationDocument(BSON.serialize({ raw: new Binary(Buffer.from('1500d9db', 'hex')) }));
  assert.equal(binary.raw, '1500d9db', 'a binary raw reads as hex');
});

test('every other field and type is skipped by its size; the kept fields around them still read', () => {
  const doc = {
    a: new ObjectId('64b7f0c2a1b2c3d4e5f60718'), b: new Decimal128('1.5'), c: { nested: { raw: 'not me', time: 1 } },
    hash: 'h1', d: [1, 'two', { three: 3 }], e: new Binary(Buffer.alloc(300, 7)), f: new Timestamp({ t: 1, i: 2 }),
    observerId: 'o1', g: new MinKey(), h: new MaxKey(), i: new BSONRegExp('a.*b', 'i'), j: new Code('x()'), k: undefined,
    time: 5, l: true, m: null, n: new Date(7), o: 'a string', direction: 'rx',
  };
  assert.deepEqual(readObservationDocument(BSON.serialize(doc, { ignoreUndefined: false })), expected(doc));
});

test('a kept field of an unexpected type reads as INVALID_VALUE, which the store refuses', () => {
  const doc = {
    hash: new ObjectId('64b7f0c2a1b2c3d4e5f60718'), observerId: 42, time: new Date(5), ingestOrder: 'x',
    snr: new Decimal128('1.5'), rssi: 'loud', score: { $gt: 1 }, direction: ['rx'], first: 1, raw: 17,
  };
  const read = readObservationDocument(BSON.serialize(doc));
  for (const name of FIELDS) assert.equal(read[name], INVALID_VALUE, name);
  const { createEngine } = require('../imports/core/engine');
  const engine = createEngine({ channels: [], views: [] });
  assert.ok(engine.store.ingest({ raw: read.raw, observerId: 'o' }).error, 'an invalid raw is refused');
  assert.equal(engine.store.ingest({ raw: observation.raw, observerId: 'o', rssi: read.rssi }).error.reason, 'bad_rssi');
  assert.equal(engine.store.ingest({ raw: observation.raw, observerId: read.observerId }).error.reason, 'bad_observer');
});

test('bytes that are not one well-formed document throw a RangeError, never read past the document', () => {
  const bytes = Buffer.from(BSON.serialize(observation));
  assert.throws(() => readObservationDocument(Buffer.alloc(0)), RangeError);
  assert.throws(() => readObservationDocument(bytes.subarray(0, bytes.length - 1)), RangeError, 'truncated');
  const badSize = Buffer.from(bytes);
  badSize.writeInt32LE(3, 0);
  assert.throws(() => readObservationDocument(badSize), RangeError);
  const unknownType = Buffer.from(bytes);
  unknownType[4] = 0x42;
  assert.throws(() => readObservationDocument(unknownType), RangeError);
  // A string length reaching past the document (inside a larger buffer whose bytes must not be read).
  const overlong = Buffer.from(BSON.serialize({ hash: 'abc' }));
  overlong.writeInt32LE(1000, 4 + 1 + 5);
  assert.throws(() => readObservationDocument(Buffer.concat([overlong, Buffer.alloc(2000, 1)]).subarray(0, overlong.length)), RangeError);
  assert.throws(() => readObservationDocument('not bytes'), TypeError);
  // Random corruption: either a clean RangeError or a result; never another exception.
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  for (let i = 0; i < 3000; i++) {
    const corrupt = Buffer.from(bytes);
    for (let j = 0; j < 1 + Math.floor(random() * 4); j++) corrupt[Math.floor(random() * corrupt.length)] = Math.floor(random() * 256);
    try {
      readObservationDocument(corrupt);
    } catch (err) {
      assert.ok(err instanceof RangeError, `${err.name}: ${err.message}`);
    }
  }
});

test('random flat documents: the reader agrees with BSON.deserialize on every kept field', () => {
  let seed = 11;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const values = [
    () => random() * 1e6 - 5e5, () => Math.floor(random() * 2 ** 31) - 2 ** 30, () => Math.floor(random() * 2 ** 52),
    () => Buffer.from(Array.from({ length: Math.floor(random() * 40) }, () => Math.floor(random() * 256))).toString('hex'),
    () => null, () => random() < 0.5,
  ];
  for (let i = 0; i < 500; i++) {
    const doc = {};
    for (const name of ['_id', ...FIELDS, 'at', 'extra']) {
      if (random() < 0.2) continue;
      doc[name] = values[Math.floor(random() * values.length)]();
    }
    const read = readObservationDocument(BSON.serialize(doc));
    const want = expected(doc);
    for (const name of FIELDS) {
      const kind = { hash: 'string', observerId: 'string', direction: 'string', raw: 'string', first: 'boolean' }[name] || 'number';
      const value = want[name];
      if (value === undefined || value === null || typeof value === kind) assert.deepEqual(read[name], value, `${name} of ${JSON.stringify(doc)}`);
      else assert.equal(read[name], INVALID_VALUE, `${name} of ${JSON.stringify(doc)}`);
    }
  }
});
