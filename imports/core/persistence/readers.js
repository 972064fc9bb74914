'use strict';
/**
 * Reading a reload's documents from MongoDB ahead of the replay: one server batch ahead
 * (BatchReader), and optionally one time window ahead (WindowedReader, replayWindows).
 */

/**
 * Reads a driver cursor one server batch at a time, with the next batch already requested
 * while the caller works on the current one (the server and the replay run in parallel).
 */
class BatchReader {
  constructor(cursor) {
    this.cursor = cursor;
    this.batch = [];
    this.index = 0;
    this.done = false;
    this.pending = this.fetch();
  }

  async fetch() {
    if (!(await this.cursor.hasNext())) return null;
    return this.cursor.readBufferedDocuments();
  }

  /** The rest of the current batch, or the next one; null at the end. */
  async nextBatch() {
    if (this.index < this.batch.length) {
      const rest = this.index === 0 ? this.batch : this.batch.slice(this.index);
      this.batch = [];
      this.index = 0;
      return rest;
    }
    if (this.done) return null;
    const batch = await this.pending;
    if (!batch) {
      this.done = true;
      this.pending = null;
      return null;
    }
    this.pending = this.fetch();
    return batch;
  }

  /** The next document without consuming it; null at the end. */
  async peek() {
    while (this.index >= this.batch.length) {
      const batch = await this.nextBatch();
      if (!batch) return null;
      this.batch = batch;
      this.index = 0;
    }
    return this.batch[this.index];
  }

  /** Consume the document peek() returned. */
  take() {
    this.index++;
  }

  async close() {
    // Let an outstanding getMore settle before closing the cursor under it.
    if (this.pending) await this.pending.catch(() => null);
    await this.cursor.close();
  }
}

/**
 * Where the replay's time windows end (loadInto's `windowed: true`), as fractions of the stored
 * time span. The first window is small so the replay starts while the server still gathers the
 * rest; the next window is requested while the current one replays. Off by default: against the
 * tests' in-memory server (no range index: every window is a full scan) one sorted query was
 * faster (200k transmissions: 24.6 s against 29.2 s, waiting 10.6 s against 16.2 s).
 */
const REPLAY_WINDOW_FRACTIONS = Object.freeze([1 / 32, 1 / 8, 1 / 4, 1 / 2, 3 / 4]);

/**
 * Window boundaries (milliseconds) between `from` and `to`: the first window is open below and
 * the last above, so a wrong estimate of the span costs speed, never documents.
 */
function replayWindows(from, to) {
  if (!Number.isFinite(from) || !Number.isFinite(to) || to <= from) return [];
  const bounds = REPLAY_WINDOW_FRACTIONS.map((fraction) => Math.floor(from + (to - from) * fraction));
  return bounds.filter((bound, index) => bound > from && (index === 0 || bound > bounds[index - 1]));
}

/**
 * BatchReader's interface over several queries, one per time window, in order: the same sort
 * within each, and windows never overlap, so the concatenation is in sort order. `open(filter)`
 * returns a driver cursor for one window's extra filter on `time` (null: no window, everything).
 */
class WindowedReader {
  constructor(open, bounds) {
    this.open = open;
    this.filters = [];
    for (let i = 0; i <= bounds.length; i++) {
      const time = {};
      if (i > 0) time.$gte = bounds[i - 1];
      if (i < bounds.length) time.$lt = bounds[i];
      this.filters.push(bounds.length > 0 ? time : null);
    }
    this.next = 0;
    this.current = this.openNext();
    this.ahead = this.openNext();
  }

  openNext() {
    return this.next < this.filters.length ? new BatchReader(this.open(this.filters[this.next++])) : null;
  }

  async nextBatch() {
    while (this.current) {
      const batch = await this.current.nextBatch();
      if (batch) return batch;
      await this.moveOn();
    }
    return null;
  }

  async peek() {
    while (this.current) {
      const doc = await this.current.peek();
      if (doc) return doc;
      await this.moveOn();
    }
    return null;
  }

  /** The current window is read out: close it, read the one ahead, open the next. */
  async moveOn() {
    await this.current.close();
    this.current = this.ahead;
    this.ahead = this.openNext();
  }

  take() {
    this.current.take();
  }

  async close() {
    await Promise.all([this.current, this.ahead].filter(Boolean).map((reader) => reader.close()));
    this.current = null;
    this.ahead = null;
  }
}

module.exports = { BatchReader, WindowedReader, replayWindows, REPLAY_WINDOW_FRACTIONS };
