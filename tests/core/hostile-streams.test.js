'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('crypto');
const { hostileStream, hostileReports, toMqttMessage, HOSTILE_CLASSES } = require('../../imports/core/simulate/hostile');
const { decodePacket, createKeyring } = require('../../imports/core/decode');
const { parseObserverMessage } = require('../../imports/core/observer-message');

const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const N = 600;
const samples = Object.fromEntries(HOSTILE_CLASSES.map((name) => [name, hostileReports(name, N, { seed: 'hostile.test' })]));
const countBy = (reports, key) => reports.reduce((counts, r) => ({ ...counts, [r[key]]: (counts[r[key]] || 0) + 1 }), {});
const decode = (report) => decodePacket(String(report.raw).toLowerCase());

test('every class is deterministic from its seed, and another seed differs', () => {
  assert.deepEqual(HOSTILE_CLASSES, ['longPaths', 'randomObservers', 'randomAdverts', 'randomChannels', 'extremeNumbers', 'randomBytes', 'oddStrings']);
  for (const name of HOSTILE_CLASSES) {
    const again = hostileReports(name, 200, { seed: 'hostile.test' });
    assert.deepEqual(again, samples[name].slice(0, 200), name);
    const other = hostileReports(name, 200, { seed: 'other' });
    assert.notDeepEqual(other.map((r) => r.raw), again.map((r) => r.raw), name);
  }
  assert.equal([...hostileStream('randomBytes', { count: 7 })].length, 7);
  assert.throws(() => hostileStream('nope').next(), /unknown class "nope"/);
});

test('every report has the ingest shape and a case; valid ones decode', () => {
  for (const [name, reports] of Object.entries(samples)) {
    for (const report of reports) {
      for (const field of ['raw', 'observerId', 'observerName', 'region', 'snr', 'rssi', 'score', 'direction', 'time']) assert.ok(field in report, `${name} ${field}`);
      assert.equal(typeof report.case, 'string');
      assert.ok(report.expect === undefined || report.expect === 'valid' || report.expect === 'invalid');
      if (report.expect === 'valid') assert.equal(decode(report).error, undefined, `${name} ${report.case} ${report.raw}`);
    }
    const expects = countBy(reports, 'expect');
    if (name !== 'oddStrings') assert.ok(expects.valid > 0 || expects.invalid > 0, name);
  }
});

test('longPaths: 1-, 2- and 3-byte hashes, up to 63 hops or the 255-byte limit', () => {
  const sizes = new Set();
  let atHopLimit = 0;
  let atByteLimit = 0;
  for (const report of samples.longPaths) {
    const { packet } = decode(report);
    sizes.add(packet.hashSize);
    assert.ok(packet.hopCount >= 1 && packet.path.length === packet.hopCount);
    if (packet.hopCount === 63) atHopLimit++;
    if (report.case === 'path-at-limit') {
      assert.ok(packet.hopCount === 63 || packet.size + packet.hashSize > 255 - (packet.transportCodes ? 0 : 4), `${packet.hopCount} hops, ${packet.size} bytes`);
      if (packet.size > 240) atByteLimit++;
    }
  }
  assert.deepEqual([...sizes].sort(), [1, 2, 3]);
  assert.ok(atHopLimit > 10 && atByteLimit > 10, `${atHopLimit} at 63 hops, ${atByteLimit} near 255 bytes`);
});

test('randomObservers: random ids and regions, some too long or empty', () => {
  const reports = samples.randomObservers;
  assert.ok(new Set(reports.map((r) => r.observerId)).size > N * 0.8);
  assert.ok(new Set(reports.map((r) => r.region)).size > N * 0.5);
  for (const report of reports) {
    if (report.case === 'long-observer-id') assert.ok(report.observerId.length > 128 && report.expect === 'invalid');
    if (report.case === 'empty-observer-id') assert.equal(report.observerId, '');
    if (report.case === 'long-region') assert.ok(report.region.length > 64);
    if (report.expect === 'valid') assert.ok(report.observerId.length >= 1 && report.observerId.length <= 128 && report.region.length <= 64);
  }
});

test('randomAdverts: random keys, long names; signatures verify exactly when labelled so', () => {
  const cases = countBy(samples.randomAdverts, 'case');
  for (const name of ['signed', 'bad-signature', 'tampered-app-data', 'timestamp-max', 'timestamp-zero']) assert.ok(cases[name] > 5, name);
  let longNames = 0;
  for (const report of samples.randomAdverts) {
    const { packet } = decode(report);
    assert.equal(packet.advert.pubKey, report.pubKey);
    if (report.case === 'timestamp-max') assert.equal(packet.advert.timestamp, 0xffffffff);
    if (Buffer.byteLength(packet.advert.name || '', 'utf8') > 100) longNames++;
    const payload = Buffer.from(report.raw, 'hex').subarray(packet.payloadOffset);
    const key = crypto.createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, payload.subarray(0, 32)]), format: 'der', type: 'spki' });
    const ok = crypto.verify(null, Buffer.concat([payload.subarray(0, 36), payload.subarray(100)]), key, payload.subarray(36, 100));
    assert.equal(ok, report.case !== 'bad-signature' && report.case !== 'tampered-app-data', report.case);
  }
  assert.ok(longNames > 50, `${longNames} names over 100 bytes`);
  assert.equal(new Set(samples.randomAdverts.map((r) => r.pubKey)).size, N, 'a new key every time');
});

test('randomChannels: many channel hashes; hashtag ones decrypt with their key', () => {
  const hashes = new Set();
  let decrypted = 0;
  for (const report of samples.randomChannels) {
    const keyring = report.channel ? createKeyring([report.channel]) : undefined;
    const { packet } = decodePacket(report.raw.toLowerCase(), { keyring });
    assert.equal(packet.payloadType, 5);
    hashes.add(packet.channelHash);
    if (report.case === 'random-hashtag') {
      assert.equal(packet.message.channel, report.channel.name);
      decrypted++;
    }
  }
  assert.ok(hashes.size > 150, `${hashes.size} channel hashes`);
  assert.ok(decrypted > 50);
});

test('extremeNumbers, randomBytes, oddStrings: what their labels say', () => {
  for (const report of samples.extremeNumbers) {
    const field = report.case.split('-')[0];
    const value = report[field];
    if (report.case.endsWith('non-finite')) assert.ok(typeof value === 'number' && !Number.isFinite(value) && report.expect === 'invalid');
    if (report.case.endsWith('-string')) assert.equal(typeof value, 'string');
  }
  const extremes = samples.extremeNumbers.map((r) => r.snr);
  assert.ok(extremes.includes(1e308) && extremes.includes(-1e308) && extremes.some(Number.isNaN));
  for (const report of samples.randomBytes) {
    if (report.expect === 'invalid') assert.notEqual(decode(report).error, undefined, `${report.case} ${report.raw}`);
  }
  const cases = countBy(samples.randomBytes, 'case');
  for (const name of ['random-hex', 'too-long', 'too-short', 'odd-length', 'not-hex']) assert.ok(cases[name] > 10, name);
  const odd = samples.oddStrings;
  assert.ok(odd.some((r) => typeof r.region === 'object' && r.region !== null));
  assert.ok(odd.some((r) => typeof r.region === 'string' && r.region.length === 900 * 1024));
  assert.ok(odd.some((r) => typeof r.observerName === 'string' && /[\u0000-\u001f]/.test(r.observerName)));
  for (const report of odd) if (report.expect === 'invalid') assert.ok(typeof report.observerId !== 'string' || report.observerId.length > 128);
});

test('toMqttMessage gives what observer-message.js parses back', () => {
  for (const report of samples.longPaths.slice(0, 100)) {
    const { topic, payload } = toMqttMessage(report);
    const { report: parsed } = parseObserverMessage(topic, payload, 123);
    assert.equal(parsed.raw, report.raw);
    assert.equal(parsed.observerId, report.observerId);
    assert.equal(parsed.region, report.region);
    assert.equal(parsed.observerName, report.observerName);
    assert.equal(parsed.snr, report.snr);
    assert.equal(parsed.rssi, report.rssi);
    assert.equal(parsed.observerTime, report.time);
  }
  // Every report of every class can be published (odd values included) without throwing.
  for (const reports of Object.values(samples)) for (const report of reports) assert.equal(typeof toMqttMessage(report).payload, 'string');
  // Non-finite numbers travel as strings and parse back as NaN, not as a missing value.
  const nan = samples.extremeNumbers.find((r) => r.case === 'snr-non-finite' && Number.isNaN(r.snr));
  assert.ok(Number.isNaN(parseObserverMessage(toMqttMessage(nan).topic, toMqttMessage(nan).payload).report.snr));
});
