'use strict';
/**
 * Counts over time at several bucket sizes, kept incrementally, for the views that chart time
 * (rf, hashSizes, node, channelAnalytics): a young server's charts get minute buckets, an old
 * one's hours, and every bucket a snapshot returns is exact.
 *
 * Levels (DEFAULT_LEVELS): minute rows for the newest 3 hours, 5-minute rows for the newest
 * 24 hours, hour rows for everything stored. A finite level keeps rows from its `from` on: the
 * start of the bucket `keepMs` before the newest time counted, which only moves forward (store
 * time is monotone). A packet older than a level's `from` is not counted there, and is not
 * uncounted when it leaves (apply and evict test the same `from`, which only grows); rows that
 * fall behind `from` are dropped and their memory refunded, their packets staying counted in
 * the coarser levels ("older minutes fold into hours"). So every row at or after `from` equals a
 * recount of the stored packets in its bucket.
 *
 * 15-minute buckets are three 5-minute rows summed at snapshot time.
 *
 * The `bucket` view parameter (bucketParam) is 'auto' (default), 'minute', '5min', '15min' or
 * 'hour'. 'auto' picks the finest size that covers the data's span in at most `maxPoints`
 * buckets and whose level still holds the oldest data (chooseBucket); with 180 points that is
 * minutes under 3 hours, 5 minutes under 15 hours, 15 minutes under a day, hours beyond. A
 * snapshot says which size it used (describeBucket).
 */
const { BYTES, entryBytes } = require('../memory-account');

const MINUTE_MS = 60 * 1000;
const HOUR_MS = 60 * MINUTE_MS;
const BUCKET_MS = Object.freeze({ minute: MINUTE_MS, '5min': 5 * MINUTE_MS, '15min': 15 * MINUTE_MS, hour: HOUR_MS });
const BUCKET_NAMES = Object.freeze(['minute', '5min', '15min', 'hour']); // finest first
// 15-minute buckets are summed from this level's rows.
const DERIVED_FROM = Object.freeze({ '15min': '5min' });

const DEFAULT_LEVELS = Object.freeze([
  { name: 'minute', keepMs: 3 * HOUR_MS },
  { name: '5min', keepMs: 24 * HOUR_MS },
  { name: 'hour', keepMs: Infinity },
]);

/** The view parameter: which bucket size a time series uses. */
const bucketParam = Object.freeze({ type: 'enum', values: ['auto', ...BUCKET_NAMES], default: 'auto' });

/** How many buckets 'auto' lets a chart have. */
const AUTO_MAX_POINTS = 180;

function bucketStart(time, ms) {
  return Math.floor(time / ms) * ms;
}

/**
 * Is `time` in the `ms` bucket starting at `start` (a cached bucket: NaN for none)? Tested by
 * range rather than computing the time's start and comparing, which made a heap number per call
 * (times are no small integers), for the answer a cache nearly always has. The range stops a
 * millisecond short of the bucket's end, where the caller computes the start as before: a margin
 * so that a fractional time is never put in a bucket other than bucketStart's (an update and its
 * undoing must agree). Also the node tracker's day and hour buckets.
 */
function inCachedBucket(time, start, ms) {
  return time >= start && time < start + ms - 1;
}

/** The start of `level`'s bucket holding `time`: its cached newest start when it is that one (nearly every packet). */
function levelStart(level, time) {
  const cached = level.cachedStart;
  return inCachedBucket(time, cached, level.ms) ? cached : bucketStart(time, level.ms);
}

/**
 * `width` zeros in an array of unboxed doubles, for rows to copy: a row made as integers turned
 * into doubles at its first fractional sum (an SNR), and that change of kind allocates its
 * storage again; a copy of this one is born a double array (one allocation per row).
 */
function zeroRowOf(width) {
  const row = Array.from({ length: width }, () => 0.5);
  row.fill(0);
  return row;
}

// A row: a plain array of `width` numbers (cheaper than a typed array's header).
function rowBytes(width) {
  return BYTES.object + BYTES.field + width * BYTES.arraySlot;
}

class Level {
  constructor(name, keepMs) {
    this.name = name;
    this.ms = BUCKET_MS[name];
    this.keepMs = keepMs;
    this.from = -Infinity; // oldest start kept exactly
    this.rows = new Map(); // start -> row, or (keyed) start -> Map key -> row
    // The newest bucket's entry of `rows` (nearly every packet lands there): spares a Map
    // lookup keyed by a start that is no small integer. Reset whenever that entry is deleted.
    this.cachedStart = NaN;
    this.cachedEntry = null;
  }
}

class TimeCounts {
  /**
   * @param {object} options
   * @param {number} options.width        numbers per row
   * @param {number[]} [options.countFields]  the fields that are counts: a row is dropped when
   *   all of them are zero (other fields are sums that return to zero with them); default all
   * @param {boolean} [options.keyed]     rows per (bucket, key), e.g. per node key or channel
   * @param {object} [options.part]       memory-account part charged for rows
   * @param {Array} [options.levels]      [{ name, keepMs }], default DEFAULT_LEVELS
   */
  constructor({ width, countFields = null, keyed = false, part = null, levels = DEFAULT_LEVELS }) {
    this.width = width;
    this.countFields = countFields || Array.from({ length: width }, (_, i) => i);
    this.keyed = keyed;
    this.part = part;
    this.levels = levels.map(({ name, keepMs }) => new Level(name, keepMs));
    this.byName = new Map(this.levels.map((level) => [level.name, level]));
    this.newest = -Infinity;
    // Below this time no finite level's window moves (see advance): most packets skip it.
    this.nextAdvance = -Infinity;
    this.rowBytes = rowBytes(width);
    this.zeroRow = zeroRowOf(width);
  }

  charge(bytes) {
    if (this.part) this.part.add(bytes);
  }

  /**
   * Add `delta` to `field` of the bucket holding `time` (and `key`, when keyed) at every level
   * that keeps it. A positive delta at a newer time moves the finite levels' `from` forward.
   */
  add(time, key, field, delta) {
    if (delta > 0 && time > this.newest) this.advance(time);
    for (let i = 0; i < this.levels.length; i++) {
      const level = this.levels[i];
      const start = levelStart(level, time);
      if (start < level.from) continue;
      this.addAt(level, start, key, field, delta);
    }
  }

  /**
   * Add `sign` × `values` (one number per field) to the bucket holding `time` (and `key`) at
   * every level that keeps it: one lookup per level for several fields. Values that are all
   * zero change nothing.
   */
  addRow(time, key, values, sign) {
    let any = false;
    for (let i = 0; i < values.length; i++) if (values[i] !== 0) any = true;
    if (!any) return;
    if (sign > 0 && time > this.newest) this.advance(time);
    for (let l = 0; l < this.levels.length; l++) {
      const level = this.levels[l];
      const start = levelStart(level, time);
      if (start < level.from) continue;
      const row = this.rowAt(level, start, key);
      for (let i = 0; i < values.length; i++) row[i] += sign * values[i];
      if (sign < 0) this.dropIfEmpty(level, start, key, row);
    }
  }

  /** The row of (start, key), created (and charged) when missing. */
  rowAt(level, start, key) {
    if (!this.keyed) {
      if (start === level.cachedStart) return level.cachedEntry;
      let row = level.rows.get(start);
      if (!row) {
        row = this.zeroRow.slice();
        level.rows.set(start, row);
        this.charge(this.rowBytes + entryBytes(start));
      }
      level.cachedStart = start;
      level.cachedEntry = row;
      return row;
    }
    let holder;
    if (start === level.cachedStart) holder = level.cachedEntry;
    else {
      holder = level.rows.get(start);
      if (!holder) {
        holder = new Map();
        level.rows.set(start, holder);
        this.charge(BYTES.map + entryBytes(start));
      }
      level.cachedStart = start;
      level.cachedEntry = holder;
    }
    let row = holder.get(key);
    if (!row) {
      row = this.zeroRow.slice();
      holder.set(key, row);
      this.charge(this.rowBytes + entryBytes(key));
    }
    return row;
  }

  /** `start`'s entry of level.rows is going: forget it as the cached newest one. */
  uncache(level, start) {
    if (start === level.cachedStart) {
      level.cachedStart = NaN;
      level.cachedEntry = null;
    }
  }

  dropIfEmpty(level, start, key, row) {
    if (!this.isEmpty(row)) return;
    const holder = this.keyed ? level.rows.get(start) : level.rows;
    const rowKey = this.keyed ? key : start;
    holder.delete(rowKey);
    this.charge(-(this.rowBytes + entryBytes(rowKey)));
    if (!this.keyed) this.uncache(level, start);
    if (this.keyed && holder.size === 0) {
      this.uncache(level, start);
      level.rows.delete(start);
      this.charge(-(BYTES.map + entryBytes(start)));
    }
  }

  addAt(level, start, key, field, delta) {
    // A zero delta neither creates a row nor changes one.
    if (delta === 0) return;
    const row = this.rowAt(level, start, key);
    row[field] += delta;
    if (delta < 0) this.dropIfEmpty(level, start, key, row);
  }

  isEmpty(row) {
    for (let i = 0; i < this.countFields.length; i++) if (row[this.countFields[i]] !== 0) return false;
    return true;
  }

  /** A newer time: each finite level drops the rows that fall out of its window. */
  advance(time) {
    this.newest = time;
    // A level's `from` moves once time - keepMs reaches its next bucket: until the earliest such
    // time (less a millisecond, as in inCachedBucket) nothing below can change.
    if (time < this.nextAdvance) return;
    let next = Infinity;
    for (const level of this.levels) {
      if (level.keepMs === Infinity) continue;
      next = Math.min(next, this.advanceLevel(level, time) + level.ms + level.keepMs - 1);
    }
    this.nextAdvance = next;
  }

  /** Move one finite level's window to end at `time`; returns its `from`. */
  advanceLevel(level, time) {
    const from = bucketStart(time - level.keepMs, level.ms);
    if (from <= level.from) return level.from;
    const previous = level.from;
    level.from = from;
    // Walk the dropped starts one by one when few, else every row (a jump after a gap).
    if (Number.isFinite(previous) && (from - previous) / level.ms <= level.rows.size) {
      for (let start = previous; start < from; start += level.ms) this.dropStart(level, start);
    } else {
      for (const start of Array.from(level.rows.keys())) if (start < from) this.dropStart(level, start);
    }
    return from;
  }

  dropStart(level, start) {
    const holder = level.rows.get(start);
    if (!holder) return;
    this.uncache(level, start);
    level.rows.delete(start);
    if (this.keyed) {
      let bytes = BYTES.map + entryBytes(start);
      for (const key of holder.keys()) bytes += this.rowBytes + entryBytes(key);
      this.charge(-bytes);
    } else {
      this.charge(-(this.rowBytes + entryBytes(start)));
    }
  }

  /** Does this instance hold `bucket` (directly or summed from a finer level)? */
  has(bucket) {
    return this.byName.has(bucket) || (DERIVED_FROM[bucket] !== undefined && this.byName.has(DERIVED_FROM[bucket]));
  }

  /**
   * The oldest start `bucket` is exact from (-Infinity: everything stored), for data whose
   * newest time is `newest` (the store's last time: a snapshot then depends on the store alone,
   * not on the order its packets reached this instance; null when the store is empty).
   */
  fromOf(bucket, newest = this.newest) {
    const level = this.byName.get(bucket) || this.byName.get(DERIVED_FROM[bucket]);
    // No level, no limit, or no data (newest null: every row is gone with the packets).
    if (!level || level.keepMs === Infinity || newest === null) return -Infinity;
    let from = level.from;
    if (Number.isFinite(newest)) from = Math.max(from, bucketStart(newest - level.keepMs, level.ms));
    if (from === -Infinity) return -Infinity;
    // A 15-minute bucket is exact when its first 5-minute row is.
    return Math.ceil(from / BUCKET_MS[bucket]) * BUCKET_MS[bucket];
  }

  /**
   * Rows of `bucket` ascending by start, summed over `keys` (keyed; null = unkeyed), from
   * max(`from`, fromOf(bucket, newest)) to `to` inclusive (starts): [{ start, row }], empty ones left out.
   */
  series(bucket, { keys = null, from = -Infinity, to = Infinity, newest = this.newest } = {}) {
    const ms = BUCKET_MS[bucket];
    const level = this.byName.get(bucket) || this.byName.get(DERIVED_FROM[bucket]);
    if (!level) throw new Error(`time buckets: no ${bucket} level`);
    const first = Math.max(from, this.fromOf(bucket, newest));
    const sums = new Map();
    for (const [start, holder] of level.rows) {
      const target = bucketStart(start, ms);
      if (target < first || target > to) continue;
      if (this.keyed) {
        for (const key of keys) {
          const row = holder.get(key);
          if (row) addRow(sums, target, row, this.width);
        }
      } else {
        addRow(sums, target, holder, this.width);
      }
    }
    return Array.from(sums.keys()).sort((a, b) => a - b).map((start) => ({ start, row: sums.get(start) }));
  }

  /**
   * Keyed: one field of `count` consecutive buckets of `bucket` from `from` (a bucket start),
   * per key, in one pass over the level: Map key -> Array(count). Buckets before
   * fromOf(bucket, newest) stay 0 (the caller starts at or after it).
   */
  columns(bucket, { from, count, field = 0, newest = this.newest }) {
    const ms = BUCKET_MS[bucket];
    const level = this.byName.get(bucket) || this.byName.get(DERIVED_FROM[bucket]);
    const first = Math.max(from, this.fromOf(bucket, newest));
    const out = new Map();
    if (count <= 0) return out;
    for (const [start, holder] of level.rows) {
      const column = (bucketStart(start, ms) - from) / ms;
      if (start < first || column >= count) continue;
      for (const [key, row] of holder) {
        let counts = out.get(key);
        if (!counts) {
          counts = new Array(count).fill(0);
          out.set(key, counts);
        }
        counts[column] += row[field];
      }
    }
    return out;
  }

  /** How many (bucket, key) rows each level holds, for tests and benches. */
  rowCounts() {
    const counts = {};
    for (const level of this.levels) {
      let rows = 0;
      if (this.keyed) for (const holder of level.rows.values()) rows += holder.size;
      else rows = level.rows.size;
      counts[level.name] = rows;
    }
    return counts;
  }
}

function addRow(sums, start, row, width) {
  let sum = sums.get(start);
  if (!sum) {
    sum = new Array(width).fill(0);
    sums.set(start, sum);
  }
  for (let i = 0; i < width; i++) sum[i] += row[i];
}

/**
 * The bucket size for `requested` over data from `oldest` to `newest` (ms). 'auto': the finest
 * size with at most `maxPoints` buckets over the span whose rows reach back to `oldest`
 * (`counts`, a TimeCounts, says which sizes it holds and since when, for data whose newest time
 * is `lastTime`, by default `newest`); hours otherwise. Hours
 * are always available (a view without an hour level reads them elsewhere).
 */
function chooseBucket(requested, { oldest, newest, maxPoints = AUTO_MAX_POINTS, counts = null, lastTime = newest }) {
  if (requested !== 'auto') return requested;
  if (!Number.isFinite(oldest) || !Number.isFinite(newest) || newest < oldest) return 'minute';
  for (const bucket of BUCKET_NAMES) {
    const ms = BUCKET_MS[bucket];
    if (bucket === 'hour') return bucket;
    if (counts && !counts.has(bucket)) continue;
    const points = bucketStart(newest, ms) / ms - bucketStart(oldest, ms) / ms + 1;
    if (points > maxPoints) continue;
    if (counts && counts.fromOf(bucket, lastTime) > oldest) continue;
    return bucket;
  }
  return 'hour';
}

/** The newest time the buckets' windows count back from: the store's last time, null when it holds nothing. */
function newestTime(store) {
  return store.fifo.length ? store.lastTime : null;
}

/** What a snapshot says about its buckets: { size, ms, requested, from } (from: exact since). */
function describeBucket(size, requested, from) {
  return { size, ms: BUCKET_MS[size], requested, from: Number.isFinite(from) ? from : null };
}

module.exports = {
  TimeCounts, chooseBucket, describeBucket, newestTime, bucketStart, inCachedBucket, bucketParam, BUCKET_MS, BUCKET_NAMES, DEFAULT_LEVELS, AUTO_MAX_POINTS, MINUTE_MS, HOUR_MS,
};
