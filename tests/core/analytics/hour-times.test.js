'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { seededRandom } = require('../../helpers/mesh');
const { newHourBucket, addTime, removeOldestTime, hourTimes, HOUR_FIELD } = require('../../../imports/core/analytics/hour-times');

test('an hour bucket\'s first, last and longest gap stay exact while it says so, whatever the insertion order', () => {
  const random = seededRandom(3);
  let exactChecks = 0;
  const check = (hour, times, where) => {
    const sorted = [...times].sort((a, b) => a - b);
    let maxGap = 0;
    let maxGapEnd = null;
    for (let j = 1; j < sorted.length; j++) {
      if (sorted[j] - sorted[j - 1] > maxGap) { maxGap = sorted[j] - sorted[j - 1]; maxGapEnd = sorted[j]; }
    }
    const kept = hourTimes(hour);
    assert.deepEqual([kept.first, kept.last, kept.maxGap], [sorted[0], sorted[sorted.length - 1], maxGap], `${where}: ${times}`);
    if (maxGap > 0) assert.equal(kept.maxGapEnd, maxGapEnd, `${where}: ${times}`);
    exactChecks++;
  };
  for (let round = 0; round < 300; round++) {
    const hour = newHourBucket();
    const times = [];
    let clock = 1e6 + Math.floor(random() * 10) * 10e3;
    const count = 1 + Math.floor(random() * 60);
    for (let i = 0; i < count && (i === 0 || hour[HOUR_FIELD.EXACT]); i++) {
      // Mostly in time order, sometimes a late-attributed earlier packet, sometimes a tie;
      // times on a 10 s grid, so that equal gaps (ties for the longest) are common.
      const roll = random();
      if (roll < 0.6) clock += Math.floor(random() * 12) * 10e3;
      let time = clock;
      if (roll >= 0.9) time = Math.min(...times, clock) - Math.floor(random() * 12) * 10e3; // before the first
      else if (roll >= 0.8) time = Math.floor(random() * (clock / 10e3 + 1)) * 10e3;
      addTime(hour, time);
      times.push(time);
      if (hour[HOUR_FIELD.EXACT]) check(hour, times, `round ${round} add ${i}`);
    }
    // Eviction takes the oldest time first.
    times.sort((a, b) => a - b);
    while (times.length > 1 && hour[HOUR_FIELD.EXACT]) {
      times.shift();
      assert.equal(removeOldestTime(hour), times.length);
      if (hour[HOUR_FIELD.EXACT]) check(hour, times, `round ${round} evict`);
    }
  }
  assert.ok(exactChecks > 2000, `${exactChecks} exact checks`);
});
