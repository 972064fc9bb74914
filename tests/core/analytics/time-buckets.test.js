'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { TimeCounts, chooseBucket, BUCKET_MS } = require('../../../imports/core/analytics/time-buckets');
const { MemoryAccount } = require('../../../imports/core/memory-account');
const { bruteChoose, bruteFrom } = require('./bucket-brute');

const MINUTE = 60e3;
const HOUR = 60 * MINUTE;

/** Events at times from `nextTime(time, random)`, recounted every 250 steps; all undone at the end. */
function checkAgainstRecount(nextTime) {
  const part = new MemoryAccount().part('test');
  const counts = new TimeCounts({ width: 1, keyed: true, part });
  const live = [];
  let time = Date.UTC(2026, 0, 1);
  let seed = 7;
  const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
  for (let step = 0; step < 4000; step++) {
    time = nextTime(time, random);
    const key = `k${Math.floor(random() * 4)}`;
    counts.add(time, key, 0, 1);
    live.push({ time, key });
    while (live.length > 1500 || (live.length && random() < 0.2)) {
      const old = live.shift(); // oldest first, like the store
      counts.add(old.time, old.key, 0, -1);
    }
    if (step % 250 !== 0) continue;
    for (const size of ['minute', '5min', '15min', 'hour']) {
      const ms = BUCKET_MS[size];
      const from = bruteFrom(size, time);
      for (const key of ['k0', 'k2']) {
        const expected = new Map();
        for (const event of live) {
          const start = Math.floor(event.time / ms) * ms;
          if (event.key !== key || (from !== null && start < from)) continue;
          expected.set(start, (expected.get(start) || 0) + 1);
        }
        const actual = counts.series(size, { keys: [key], newest: time });
        assert.deepEqual(actual.map(({ start, row }) => [start, row[0]]), [...expected].sort((a, b) => a[0] - b[0]), `${size} ${key} step ${step}`);
      }
    }
  }
  while (live.length) {
    const old = live.shift();
    counts.add(old.time, old.key, 0, -1);
  }
  assert.deepEqual(counts.rowCounts(), { minute: 0, '5min': 0, hour: 0 });
  assert.equal(part.bytes, 0);
}

test('time counts: every row equals a recount of the live events from its window on, and memory returns to zero', () => {
  checkAgainstRecount((time, random) => time + Math.floor(random() * 90e3)); // about 50 hours in all
});

test('time counts stay exact for fractional times at a hair before, on and after bucket ends (the cached-bucket range stops short of them)', () => {
  const offsets = [-(2 ** -12), -0.5, -1, -1.5, 0, 2 ** -12, 0.25]; // 2 ** -12: the finest step between times of this decade
  checkAgainstRecount((time, random) => {
    const step = time + Math.floor(random() * 90e3);
    // Half the events sit right by a minute boundary (every coarser boundary is one too).
    if (random() < 0.5) return step;
    const boundary = Math.ceil(step / MINUTE) * MINUTE;
    return Math.max(time, boundary + offsets[Math.floor(random() * offsets.length)]);
  });
});

test("'auto' picks minutes under 3 hours, 5 minutes under 15, 15 minutes under a day, hours beyond", () => {
  const newest = Date.UTC(2026, 0, 2, 12, 30);
  const counts = new TimeCounts({ width: 1 });
  counts.add(newest, null, 0, 1);
  for (const [spanHours, expected] of [[0, 'minute'], [2.5, 'minute'], [3.5, '5min'], [14, '5min'], [16, '15min'], [23, '15min'], [25, 'hour'], [300, 'hour']]) {
    const oldest = newest - spanHours * HOUR;
    assert.equal(chooseBucket('auto', { oldest, newest, counts }), expected, `${spanHours} h`);
    assert.equal(bruteChoose('auto', oldest, newest), expected, `brute ${spanHours} h`);
  }
  assert.equal(chooseBucket('minute', { oldest: newest - 100 * HOUR, newest, counts }), 'minute', 'an explicit size is kept');
  assert.equal(chooseBucket('auto', { oldest: null, newest: null, counts }), 'minute', 'no data: the finest');
});
