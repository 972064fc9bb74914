'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { replayStart, playFrom, replayBlocked, PLAY_STEP_MS } = require('../../imports/ui/lib/replay');

const MINUTE = 60 * 1000;
const T0 = Date.UTC(2026, 10, 28, 12, 0, 0);

/** Play as the map does: from playFrom, one step a tick, until the end. Returns the positions visited. */
function playThrough(range, at, windowMs) {
  const visited = [playFrom(range, at, windowMs)];
  while (visited[visited.length - 1] < range.until) visited.push(Math.min(visited[visited.length - 1] + PLAY_STEP_MS, range.until));
  return visited;
}

test('replay on a store younger than its window starts at the oldest stored traffic and plays to the newest', () => {
  const range = { from: T0, until: T0 + 4 * MINUTE }; // 4 minutes stored, a 10-minute window
  const start = replayStart(range, 10 * MINUTE);
  assert.equal(start, range.from + PLAY_STEP_MS, 'the first window ends one step after the oldest stored time');
  const visited = playThrough(range, start, 10 * MINUTE);
  assert.equal(visited[0], start);
  assert.equal(visited[visited.length - 1], range.until);
  assert.equal(visited.length, 4 * MINUTE / PLAY_STEP_MS, 'every step of the stored 4 minutes is played');
  assert.equal(replayBlocked(range), null);
});

test('replay on an older store starts one full window in; Play at the end starts over', () => {
  const range = { from: T0, until: T0 + 3 * 60 * MINUTE };
  assert.equal(replayStart(range, 10 * MINUTE), T0 + 10 * MINUTE);
  assert.equal(playFrom(range, T0 + 30 * MINUTE, 10 * MINUTE), T0 + 30 * MINUTE, 'paused mid-way: resumes there');
  assert.equal(playFrom(range, range.until, 10 * MINUTE), T0 + 10 * MINUTE, 'at the end: from the start again');
  assert.equal(playFrom(range, null, 10 * MINUTE), T0 + 10 * MINUTE);
});

test('replay says why it cannot play when less than one step is stored', () => {
  assert.match(replayBlocked({ from: T0, until: T0 + 12000 }), /only 12 s of traffic is stored/);
  assert.match(replayBlocked({ from: T0, until: T0 }), /only 0 s/);
  assert.equal(replayBlocked(null), 'nothing is stored yet');
});
