'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { ObserverStatusBook, observerStatusOf, statusFromMessage, readFigures } = require('../../imports/core/observer-status');
const { parseStatusMessage } = require('../../imports/core/observer-message');
const { MemoryAccount } = require('../../imports/core/memory-account');

test('figures are read from the top level or under stats, validated, and counted when bad', () => {
  assert.deepEqual(readFigures({ stats: { battery_mv: 4012, uptime_secs: 3600, noise_floor: -112, tx_air_secs: 12, rx_air_secs: 40, recv_errors: 3 } }), {
    figures: { batteryMv: 4012, uptimeSecs: 3600, noiseFloorDbm: -112, txAirSecs: 12, rxAirSecs: 40, airtimePct: null, radioErrors: 3 }, invalid: [],
  });
  // Volts become millivolts; strings that are numbers count; out-of-range and junk are dropped.
  const { figures, invalid } = readFigures({ battery: 3.9, uptime: '120', noise_floor: 12, errors: 1.5, airtime_pct: 'NaN' });
  assert.equal(figures.batteryMv, 3900);
  assert.equal(figures.uptimeSecs, 120);
  assert.equal(figures.noiseFloorDbm, null);
  assert.equal(figures.radioErrors, null);
  assert.deepEqual(invalid.sort(), ['airtimePct', 'noiseFloorDbm', 'radioErrors']);
  assert.deepEqual(readFigures(null).invalid, []);
  assert.deepEqual(readFigures([1, 2]).invalid, []);
});

test('the book keeps the latest status and a bounded ring, charged to its memory part', () => {
  const account = new MemoryAccount();
  const part = account.part('observerStatus');
  const book = new ObserverStatusBook(part, { historySize: 5, maxObservers: 3 });
  for (let i = 0; i < 12; i++) book.record({ observerId: 'A', region: 'SFO', status: i % 2 ? 'online' : 'offline', details: { battery_mv: 4000 + i } }, 1000 + i);
  const latest = book.latest('A');
  assert.equal(latest.batteryMv, 4011);
  assert.equal(latest.status, 'online');
  assert.equal(latest.lastStatusAt, 1011);
  assert.equal(latest.firstStatusAt, 1000);
  assert.equal(latest.statuses, 12);
  assert.deepEqual(book.history('A').map((s) => s.batteryMv), [4007, 4008, 4009, 4010, 4011], 'oldest first, the newest five');
  assert.deepEqual(book.history('A', 2).map((s) => s.time), [1010, 1011]);
  const oneObserver = part.bytes;
  assert.ok(oneObserver > 0);
  // More observers than the cap: the least recently updated leaves, and its bytes are refunded.
  for (const id of ['B', 'C', 'D']) book.record({ observerId: id, status: 'online' }, 2000);
  assert.equal(book.observers.size, 3);
  assert.equal(book.latest('A'), null);
  assert.equal(book.stats().observersDropped, 1);
  for (const id of ['E', 'F', 'G']) book.record({ observerId: id, status: 'online' }, 3000);
  assert.ok(part.bytes > 0 && part.bytes < oneObserver * 3);
  assert.equal(account.total, part.bytes);
});

test('bad statuses never throw: refused with a reason and counted', () => {
  const book = new ObserverStatusBook(null);
  assert.equal(book.record(null).error.reason, 'not_an_object');
  assert.equal(book.record({ observerId: '' }, 1).error.reason, 'bad_observer_id');
  assert.equal(book.record({ observerId: 'x'.repeat(500) }, 1).error.reason, 'bad_observer_id');
  assert.equal(book.record({ observerId: 'A' }).error.reason, 'bad_time');
  assert.equal(book.record({ observerId: 'A', status: 42, details: 'junk' }, 5).entry.status, 'unknown');
  assert.deepEqual(book.stats().rejectReasons, { not_an_object: 1, bad_observer_id: 2, bad_time: 1 });
  assert.equal(book.version, 1);
});

test('a parsed MQTT status message becomes the same shape the MQTT source hands onStatus', () => {
  const parsed = parseStatusMessage('meshcore/SFO/ABCD/status', JSON.stringify({ status: 'Online', stats: { battery_mv: 4100, noise_floor: -108 } }));
  const status = statusFromMessage(parsed, 5000, 'simulator');
  assert.deepEqual({ ...status, details: undefined }, { observerId: 'ABCD', region: 'SFO', status: 'online', online: true, lastStatusAt: 5000, source: 'simulator', details: undefined });
  const book = observerStatusOf({ memory: new MemoryAccount() });
  book.record(status);
  assert.equal(book.latest('ABCD').noiseFloorDbm, -108);
  assert.equal(statusFromMessage(parseStatusMessage('bad/topic', '{}'), 1), null);
  // Not JSON: the word is kept, no figures.
  assert.equal(statusFromMessage(parseStatusMessage('meshcore/SFO/ABCD/status', 'offline'), 1).status, 'offline');
});
