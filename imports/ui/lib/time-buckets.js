'use strict';
/**
 * Time buckets for charts. The time views (rf, hashSizes, node, channelAnalytics) count per
 * minute, 5 or 15 minutes or hour and, asked for `bucket: 'auto'`, pick the finest size that
 * covers their data (a server 20 minutes old gets minutes, one a week old hours); each snapshot
 * says which size it used in `bucket` ({ size, ms, requested, from }). Charts draw each bucket as
 * a step over its span, clipped to the time there is data for, and label it by that size.
 */
const { formatClock } = require('./format');

const HOUR_MS = 3600000;
const MINUTE_MS = 60000;

const BUCKET_WORDS = { minute: 'minute', '5min': '5 minutes', '15min': '15 minutes', hour: 'hour' };

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

/**
 * The start of the bucket still filling at `until` (x <= until < x + bucketMs) among `xs`, or
 * null when every bucket is complete (or `until` is unknown). Its count is a partial one ("so
 * far"), so charts must not draw it as a full bucket: a live minute 3 s old reads as a collapse.
 */
function partialBucketStart(xs, bucketMs, until) {
  let partial = null;
  for (const x of xs) if (isPartialBucket(x, bucketMs, until) && (partial === null || x > partial)) partial = x;
  return partial;
}

/** Whether the bucket starting at `x` is still filling at `until`. */
function isPartialBucket(x, bucketMs, until) {
  return Number.isFinite(x) && Number.isFinite(until) && Number.isFinite(bucketMs) && bucketMs > 0 && x <= until && until < x + bucketMs;
}

/**
 * A bucket's span for its tooltip: "14:05:00–14:06:00"; the bucket still filling at `until` reads
 * "14:05:00–14:05:03 so far (bucket ends 14:06:00)", so its count is never taken for a full one.
 */
function bucketSpanText(x, bucketMs, until) {
  const end = formatClock(x + bucketMs);
  if (!isPartialBucket(x, bucketMs, until)) return `${formatClock(x)}–${end}`;
  return `${formatClock(x)}–${formatClock(until)} so far (bucket ends ${end})`;
}

/** A snapshot's bucket length in ms (hours when it says nothing: an older server). */
function bucketMsOf(bucket) {
  return bucket && Number.isFinite(bucket.ms) && bucket.ms > 0 ? bucket.ms : HOUR_MS;
}

/** "per minute", "per 5 minutes", "per hour" for a snapshot's `bucket`. */
function perBucketText(bucket) {
  const size = bucket && BUCKET_WORDS[bucket.size] ? bucket.size : 'hour';
  return `per ${BUCKET_WORDS[size]}`;
}

/** "hourly", "per-minute" … for titles: "Hourly activity", "Per-minute activity". */
function bucketAdjective(bucket) {
  const size = bucket && BUCKET_WORDS[bucket.size] ? bucket.size : 'hour';
  return size === 'hour' ? 'hourly' : `per-${BUCKET_WORDS[size].replace(/s$/, '').replace(' ', '-')}`;
}

function pad(value) {
  return String(value).padStart(2, '0');
}

/** A bucket's start as a column label: local "14:05" (hours read "14:00"), with the day when `withDay`. */
function bucketLabel(time, bucketMs, withDay = false) {
  if (!Number.isFinite(time)) return '—';
  const date = new Date(time);
  const clock = `${pad(date.getHours())}:${pad(bucketMs >= HOUR_MS ? 0 : date.getMinutes())}`;
  return withDay ? `${date.toLocaleString('en-US', { month: 'short' })} ${date.getDate()} ${clock}` : clock;
}

/** Column labels of the channel timeline (`timeline.from`, `timeline.columns`, `timeline.bucket`). */
function timelineLabels(timeline) {
  if (!timeline) return [];
  const ms = bucketMsOf(timeline.bucket);
  const columns = Number.isFinite(timeline.columns) ? timeline.columns : timeline.hours;
  return Array.from({ length: Math.max(0, columns || 0) }, (_, i) => bucketLabel(timeline.from + i * ms, ms));
}

/**
 * One point per bucket from the first bucket with data (less `lead` buckets, not before
 * `windowStart`) to the bucket holding `now`: buckets the view leaves out (no packets) are 0,
 * so bars sit at their true time. Rows are [{ time, [key] }].
 */
function fillBuckets(rows, { bucketMs, windowStart, now, key = 'packets', lead = 6 }) {
  const byTime = new Map(rows.map((row) => [row.time, row[key]]));
  const last = Math.floor(now / bucketMs) * bucketMs;
  // No data: the bucket holding now alone (the chart says there is nothing).
  const first = rows.length
    ? Math.max(Math.ceil(windowStart / bucketMs) * bucketMs, Math.min(...rows.map((row) => row.time)) - lead * bucketMs)
    : last;
  const points = [];
  for (let time = first; time <= last && points.length < 5000; time += bucketMs) points.push({ x: time, y: byTime.get(time) || 0 });
  return points;
}

module.exports = { timelineHours, bucketDomain, partialBucketStart, isPartialBucket, bucketSpanText, bucketMsOf, perBucketText, bucketAdjective, bucketLabel, timelineLabels, fillBuckets, HOUR_MS, MINUTE_MS };
