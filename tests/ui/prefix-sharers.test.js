'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { prefixSharerSummary, roleCountText } = require('../../imports/ui/lib/prefix-sharers');

const key = (first, n) => `${first}${String(n).padStart(62, '0')}`;
const sharer = (n, role) => ({ pubKey: key('d2', n), name: `N${n}`, role });
// About what a 5,000-node mesh puts on one byte: 20 sharers, 3 of them repeaters.
const sharers = [
  ...Array.from({ length: 14 }, (_, i) => sharer(i, 'companion')),
  sharer(20, 'repeater'), sharer(21, 'repeater'), sharer(22, 'repeater'),
  sharer(30, 'room'), sharer(31, 'room'), sharer(40, 'sensor'),
];

test('prefix sharers: a repeater\'s relay hops are ambiguous only with the other repeaters; addressed packets with every sharer', () => {
  const summary = prefixSharerSummary({ pubKey: key('D2', 99), role: 'repeater' }, sharers);
  assert.equal(summary.prefix, 'd2');
  assert.deepEqual(summary.relay.shown.map((s) => s.name), ['N20', 'N21', 'N22']);
  assert.equal(summary.relay.total, 3);
  assert.equal(summary.relay.more, 0);
  assert.equal(summary.address.total, 20);
  assert.equal(roleCountText(summary.address.roles), '14 companions, 3 repeaters, 2 rooms, 1 sensor');
});

test('prefix sharers: a companion\'s relay figures are not affected by anyone (only repeaters relay)', () => {
  const summary = prefixSharerSummary({ pubKey: key('d2', 99), role: 'companion' }, sharers);
  assert.equal(summary.relay, null);
  assert.equal(summary.address.total, 20);
});

test('prefix sharers: the named repeaters are cut at the limit, with how many are left; no repeater sharer is said as such', () => {
  const many = Array.from({ length: 9 }, (_, i) => sharer(i, 'repeater'));
  const summary = prefixSharerSummary({ pubKey: key('d2', 99), role: 'repeater' }, many, 5);
  assert.equal(summary.relay.shown.length, 5);
  assert.equal(summary.relay.more, 4);
  const companionsOnly = prefixSharerSummary({ pubKey: key('d2', 99), role: 'repeater' }, [sharer(1, 'companion'), sharer(2, undefined)]);
  assert.equal(companionsOnly.relay.total, 0);
  assert.equal(roleCountText(companionsOnly.address.roles), '1 companion, 1 of unknown role');
});
