'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { bucketMsOf, perBucketText, bucketAdjective, bucketLabel, timelineLabels, fillBuckets, HOUR_MS, MINUTE_MS } = require('../../imports/ui/lib/time-buckets');

const at = (h, m = 0) => new Date(2026, 10, 23, h, m).getTime(); // local time, as the labels are

test('charts read the bucket a snapshot says it used (hours when it says nothing)', () => {
  assert.equal(bucketMsOf({ size: 'minute', ms: MINUTE_MS }), MINUTE_MS);
  assert.equal(bucketMsOf({ size: '15min', ms: 15 * MINUTE_MS }), 15 * MINUTE_MS);
  assert.equal(bucketMsOf(undefined), HOUR_MS, 'an older server without buckets');
  assert.equal(perBucketText({ size: 'minute' }), 'per minute');
  assert.equal(perBucketText({ size: '5min' }), 'per 5 minutes');
  assert.equal(perBucketText(null), 'per hour');
  assert.equal(bucketAdjective({ size: 'hour' }), 'hourly');
  assert.equal(bucketAdjective({ size: '15min' }), 'per-15-minute');
});

test('timeline columns are labelled by their bucket', () => {
  assert.equal(bucketLabel(at(14, 35), 5 * MINUTE_MS), '14:35');
  assert.equal(bucketLabel(at(14, 0), HOUR_MS), '14:00');
  const minutes = timelineLabels({ from: at(9, 58), columns: 4, hours: 1, bucket: { size: 'minute', ms: MINUTE_MS } });
  assert.deepEqual(minutes, ['09:58', '09:59', '10:00', '10:01']);
  // A snapshot from before buckets: `hours` hourly columns.
  assert.deepEqual(timelineLabels({ from: at(8), hours: 2 }), ['08:00', '09:00']);
});

test('bars fill the buckets the view leaves out with 0, from shortly before the first with data', () => {
  const rows = [{ time: at(10, 3), packets: 2 }, { time: at(10, 6), packets: 1 }];
  const points = fillBuckets(rows, { bucketMs: MINUTE_MS, windowStart: at(0), now: at(10, 8) + 20000, lead: 2 });
  assert.deepEqual(points.map((p) => [new Date(p.x).getMinutes(), p.y]), [[1, 0], [2, 0], [3, 2], [4, 0], [5, 0], [6, 1], [7, 0], [8, 0]]);
  // Not before the window (or the bucket's exact start).
  assert.equal(fillBuckets(rows, { bucketMs: MINUTE_MS, windowStart: at(10, 3), now: at(10, 4) }).length, 2);
  assert.deepEqual(fillBuckets([], { bucketMs: HOUR_MS, windowStart: at(0), now: at(5, 30) }).map((p) => p.y), [0]);
});
