'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { matchRoute, resolveRoute } = require('../../imports/ui/lib/router');
const { niceTicks, linearScale, extent } = require('../../imports/ui/lib/chart-scale');
const { formatDuration, formatNumber, formatDb, shortKey } = require('../../imports/ui/lib/format');
const { byteCells, rowsOf, fieldCategory } = require('../../imports/ui/lib/packet-layout');
const { fillHours, hopBars, heatmapRows, peerRows } = require('../../imports/ui/lib/node-series');
const uiConstants = require('../../imports/ui/lib/mesh-constants');
const decode = require('../../imports/core/decode');
const { layout } = decode;

test('router: params from :segments, decoded; no match on length or literal mismatch', () => {
  assert.deepEqual(matchRoute('/nodes/:pubKey', '/nodes/ab12'), { pubKey: 'ab12' });
  assert.deepEqual(matchRoute('/channels/:hash', '/channels/%23test'), { hash: '#test' });
  assert.deepEqual(matchRoute('/', '/'), {});
  assert.equal(matchRoute('/nodes/:pubKey', '/nodes'), null);
  assert.equal(matchRoute('/nodes/:pubKey', '/packets/ab'), null);
  assert.equal(matchRoute('/x/:y', '/x/%E0%A4%A'), null, 'a malformed escape is no match');
  const routes = [{ path: '/analytics' }, { path: '/analytics/:tab' }];
  assert.deepEqual(resolveRoute(routes, '/analytics/rf'), { route: routes[1], params: { tab: 'rf' } });
  assert.equal(resolveRoute(routes, '/nope'), null);
});

test('chart scale: nice ticks cover the range in 1/2/5 steps', () => {
  assert.deepEqual(niceTicks(0, 100, 5), [0, 20, 40, 60, 80, 100]);
  assert.deepEqual(niceTicks(-19, 11.5, 4), [-10, 0, 10]);
  assert.deepEqual(niceTicks(3, 3), [3]);
  const scale = linearScale(0, 10, 100, 0);
  assert.equal(scale(0), 100);
  assert.equal(scale(10), 0);
  assert.equal(linearScale(5, 5, 0, 10)(5), 5, 'a flat domain maps to the middle');
  assert.deepEqual(extent([3, null, 7], 0), [0, 7]);
  assert.deepEqual(extent([]), [0, 1]);
});

test('format: durations, numbers and signal figures', () => {
  assert.equal(formatDuration(850), '850 ms');
  assert.equal(formatDuration(4200), '4.2 s');
  assert.equal(formatDuration(12 * 60000), '12 min');
  assert.equal(formatDuration(null), '—');
  assert.equal(formatNumber(1234567), '1,234,567');
  assert.equal(formatDb(-6.25), '-6.3 dB');
  assert.equal(shortKey('ABCDEF0123456789'), 'abcdef01');
});

test('byte breakdown: every byte of a decoded packet belongs to exactly the field that covers it', () => {
  // An advert-like packet is long; a REQ from the decoder's own layout is enough here.
  const raw = '028320a6771a4a6b4056a518ff14402919f65c82f4c99acfe59d961db6fb78';
  const { fields } = layout(raw);
  const cells = byteCells(raw, fields);
  assert.equal(cells.length, raw.length / 2);
  for (const cell of cells) {
    const covering = fields.filter((f) => cell.index >= f.start && cell.index <= f.end);
    assert.equal(covering.length, 1, `byte ${cell.index} is covered by ${covering.length} fields`);
    assert.equal(fields[cell.field], covering[0]);
  }
  assert.equal(cells[0].hex, '02');
  assert.equal(fieldCategory('header'), 'header');
  assert.equal(fieldCategory('pathLength'), 'path');
  assert.equal(fieldCategory('ciphertext'), 'payload');
  assert.deepEqual(rowsOf(cells, 16).map((row) => row.length), [16, 15]);
});

test('node series: hours without packets are zeros, heatmap rows start on Sunday', () => {
  const H = 3600000;
  const points = fillHours([{ hour: 10 * H, packets: 3 }, { hour: 12 * H, packets: 1 }], 0, 12 * H + 5);
  assert.deepEqual(points.slice(-3).map((p) => p.y), [3, 0, 1]);
  assert.equal(points[0].x, 4 * H, 'a mostly empty window starts 6 h before the first active hour');
  assert.deepEqual(hopBars({ 0: 1, 1: 2, '4+': 3 }).map((b) => b.label), ['0', '1', '4+']);
  assert.equal(heatmapRows([[1], [2]])[0].label, 'Sun');
});

test('mesh constants: the client copies match imports/core/decode.js', () => {
  assert.deepEqual(uiConstants.PAYLOAD_TYPES, decode.PAYLOAD_TYPES);
  assert.deepEqual(uiConstants.ROUTE_TYPES, decode.ROUTE_TYPES);
  assert.deepEqual(uiConstants.ROLES, decode.ROLES);
});

test('peerRows: keys naming one and the same known node are one row, summed, with the keys it was seen as', () => {
  const topPeers = [
    { peer: '67', count: 424, candidates: 1, name: 'Russian Ridge', node: '67b5aa' },
    { peer: '13', count: 294, candidates: 4, name: null, node: null },
    { peer: '67b5', count: 88, candidates: 1, name: 'Russian Ridge', node: '67b5aa' },
    { peer: '1343', count: 66, candidates: 1, name: 'Round Top', node: '1343cc' },
    { peer: '9f', count: 40, candidates: 0, name: null, node: null },
    { peer: '67b5aa', count: 5, candidates: 1, name: 'Russian Ridge', node: '67b5aa' },
  ];
  const rows = peerRows(topPeers);
  assert.deepEqual(rows.map((row) => [row.key, row.count, row.via.join(',')]), [
    ['67b5aa', 517, '67,67b5,67b5aa'],
    ['13', 294, '13'],
    ['1343cc', 66, '1343'],
    ['9f', 40, '9f'],
  ]);
  assert.equal(rows[0].name, 'Russian Ridge');
  assert.equal(rows[1].node, null);
  assert.equal(rows[1].candidates, 4);
  // Summing can reorder: two keys of a node together outrank a single busier key.
  const reordered = peerRows([
    { peer: 'aa', count: 10, candidates: 2, name: null, node: null },
    { peer: 'bb', count: 6, candidates: 1, name: 'B', node: 'bbkey' },
    { peer: 'bb01', count: 6, candidates: 1, name: 'B', node: 'bbkey' },
  ]);
  assert.deepEqual(reordered.map((row) => [row.key, row.count]), [['bbkey', 12], ['aa', 10]]);
  assert.equal(peerRows(topPeers, 2).length, 2);
  assert.deepEqual(peerRows(undefined), []);
});

test('topology rows: a repeater or a node pair seen with several hash sizes is one row, summed; unresolved hops stay apart', () => {
  const { repeaterRows, pairRows } = require('../../imports/ui/lib/topology-rows');
  const node = (pubKey, name) => ({ pubKey, name });
  const hop = (key, resolved) => ({ hop: key, hashSize: key.length / 2, node: resolved || null, candidates: [], candidateCount: resolved ? 1 : 2 });
  const roundTop = node('1343aa', 'Round Top');
  const sunset = node('88b2cc', 'Sunset');
  const repeaters = [
    { ...hop('13', roundTop), count: 1085 },
    { ...hop('fd', node('fda1', 'Moffett')), count: 1042 },
    { ...hop('4e'), count: 548 },
    { ...hop('1343', roundTop), count: 268 },
  ];
  assert.deepEqual(repeaterRows(repeaters).map((row) => [row.key, row.count, row.via.join(',')]), [
    ['1343aa', 1353, '13,1343'],
    ['fda1', 1042, 'fd'],
    ['4e', 548, '4e'],
  ]);
  assert.equal(repeaterRows(repeaters, 2).length, 2);
  const pair = (from, to, count) => ({ pair: `${from.hop},${to.hop}`, from, to, count });
  const pairs = [
    pair(hop('88', sunset), hop('13', roundTop), 533),
    pair(hop('4e'), hop('13', roundTop), 300),
    pair(hop('88b2', sunset), hop('1343', roundTop), 40),
    // The other direction is another pair.
    pair(hop('13', roundTop), hop('88', sunset), 20),
  ];
  assert.deepEqual(pairRows(pairs).map((row) => [row.key, row.count, row.via.join(' ')]), [
    ['88b2cc>1343aa', 573, '88,13 88b2,1343'],
    ['4e,13', 300, '4e,13'],
    ['1343aa>88b2cc', 20, '13,88'],
  ]);
  assert.deepEqual(repeaterRows(undefined), []);
});

test('time series: the bucket holding `until` is the partial one (drawn "so far"), complete buckets are not', () => {
  const { partialBucketStart, isPartialBucket, bucketSpanText, MINUTE_MS, HOUR_MS } = require('../../imports/ui/lib/time-buckets');
  const minute = (m) => new Date(2026, 10, 28, 4, m).getTime();
  const xs = [minute(10), minute(11), minute(12)];
  // The RF tab's case: generatedAt 3 s into 04:12, whose 351 packets are not a collapse from 6,000.
  assert.equal(partialBucketStart(xs, MINUTE_MS, minute(12) + 3000), minute(12));
  assert.equal(isPartialBucket(minute(12), MINUTE_MS, minute(12) + 3000), true);
  assert.equal(isPartialBucket(minute(11), MINUTE_MS, minute(12) + 3000), false);
  // At the bucket's first instant it is filling; at its end it is complete.
  assert.equal(partialBucketStart(xs, MINUTE_MS, minute(12)), minute(12));
  assert.equal(partialBucketStart(xs, MINUTE_MS, minute(13)), null, 'until at the end of the last bucket: all complete');
  assert.equal(partialBucketStart(xs, MINUTE_MS, minute(20)), null, 'a snapshot older than now: no bucket holds now');
  assert.equal(partialBucketStart(xs, MINUTE_MS, null), null, 'no until: nothing is called partial');
  assert.equal(partialBucketStart([], MINUTE_MS, minute(12)), null);
  assert.equal(partialBucketStart(xs, 0, minute(12)), null);
  // Order does not matter (series are concatenated); the hour holding now among hourly bars.
  assert.equal(partialBucketStart([minute(0) + HOUR_MS, minute(0)], HOUR_MS, minute(0) + HOUR_MS + 60000), minute(0) + HOUR_MS);
  // Tooltips: a complete bucket's span; the partial one says "so far" and when it ends, with no extrapolated figure.
  assert.equal(bucketSpanText(minute(11), MINUTE_MS, minute(12) + 3000), '04:11:00–04:12:00');
  assert.equal(bucketSpanText(minute(12), MINUTE_MS, minute(12) + 3000), '04:12:00–04:12:03 so far (bucket ends 04:13:00)');
  assert.equal(bucketSpanText(minute(12), MINUTE_MS, undefined), '04:12:00–04:13:00');
});

test('channel hash: 2 hex digits; a malformed or unheard channel gets a notice, not an empty panel', () => {
  const { isChannelHash, channelNotice } = require('../../imports/ui/lib/channel-hash');
  assert.equal(isChannelHash('ff'), true);
  for (const bad of ['zz', 'ffff', '<b>x', 'f', '', null, undefined]) assert.equal(isChannelHash(bad), false, String(bad));
  assert.deepEqual(channelNotice({ hash: 'zz', known: false, messageCount: null }), { error: true, text: 'No channel “zz”: a channel hash is 2 hex digits (00 to ff).' });
  assert.equal(channelNotice({ hash: '<b>x', known: false, messageCount: null }).text, 'No channel “<b>x”: a channel hash is 2 hex digits (00 to ff).');
  assert.equal(channelNotice({ hash: 'ffff', known: false, messageCount: null }).error, true);
  assert.match(channelNotice({ hash: 'ff', known: false, messageCount: 0 }).text, /^No stored messages on channel ff/);
  assert.equal(channelNotice({ hash: 'ff', known: true, messageCount: 0 }).text, 'No decrypted message on this channel.');
  assert.equal(channelNotice({ hash: 'ff', known: false, messageCount: null }), null, 'still loading: the spinner, no notice');
  assert.equal(channelNotice({ hash: '11', known: true, messageCount: 3 }), null);
});

test('reveal: a block whose top is out of view is scrolled to just below the sticky header; one in view stays', () => {
  const { revealScrollTop } = require('../../imports/ui/lib/scroll');
  // Nodes: "Next" clicked at the bottom of a long list, its top 3,900 px above the viewport.
  assert.equal(revealScrollTop({ top: -3900, scrollY: 4200, viewportHeight: 800, inset: 48 }), 4200 - 3900 - 48 - 8);
  // Its top hidden under the 48 px header counts as out of view.
  assert.equal(revealScrollTop({ top: 20, scrollY: 500, viewportHeight: 800, inset: 48 }), 500 + 20 - 48 - 8);
  // Subpaths: the detail opened above the table, near the page's top: never a negative scroll.
  assert.equal(revealScrollTop({ top: -200, scrollY: 150, viewportHeight: 800, inset: 48 }), 0);
  // Below the viewport (a detail opening further down) is scrolled to as well.
  assert.equal(revealScrollTop({ top: 900, scrollY: 0, viewportHeight: 800, inset: 48 }), 900 - 48 - 8);
  // In view: not moved.
  assert.equal(revealScrollTop({ top: 48, scrollY: 300, viewportHeight: 800, inset: 48 }), null);
  assert.equal(revealScrollTop({ top: 600, scrollY: 0, viewportHeight: 800, inset: 48 }), null);
  assert.equal(revealScrollTop({ top: Number.NaN, scrollY: 0, viewportHeight: 800 }), null);
});

test('counts in tooltips and palette results carry thousands separators', () => {
  const { distanceBars } = require('../../imports/ui/lib/distance-bars');
  const { snrBars } = require('../../imports/ui/lib/observer-series');
  const { paletteResults } = require('../../imports/ui/lib/palette');
  const [bar] = distanceBars([{ bin: '0-1', links: 2423, sightings: 1234567 }], 'sightings');
  assert.equal(bar.title, '0-1 km: 1,234,567 sightings (100.0%); 2,423 links, 1,234,567 sightings');
  assert.equal(snrBars([{ snr: -3, count: 12345 }])[0].title, '-3 to -2 dB: 12,345');
  const channel = paletteResults('public', { channels: [{ hash: '11', name: 'Public', messages: 24100 }] }).find((result) => result.kind === 'channel');
  assert.equal(channel.sub, '24,100 messages');
});
