'use strict';
// imports/core/observer-message.js: the topic cache and the ISO time fast path must give exactly
// what the plain regex and Date.parse give (brute force over generated inputs).
const test = require('node:test');
const assert = require('node:assert/strict');
const { parseTopic, parseTime, parseObserverMessage, TOPIC_CACHE_MAX } = require('../../imports/core/observer-message');
const { createPrng } = require('../../imports/core/prng');

const TOPIC_RE = /^meshcore\/([^/]{1,64})\/([^/]{1,128})\/(packets|status)$/;
const byRegex = (topic) => {
  const match = TOPIC_RE.exec(topic);
  return match ? { region: match[1], observerId: match[2], kind: match[3] } : null;
};

test('parseTopic: same answer as the regex for good, bad and repeated topics; results frozen and shared', () => {
  const topics = [
    'meshcore/SFO/OBS1/packets', 'meshcore/SFO/OBS1/status', 'meshcore/SFO/OBS1/other', 'meshcore//OBS1/packets',
    'meshcore/SFO/OBS1/packets/extra', `meshcore/${'R'.repeat(65)}/OBS/packets`, `meshcore/R/${'O'.repeat(129)}/packets`,
    'meshcore/sea/ÄÖ 📡/packets', 'MESHCORE/SFO/OBS1/packets', '',
  ];
  for (let round = 0; round < 3; round++) {
    for (const topic of topics) assert.deepEqual(parseTopic(topic), byRegex(topic), topic);
  }
  assert.equal(parseTopic(42), null);
  assert.equal(parseTopic(null), null);
  const first = parseTopic('meshcore/SFO/OBS1/packets');
  assert.equal(parseTopic('meshcore/SFO/OBS1/packets'), first);
  assert.ok(Object.isFrozen(first));
});

test('parseTopic: the cache stays bounded through a flood of distinct topics, answers unchanged', () => {
  const total = TOPIC_CACHE_MAX * 2 + 17;
  for (let i = 0; i < total; i++) {
    const topic = i % 3 === 0 ? `meshcore/R${i % 7}/OBS${i}/packets` : `junk/${i}`;
    assert.deepEqual(parseTopic(topic), byRegex(topic));
  }
  // Earlier topics, possibly cleared out, still parse the same.
  for (let i = 0; i < 100; i++) assert.deepEqual(parseTopic(`meshcore/R${i % 7}/OBS${i}/packets`), byRegex(`meshcore/R${i % 7}/OBS${i}/packets`));
});

test('parseTime: ISO strings give exactly Date.parse (fast path and fallback), numbers and junk as before', () => {
  const prng = createPrng(2026);
  const random = () => prng.float();
  const pad = (value, width) => String(value).padStart(width, '0');
  const pick = (values) => values[Math.floor(random() * values.length)];
  let checked = 0;
  for (let i = 0; i < 20000; i++) {
    const year = pick([1969, 1970, 2000, 2024, 2026, 2099, 9999, 50, Math.floor(random() * 10000)]);
    const month = pick([0, 1, 2, 6, 12, 13, Math.floor(random() * 14)]);
    const day = pick([0, 1, 28, 29, 30, 31, 32, Math.floor(random() * 33)]);
    const hour = pick([0, 12, 23, 24, 25]);
    const minute = pick([0, 30, 59, 60]);
    const second = pick([0, 30, 59, 60]);
    const millis = pick(['', `.${pad(Math.floor(random() * 1000), 3)}`, '.5', '.123456', '.abc']);
    const zone = pick(['Z', 'Z', 'Z', '+00:00', '', 'z']);
    const text = `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${pad(hour, 2)}:${pad(minute, 2)}:${pad(second, 2)}${millis}${zone}`;
    const expected = Date.parse(text);
    assert.equal(parseTime(text, -1), Number.isFinite(expected) ? expected : -1, text);
    checked++;
  }
  assert.equal(checked, 20000);
  for (const odd of ['2026-01-01T00:00:00.00AZ', '2026-01-01 00:00:00Z', 'x026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Y', 'yesterday', '1']) {
    const expected = Date.parse(odd);
    assert.equal(parseTime(odd, -1), Number.isFinite(expected) ? expected : -1, odd);
  }
  assert.equal(parseTime(1700000000, -1), 1700000000000);
  assert.equal(parseTime(1700000000123, -1), 1700000000123);
  assert.equal(parseTime('', -1), -1);
  assert.equal(parseTime(null, -1), -1);
});

test('parseObserverMessage: topic fields and observer time from the cached topic and the fast time path', () => {
  const payload = JSON.stringify({ raw: '1100', SNR: -3.5, RSSI: -90, timestamp: '2026-11-23T09:28:31.123Z', origin: 'Peak' });
  for (let i = 0; i < 2; i++) {
    const { report } = parseObserverMessage('meshcore/SEA/OBS9/packets', Buffer.from(payload), 5);
    assert.equal(report.region, 'SEA');
    assert.equal(report.observerId, 'OBS9');
    assert.equal(report.observerTime, Date.parse('2026-11-23T09:28:31.123Z'));
    assert.equal(report.time, 5);
  }
  assert.equal(parseObserverMessage('meshcore/SEA/OBS9/status', payload).error.reason, 'bad_topic');
});
