'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { placeLabels } = require('../../imports/ui/lib/label-layout');
const { perfSample, appendSample, seriesOf, rejectRows, memoryPartRows } = require('../../imports/ui/lib/perf-series');
const { timelineHours, bucketDomain, HOUR_MS } = require('../../imports/ui/lib/time-buckets');
const { sortRows } = require('../../imports/ui/lib/sort-rows');
const { packetSummaryText, hopPathText } = require('../../imports/ui/lib/text');

function overlap(a, b) {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

test('map labels: none overlap, higher priority wins a crowded spot, zooming in places more', () => {
  const crowded = [
    { key: 'a', x: 100, y: 100, text: 'Companion Ann', priority: 0 },
    { key: 'b', x: 104, y: 102, text: 'Repeater Bob', priority: 3 },
    { key: 'c', x: 300, y: 200, text: 'Far Carol', priority: 0 },
    { key: 'd', x: 310, y: 100, text: '', priority: 5 },
  ];
  const placed = placeLabels(crowded, 800, 400);
  assert.equal(placed[0].key, 'b', 'the repeater is placed first');
  assert.equal(placed[0].anchor, 'start');
  assert.equal(placed.find((l) => l.key === 'a').anchor, 'end', 'the companion next to it goes to the free side');
  assert.ok(!placed.some((l) => l.key === 'd'), 'an unnamed node gets no label');
  // A third name squeezed between the two: no room on either side.
  assert.ok(!placeLabels([...crowded, { key: 'x', x: 102, y: 104, text: 'Xavier', priority: 0 }], 800, 400).some((l) => l.key === 'x'));
  const boxes = placed.map((l) => ({ x: l.anchor === 'start' ? l.x : l.x - l.text.length * 6.4, y: l.y - 6, w: l.text.length * 6.4, h: 12 }));
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) assert.ok(!overlap(boxes[i], boxes[j]));
  // Zoomed in (three times as far apart) the squeezed name fits too.
  const zoomed = [...crowded, { key: 'x', x: 102, y: 104, text: 'Xavier', priority: 0 }].map((item) => ({ ...item, x: item.x * 3, y: item.y * 30 }));
  assert.ok(placeLabels(zoomed, 2400, 12000).some((l) => l.key === 'x'));
  // Near the right edge a label goes to the left of its node.
  const [edge] = placeLabels([{ key: 'e', x: 790, y: 50, text: 'Edge' }], 800, 400);
  assert.equal(edge.anchor, 'end');
});

test('perf samples: CPU % from cpu deltas, bounded history, one sample per document', () => {
  const doc = (time, user, extra = {}) => ({
    generatedAt: time,
    perf: { cpu: { user, system: 0 }, memory: { rssMB: 150, heapUsedMB: 60 }, eventLoopDelayMs: { p50: 10, p99: 20 }, methodMs: { count: 0, p50: null, p95: null } },
    ingest: { ratePerSecond: { last10s: 19.5 }, queue: { depth: 3 } },
    publish: { snapshotMs: { p50: 1, p95: 4 } },
    store: { transmissions: 10 },
    ...extra,
  });
  let history = [];
  history = appendSample(history, doc(1000, 0), 3);
  assert.equal(history[0].cpuPct, null, 'no CPU figure without a previous sample');
  history = appendSample(history, doc(2000, 250000), 3); // 250 ms of CPU over 1 s
  assert.equal(history[1].cpuPct, 25);
  assert.equal(appendSample(history, doc(2000, 999), 3), history, 'the same document twice is one sample');
  history = appendSample(history, doc(3000, 500000), 3);
  history = appendSample(history, doc(4000, 100), 3); // a restart: the counter went back
  assert.equal(history.length, 3);
  assert.equal(history[2].cpuPct, null);
  assert.deepEqual(seriesOf(history, 'queueDepth').map((p) => p.x), [2000, 3000, 4000]);
  const sample = perfSample({ generatedAt: 5 }, null);
  assert.equal(sample.rssMB, null, 'missing sections give null, never undefined or NaN');
  assert.equal(sample.methodP95Ms, null);
});

test('input health rows: reasons from store and pipeline, largest first; memory parts with budget share', () => {
  const rows = rejectRows({ rejectReasons: { bad_signature: 2, bad_snr: 5 } }, { rejectedByReason: { bad_json: 1 } });
  assert.deepEqual(rows.map((r) => [r.where, r.reason, r.count]), [['store', 'bad_snr', 5], ['store', 'bad_signature', 2], ['pipeline', 'bad_json', 1]]);
  assert.deepEqual(rejectRows(undefined, undefined), []);
  const parts = memoryPartRows({ memoryParts: { packets: 300, rf: 100 }, memoryBudgetBytes: 1000 });
  assert.deepEqual(parts, [{ part: 'packets', bytes: 300, budgetPct: 30 }, { part: 'rf', bytes: 100, budgetPct: 10 }]);
  assert.equal(memoryPartRows({ memoryParts: { a: 1 } })[0].budgetPct, null);
});

test('time buckets: the timeline asks for the hours the store spans; steps are clipped to the data', () => {
  const hour = (h) => h * HOUR_MS;
  assert.equal(timelineHours(hour(10) + 5 * 60000, hour(10) + 25 * 60000), 1, 'a 20-minute-old server: one hour');
  assert.equal(timelineHours(hour(10) + 50 * 60000, hour(12) + 60000), 3);
  assert.equal(timelineHours(hour(0), hour(100)), 24, 'capped');
  assert.equal(timelineHours(null, hour(3)), 24, 'unknown age: the default');
  // One hourly bucket, data from 10:05, now 10:25: drawn over 10:05..10:25, not as a dot.
  assert.deepEqual(bucketDomain([hour(10)], HOUR_MS, hour(10) + 5 * 60000, hour(10) + 25 * 60000), [hour(10) + 5 * 60000, hour(10) + 25 * 60000]);
  assert.deepEqual(bucketDomain([hour(8), hour(9)], HOUR_MS, null, null), [hour(8), hour(10)]);
  assert.deepEqual(bucketDomain([hour(8)], HOUR_MS, hour(5), hour(12)), [hour(8), hour(9)], 'from/until outside the buckets change nothing');
  assert.equal(bucketDomain([], HOUR_MS), null);
});

test('sorting rows: numbers and text, missing values last either way, ties by id', () => {
  const rows = [{ id: 'b', n: 2, s: 'beta' }, { id: 'a', n: null, s: '' }, { id: 'c', n: 2, s: 'Alpha' }, { id: 'd', n: 10, s: 'gamma' }];
  assert.deepEqual(sortRows(rows, (r) => r.n).map((r) => r.id), ['b', 'c', 'd', 'a']);
  assert.deepEqual(sortRows(rows, (r) => r.n, true).map((r) => r.id), ['d', 'b', 'c', 'a']);
  assert.deepEqual(sortRows(rows, (r) => r.s).map((r) => r.id), ['c', 'b', 'd', 'a']);
});

test('cell tooltips: packet summary and hop path as text', () => {
  assert.equal(packetSummaryText({ advert: { name: 'Bob', role: 'repeater', pubKey: 'ab' } }), 'advert Bob repeater');
  assert.equal(packetSummaryText({ message: { channel: '#test', sender: 'Ann', text: 'hello there' } }), '#test Ann: hello there');
  assert.equal(packetSummaryText({ channelHash: '1f' }), 'channel 1f (encrypted)');
  assert.equal(packetSummaryText({ srcHash: 'aa' }), 'aa → ??');
  assert.equal(packetSummaryText({}), '');
  assert.equal(hopPathText(['1a', '20', 'c4']), '1a › 20 › c4');
  assert.equal(hopPathText([]), 'direct');
});

test('packet rows: Hops counts the hops of the path in the Path column, not the first copy\'s', () => {
  const { shownPath, shownHopCount, shownPathText } = require('../../imports/ui/lib/text');
  // First heard after 1 hop; another observer heard it over 3: both columns describe the 3-hop copy.
  const row = { payloadType: 5, hopCount: 1, longestPath: ['1a', '20', 'c4'] };
  assert.deepEqual(shownPath(row), ['1a', '20', 'c4']);
  assert.equal(shownHopCount(row), 3);
  assert.equal(shownPathText(row), '1a › 20 › c4');
  assert.equal(shownHopCount({ payloadType: 4, hopCount: 0, longestPath: [] }), 0);
  // A TRACE's path bytes are SNRs: its count is those, and the Path column says so instead of "direct".
  const trace = { payloadType: 9, hopCount: 2, longestPath: [] };
  assert.equal(shownHopCount(trace), 2);
  assert.equal(shownPathText(trace), 'trace: 2 SNRs so far, no hop hashes');
});

test('packet rows under a node search show the path that matched, its hop marked and never cut off', () => {
  const { shownPath, shownHopCount, shownPathText, markedHops, hopWindow } = require('../../imports/ui/lib/text');
  // The node (hop 5e) relayed only the 2-hop copy; the longest copy (4 hops) does not name it.
  const row = { payloadType: 5, hopCount: 2, longestPath: ['1a', '20', 'c4', '77'], nodeMatch: { path: ['1a', '5e'], hops: [1] } };
  assert.deepEqual(shownPath(row), ['1a', '5e']);
  assert.equal(shownHopCount(row), 2);
  assert.deepEqual(markedHops(row), [1]);
  assert.equal(shownPathText(row), '1a › 5e (the searched node at hop 2; the longest heard had 4)');
  // Matched by its src/dest hash (shown in What): the longest path, nothing marked.
  const addressed = { payloadType: 2, hopCount: 1, longestPath: ['1a', '20'], nodeMatch: null };
  assert.deepEqual(shownPath(addressed), ['1a', '20']);
  assert.deepEqual(markedHops(addressed), []);
  assert.equal(shownPathText(addressed), '1a › 20');
  // Eight hops drawn of twelve: from the start, unless the marked hop would be cut off.
  assert.deepEqual(hopWindow(12, 8, []), { first: 0, end: 8 });
  assert.deepEqual(hopWindow(12, 8, [3]), { first: 0, end: 8 });
  assert.deepEqual(hopWindow(12, 8, [7]), { first: 1, end: 9 });
  assert.deepEqual(hopWindow(12, 8, [10]), { first: 4, end: 12 });
  assert.deepEqual(hopWindow(12, 8, [11]), { first: 4, end: 12 });
  assert.deepEqual(hopWindow(3, 8, [2]), { first: 0, end: 3 });
});
