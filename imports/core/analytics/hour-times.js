'use strict';
/**
 * Hour buckets of the node tracker (node-tracker.js keeps one per key and hour): one node's
 * packets first heard in one hour, as one Float64Array (no boxed numbers, one
 * allocation): packets, SNR sum and count (the hourly trend), and what the longest silence
 * needs without a walk over packets: the first time, the newest TIME_TAIL times in order
 * (packets attributed late, when a later observation's path names the node, land a few seconds
 * back, inside this tail), and for the older "settled" times their last one and their longest
 * gap between consecutive packets (and where it ends). This stays exact while packets are added
 * inside the tail, before the first, or outside the settled longest gap, and while evictions
 * take times from the tail; otherwise EXACT turns 0 and the snapshot re-reads that one hour from
 * the store's indexes (eviction is oldest-first, so that is at most the node's oldest hour,
 * plus rare splits).
 */
const { BYTES, entryBytes } = require('../memory-account');

const TIME_TAIL = 8;
// VERSION counts every change to the bucket's times (a packet added or taken back): the node
// view keeps hours it had to re-read from the store while their buckets' versions hold.
const H = {
  PACKETS: 0, SNR_SUM: 1, SNR_COUNT: 2, FIRST: 3, SETTLED_LAST: 4, MAX_GAP: 5, MAX_GAP_END: 6, EXACT: 7, TAIL_LENGTH: 8, VERSION: 9, TAIL: 10,
};
const HOUR_FIELDS = H.TAIL + TIME_TAIL;

function newHourBucket() {
  return new Float64Array(HOUR_FIELDS);
}

const HOUR_BYTES = BYTES.typedArray + HOUR_FIELDS * 8 + entryBytes(0.5);

/** Count one more packet at `time` in an hour bucket. */
function addTime(hour, time) {
  hour[H.VERSION]++;
  if (hour[H.PACKETS]++ === 0) {
    hour[H.FIRST] = time;
    hour[H.SETTLED_LAST] = NaN; // nothing settled yet
    hour[H.MAX_GAP] = 0;
    hour[H.MAX_GAP_END] = time;
    hour[H.EXACT] = 1;
    hour[H.TAIL] = time;
    hour[H.TAIL_LENGTH] = 1;
    return;
  }
  const settledLast = hour[H.SETTLED_LAST];
  if (Number.isNaN(settledLast) || time >= settledLast) {
    if (time < hour[H.FIRST]) hour[H.FIRST] = time; // nothing settled yet
    let length = hour[H.TAIL_LENGTH];
    if (length === TIME_TAIL) {
      if (time <= hour[H.TAIL]) {
        settle(hour, time);
        return;
      }
      settle(hour, hour[H.TAIL]);
      hour.copyWithin(H.TAIL, H.TAIL + 1, H.TAIL + length);
      length--;
    }
    let at = H.TAIL + length;
    while (at > H.TAIL && hour[at - 1] > time) {
      hour[at] = hour[at - 1];
      at--;
    }
    hour[at] = time;
    hour[H.TAIL_LENGTH] = length + 1;
  } else if (time < hour[H.FIRST]) {
    // An earlier gap as long as the longest becomes the longest: the first one in time wins.
    const gap = hour[H.FIRST] - time;
    if (gap > 0 && gap >= hour[H.MAX_GAP]) {
      hour[H.MAX_GAP] = gap;
      hour[H.MAX_GAP_END] = hour[H.FIRST];
    }
    hour[H.FIRST] = time;
  } else if (time > hour[H.MAX_GAP_END] - hour[H.MAX_GAP] && time < hour[H.MAX_GAP_END]) {
    hour[H.EXACT] = 0; // splits the settled longest gap: the next longest is not known
  }
}

/** Move a time (the oldest of the tail, or older) into the settled times. */
function settle(hour, time) {
  const settledLast = hour[H.SETTLED_LAST];
  if (!Number.isNaN(settledLast) && time - settledLast > hour[H.MAX_GAP]) {
    hour[H.MAX_GAP] = time - settledLast;
    hour[H.MAX_GAP_END] = time;
  }
  hour[H.SETTLED_LAST] = time;
}

/** Count one packet less: the oldest one (eviction is oldest-first). Returns the packets left. */
function removeOldestTime(hour) {
  hour[H.VERSION]++;
  const left = --hour[H.PACKETS];
  if (left === 0) return 0;
  if (Number.isNaN(hour[H.SETTLED_LAST])) {
    // All times are in the tail: drop its first, still exact.
    const length = hour[H.TAIL_LENGTH];
    hour.copyWithin(H.TAIL, H.TAIL + 1, H.TAIL + length);
    hour[H.TAIL_LENGTH] = length - 1;
    hour[H.FIRST] = hour[H.TAIL];
  } else {
    hour[H.EXACT] = 0;
  }
  return left;
}

/** { first, last, maxGap, maxGapEnd } of an hour bucket whose times are exact (the first longest gap). */
function hourTimes(hour) {
  const length = hour[H.TAIL_LENGTH];
  let maxGap = hour[H.MAX_GAP];
  let maxGapEnd = hour[H.MAX_GAP_END];
  let previous = Number.isNaN(hour[H.SETTLED_LAST]) ? hour[H.TAIL] : hour[H.SETTLED_LAST];
  for (let i = H.TAIL; i < H.TAIL + length; i++) {
    if (hour[i] - previous > maxGap) {
      maxGap = hour[i] - previous;
      maxGapEnd = hour[i];
    }
    previous = hour[i];
  }
  return { first: hour[H.FIRST], last: hour[H.TAIL + length - 1], maxGap, maxGapEnd };
}

module.exports = { HOUR_FIELD: H, HOUR_BYTES, newHourBucket, addTime, removeOldestTime, hourTimes };
