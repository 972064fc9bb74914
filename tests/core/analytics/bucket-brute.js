'use strict';
/**
 * Brute force for time buckets (imports/core/analytics/time-buckets.js), written from the rule
 * the README states, not from the code: minute buckets reach back 3 hours before the store's
 * newest time, 5- and 15-minute buckets 24 hours, hours everything; 'auto' picks the finest
 * size with at most 180 buckets over [oldest, newest] whose window reaches back to the oldest.
 */
const MINUTE = 60e3;
const HOUR = 60 * MINUTE;
const SIZES = { minute: MINUTE, '5min': 5 * MINUTE, '15min': 15 * MINUTE, hour: HOUR };
const KEEP = { minute: 3 * HOUR, '5min': 24 * HOUR, '15min': 24 * HOUR, hour: Infinity };
const KEPT_AT = { minute: MINUTE, '5min': 5 * MINUTE, '15min': 5 * MINUTE, hour: HOUR };

const floorTo = (time, ms) => Math.floor(time / ms) * ms;

/** First bucket start of `size` counted exactly, given the store's newest time; null for all. */
function bruteFrom(size, newest) {
  if (KEEP[size] === Infinity || newest === null) return null;
  const from = floorTo(newest - KEEP[size], KEPT_AT[size]);
  return Math.ceil(from / SIZES[size]) * SIZES[size];
}

function bruteChoose(requested, oldest, newest, maxPoints = 180, lastTime = newest) {
  const sizes = ['minute', '5min', '15min', 'hour'];
  if (requested !== 'auto') return requested;
  if (oldest === null || oldest === undefined) return 'minute';
  for (const size of sizes) {
    if (size === 'hour') return size;
    const ms = SIZES[size];
    if ((floorTo(newest, ms) - floorTo(oldest, ms)) / ms + 1 > maxPoints) continue;
    if (bruteFrom(size, lastTime) > oldest) continue;
    return size;
  }
  return 'hour';
}

/** The time the windows count back from: the store's newest report time, null when it holds nothing. */
function bruteNewest(store) {
  return store.size ? store.lastTime : null;
}

/** The snapshot's `bucket` description. */
function bruteDescribe(size, requested, newest) {
  return { size, ms: SIZES[size], requested, from: bruteFrom(size, newest) };
}

/** Map start -> row of counts: `events` = [{ time, add(row) }] counted when in the window. */
function bruteRows(events, size, newest, width) {
  const from = bruteFrom(size, newest);
  const rows = new Map();
  for (const { time, add } of events) {
    const start = floorTo(time, SIZES[size]);
    if (from !== null && start < from) continue;
    if (!rows.has(start)) rows.set(start, new Array(width).fill(0));
    add(rows.get(start));
  }
  return new Map([...rows].sort((a, b) => a[0] - b[0]));
}

module.exports = { bruteNewest, bruteFrom, bruteChoose, bruteDescribe, bruteRows, SIZES, floorTo };

/**
 * Like checkAgainstBruteForce (tests/helpers/mesh.js), on simulated reports whose times are
 * stretched by `stretch` (order kept) so they span hours or days: minute and 5-minute windows
 * then drop rows as time moves on while evictions take packets from the old end, and every
 * bucket size is checked against the brute force after each chunk.
 */
function checkStretched({ view, bruteForce, paramsList, stretch, seed = 5, count = 2500, checks = 8, project = (snapshot) => snapshot, evictShare = 0.3 }) {
  const assert = require('node:assert/strict');
  const { simulatedReports, assertClose, seededRandom } = require('../../helpers/mesh');
  const { createEngine } = require('../../../imports/core/engine');
  const { reports, channels } = simulatedReports({ seed, count });
  const t0 = reports[0].time;
  for (const report of reports) report.time = t0 + Math.round((report.time - t0) * stretch);
  const engine = createEngine({ channels, views: [view] });
  const instance = engine.view(view);
  const random = seededRandom(seed * 17 + 3);
  let next = 0;
  const seen = new Set();
  for (let check = 0; check < checks; check++) {
    const chunk = Math.ceil((reports.length / checks) * (0.5 + random()));
    for (let i = 0; i < chunk && next < reports.length; i++) engine.ingest(reports[next++]);
    const evictions = Math.floor(random() * engine.store.size * evictShare);
    for (let i = 0; i < evictions; i++) engine.store.evictOldest();
    const now = engine.store.lastTime + Math.floor(random() * 600e3);
    const list = typeof paramsList === 'function' ? paramsList(engine.store) : paramsList;
    for (const params of list) {
      const snapshot = instance.snapshot(params, now);
      const bucket = snapshot.bucket || (snapshot.analytics && snapshot.analytics.bucket) || (snapshot.timeline && snapshot.timeline.bucket) || {};
      if (bucket.requested === 'auto') seen.add(bucket.size); // the sizes 'auto' picked
      assertClose(project(snapshot), bruteForce(engine.store, instance.normalizeParams(params), now), `${view}(${JSON.stringify(params)}) stretched x${stretch} check ${check}`);
    }
  }
  return { engine, seen };
}

module.exports.checkStretched = checkStretched;
