'use strict';
/**
 * Time windows for charts on a young server. The views count per clock hour; a server that has
 * run for 20 minutes has one such bucket, which a line chart draws as one floating dot and a
 * 24-hour timeline as one lit column of 24. So charts draw each bucket as a step over its span,
 * clipped to the time there is data for, with minute labels when that span is short; and the
 * channel timeline asks for as many hours as the store holds.
 */
const HOUR_MS = 3600000;

/** Hours the channel timeline should ask for: those the store spans (at least 1, at most `max`). */
function timelineHours(oldest, now, max = 24) {
  if (!Number.isFinite(oldest) || !Number.isFinite(now) || now <= oldest) return max;
  const firstHour = Math.floor(oldest / HOUR_MS);
  const lastHour = Math.floor(now / HOUR_MS);
  return Math.max(1, Math.min(max, lastHour - firstHour + 1));
}

/**
 * The x range to draw bucketed points over: from the first bucket (or `from`, when data starts
 * later inside it) to the end of the last bucket (or `until`, when that bucket is still filling).
 */
function bucketDomain(xs, bucketMs, from, until) {
  const finite = xs.filter(Number.isFinite);
  if (finite.length === 0) return null;
  let start = Math.min(...finite);
  let end = Math.max(...finite) + bucketMs;
  if (Number.isFinite(from) && from > start && from < end) start = from;
  if (Number.isFinite(until) && until < end && until > start) end = until;
  return [start, end];
}

module.exports = { timelineHours, bucketDomain, HOUR_MS };
