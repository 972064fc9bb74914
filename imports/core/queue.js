'use strict';
/**
 * A bounded, parallel async work queue for the server's hot paths: packet ingest and the
 * MongoDB write-behind. Knobs are modelled on Meteor 3.1.1's AsynchronousQueue
 * (packages/meteor/asynchronous_queue.js: batch size 128, 16 concurrent), plus what a
 * live feed needs: per-key ordering, a length bound with an overflow policy, and counters.
 *
 *   const queue = createQueue(async (packet) => store.add(packet), { maxConcurrency: 8 });
 *   queue.push(packet, packet.observerId);   // same key: strictly in push order, never in parallel
 *   await queue.flush();                     // everything pushed so far is done
 *
 * Ordering model. Every key has a "lane": at most one task of a key is ready or running at
 * a time, the rest wait in the lane in push order. Unkeyed tasks are always ready. In batch
 * mode a batch may carry several tasks of one key (in push order), and that key stays
 * blocked until the whole batch is finished, so a key is never in two in-flight batches.
 *
 * Pure CommonJS with no meteor/* imports: runs under plain Node and inside Meteor.
 */

const defaultNow = () => performance.now();

/** Every option, its default, and what it means. createQueue() accepts nothing else. */
const QUEUE_DEFAULTS = Object.freeze({
  // 'task': handler(task) once per task. 'batch': handler(tasks[]) with up to batchSize tasks.
  mode: 'task',
  // Most tasks handed to one batch-handler call (Meteor's AsynchronousQueue: 128).
  batchSize: 128,
  // Most handler calls in flight at once (Meteor's AsynchronousQueue: 16).
  maxConcurrency: 16,
  // Most tasks waiting to start (in-flight ones not counted) before `overflow` applies.
  maxLength: 100000,
  // What push() does when maxLength tasks are already waiting:
  //   'reject'      refuse the new task, push() returns false
  //   'throw'       refuse the new task, push() throws QueueOverflowError
  //   'drop-oldest' discard the oldest waiting task, accept the new one
  overflow: 'reject',
  // Batch mode only: a batch starts when full, or once its oldest ready task has waited this
  // long. 0 = start on the next setImmediate (tasks pushed in one tick share a batch).
  maxWaitMs: 0,
  // Extra attempts after a handler failure. The key stays blocked while retrying, so order holds.
  retries: 0,
  // Delay before the first retry; doubled for each further attempt.
  retryDelayMs: 100,
  // onError(err, taskOrBatch): called once the last attempt failed. Its own errors are ignored.
  onError: null,
  // onOverflow(task, reason): task is the refused or dropped one. Its own errors are ignored.
  onOverflow: null,
  // Wait and run time distributions summarise this many most recent samples (a ring buffer).
  sampleWindow: 1024,
  // Clock in milliseconds, for the wait/run time samples.
  now: defaultNow,
});

const OVERFLOW_POLICIES = ['reject', 'throw', 'drop-oldest'];
const NO_KEY = null;

const schedule = typeof setImmediate === 'function' ? setImmediate : (fn) => setTimeout(fn, 0);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Thrown by push() under overflow: 'throw'; names the limit that was hit. */
class QueueOverflowError extends Error {
  constructor(maxLength, depth) {
    super(`queue overflow: ${depth} tasks already waiting, maxLength is ${maxLength}`);
    this.name = 'QueueOverflowError';
    this.code = 'QUEUE_OVERFLOW';
    this.maxLength = maxLength;
    this.depth = depth;
  }
}

/** Doubly linked list; push() returns a node so an entry can leave from the middle in O(1). */
class LinkedList {
  constructor() {
    this.head = null;
    this.tail = null;
    this.length = 0;
  }

  push(value) {
    const node = { value, prev: this.tail, next: null };
    if (this.tail) this.tail.next = node;
    else this.head = node;
    this.tail = node;
    this.length++;
    return node;
  }

  remove(node) {
    if (node.prev) node.prev.next = node.next;
    else this.head = node.next;
    if (node.next) node.next.prev = node.prev;
    else this.tail = node.prev;
    node.prev = null;
    node.next = null;
    this.length--;
  }

  peek() {
    return this.head ? this.head.value : undefined;
  }
}

/**
 * Summary of the most recent `capacity` samples (a ring buffer, so memory is fixed).
 * `count` is every sample ever added; `window` is how many the other fields describe.
 */
class SampleWindow {
  constructor(capacity) {
    this.samples = new Float64Array(capacity);
    this.next = 0;
    this.size = 0;
    this.count = 0;
  }

  add(value) {
    this.samples[this.next] = value;
    this.next = (this.next + 1) % this.samples.length;
    if (this.size < this.samples.length) this.size++;
    this.count++;
  }

  summary() {
    if (this.size === 0) return { count: this.count, window: 0, mean: 0, p50: 0, p95: 0, p99: 0, max: 0 };
    const sorted = this.samples.slice(0, this.size).sort();
    let sum = 0;
    for (const value of sorted) sum += value;
    // Nearest-rank percentile: the smallest sample with at least p% of samples at or below it.
    const rank = (p) => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
    return {
      count: this.count,
      window: this.size,
      mean: sum / sorted.length,
      p50: rank(50),
      p95: rank(95),
      p99: rank(99),
      max: sorted[sorted.length - 1],
    };
  }
}

function resolveOptions(options = {}) {
  for (const name of Object.keys(options)) {
    if (!(name in QUEUE_DEFAULTS)) throw new TypeError(`createQueue: unknown option '${name}'`);
  }
  const opts = { ...QUEUE_DEFAULTS };
  for (const [name, value] of Object.entries(options)) if (value !== undefined) opts[name] = value;

  if (opts.mode !== 'task' && opts.mode !== 'batch') {
    throw new TypeError(`createQueue: mode must be 'task' or 'batch', got '${opts.mode}'`);
  }
  if (!OVERFLOW_POLICIES.includes(opts.overflow)) {
    throw new TypeError(`createQueue: overflow must be one of ${OVERFLOW_POLICIES.join(', ')}, got '${opts.overflow}'`);
  }
  for (const name of ['batchSize', 'maxConcurrency', 'maxLength', 'sampleWindow']) {
    if (!Number.isInteger(opts[name]) || opts[name] < 1) {
      throw new RangeError(`createQueue: ${name} must be an integer >= 1, got ${opts[name]}`);
    }
  }
  for (const name of ['maxWaitMs', 'retries', 'retryDelayMs']) {
    if (typeof opts[name] !== 'number' || !(opts[name] >= 0)) {
      throw new RangeError(`createQueue: ${name} must be a number >= 0, got ${opts[name]}`);
    }
  }
  for (const name of ['onError', 'onOverflow']) {
    if (opts[name] !== null && typeof opts[name] !== 'function') {
      throw new TypeError(`createQueue: ${name} must be a function or null`);
    }
  }
  if (typeof opts.now !== 'function') throw new TypeError('createQueue: now must be a function');
  return opts;
}

/** A user callback must never break the queue, whether it throws or returns a rejected promise. */
function callSafely(callback, ...args) {
  if (!callback) return;
  try {
    const result = callback(...args);
    if (result && typeof result.then === 'function') result.then(null, () => {});
  } catch {
    // ignored on purpose: see above
  }
}

class AsyncWorkQueue {
  /**
   * @param {Function} handler async (task) => any, or async (tasks[]) => any in batch mode
   * @param {object} [options] see QUEUE_DEFAULTS
   */
  constructor(handler, options) {
    if (typeof handler !== 'function') throw new TypeError('createQueue: handler must be a function');
    this._handler = handler;
    this._opts = resolveOptions(options);
    this._batchMode = this._opts.mode === 'batch';

    this._waiting = new LinkedList(); // every task not yet started, in push order (for drop-oldest)
    this._ready = new LinkedList(); // tasks allowed to start now, in the order they became ready
    this._unsettled = new LinkedList(); // waiting + running, in push order (for flush)
    this._lanes = new Map(); // key -> { pending: LinkedList }, only while the key has a ready/running task

    this._seq = 0;
    this._flushSeq = 0; // tasks with seq <= this skip maxWaitMs
    this._inFlight = 0;
    this._runningTasks = 0;
    this._paused = false;
    this._closed = false;
    this._dispatchScheduled = false;
    this._timer = null;
    this._flushWaiters = [];
    this._drainWaiters = [];

    this._counters = {
      pushed: 0,
      completed: 0,
      failed: 0,
      retried: 0,
      overflowed: 0,
      dropped: 0,
      rejectedClosed: 0,
      invocations: 0,
      maxInFlightSeen: 0,
    };
    this._lastError = null;
    this._lastOverflowReason = null;
    this._waitMs = new SampleWindow(this._opts.sampleWindow);
    this._runMs = new SampleWindow(this._opts.sampleWindow);
  }

  /**
   * Queue a task. Tasks sharing a `key` run one at a time in push order.
   * @returns {boolean} false if the task was refused (queue full under 'reject', or closed)
   */
  push(task, key) {
    if (this._closed) {
      this._counters.rejectedClosed++;
      return false;
    }
    const { maxLength, overflow } = this._opts;
    if (this._waiting.length >= maxLength) {
      if (overflow === 'drop-oldest') {
        this._dropOldest();
      } else {
        const depth = this._waiting.length;
        this._noteOverflow(task, `queue full: maxLength ${maxLength} reached, new task rejected`);
        if (overflow === 'throw') throw new QueueOverflowError(maxLength, depth);
        return false;
      }
    }

    const entry = {
      task,
      key: key === undefined ? NO_KEY : key,
      seq: ++this._seq,
      pushedAt: this._opts.now(),
      readyAt: 0,
      slot: null, // 'ready' | 'lane' | null (running or gone)
      slotNode: null,
      waitingNode: null,
      unsettledNode: null,
    };
    entry.waitingNode = this._waiting.push(entry);
    entry.unsettledNode = this._unsettled.push(entry);
    this._counters.pushed++;

    if (entry.key === NO_KEY) {
      this._makeReady(entry);
    } else {
      const lane = this._lanes.get(entry.key);
      if (lane) {
        // The key already has a ready or running task: wait behind it.
        entry.slot = 'lane';
        entry.slotNode = lane.pending.push(entry);
      } else {
        this._lanes.set(entry.key, { pending: new LinkedList() });
        this._makeReady(entry);
      }
    }
    this._scheduleDispatch();
    return true;
  }

  /** Tasks waiting to start (stats().depth without building the rest of stats()). */
  get depth() {
    return this._waiting.length;
  }

  /** Handler calls running now (stats().inFlight, as cheaply). */
  get inFlight() {
    return this._inFlight;
  }

  /** Resolves when nothing is waiting and nothing is running (waits for resume() if paused). */
  drain() {
    if (this._isIdle()) return Promise.resolve();
    return new Promise((resolve) => this._drainWaiters.push(resolve));
  }

  /**
   * Start everything waiting now (no waiting for a batch to fill or for maxWaitMs) and resolve
   * once every task pushed before this call has finished, failed or been dropped.
   * Concurrency, key order and pause() still apply.
   */
  flush() {
    const target = this._seq;
    this._flushSeq = target;
    const done = this._oldestUnsettledSeq() > target
      ? Promise.resolve()
      : new Promise((resolve) => this._flushWaiters.push({ seq: target, resolve }));
    this._dispatch();
    return done;
  }

  /** Stop starting handlers; running ones finish. push() still queues (up to maxLength). */
  pause() {
    this._paused = true;
  }

  resume() {
    if (!this._paused) return;
    this._paused = false;
    this._dispatch();
  }

  /** Refuse further pushes, run what is queued without waiting for batches to fill, then resolve. */
  close() {
    this._closed = true;
    this._dispatch();
    return this.drain();
  }

  stats() {
    return {
      depth: this._waiting.length,
      inFlight: this._inFlight,
      runningTasks: this._runningTasks,
      activeKeys: this._lanes.size,
      paused: this._paused,
      closed: this._closed,
      ...this._counters,
      lastError: this._lastError,
      lastOverflowReason: this._lastOverflowReason,
      waitMs: this._waitMs.summary(),
      runMs: this._runMs.summary(),
    };
  }

  // --- internals -------------------------------------------------------------------------

  _isIdle() {
    return this._waiting.length === 0 && this._inFlight === 0;
  }

  _oldestUnsettledSeq() {
    const oldest = this._unsettled.peek();
    return oldest ? oldest.seq : Infinity;
  }

  _makeReady(entry) {
    entry.slot = 'ready';
    entry.readyAt = this._opts.now();
    entry.slotNode = this._ready.push(entry);
  }

  /** Take a waiting entry out of its list(s); it is now running or dropped. */
  _unlinkWaiting(entry) {
    if (entry.slot === 'ready') this._ready.remove(entry.slotNode);
    else this._lanes.get(entry.key).pending.remove(entry.slotNode);
    this._waiting.remove(entry.waitingNode);
    entry.slot = null;
    entry.slotNode = null;
    entry.waitingNode = null;
  }

  _settle(entry) {
    this._unsettled.remove(entry.unsettledNode);
    entry.unsettledNode = null;
  }

  /** The key's ready/running task is gone: let its next task become ready, or retire the lane. */
  _releaseKey(key) {
    const lane = this._lanes.get(key);
    const next = lane.pending.peek();
    if (next) {
      lane.pending.remove(next.slotNode);
      this._makeReady(next);
    } else {
      this._lanes.delete(key);
    }
  }

  _dropOldest() {
    const entry = this._waiting.peek();
    const wasReady = entry.slot === 'ready';
    this._unlinkWaiting(entry);
    // A dropped ready task was its key's only ready one; without this the key would stall.
    if (wasReady && entry.key !== NO_KEY) this._releaseKey(entry.key);
    this._settle(entry);
    this._counters.dropped++;
    this._noteOverflow(entry.task, `queue full: maxLength ${this._opts.maxLength} reached, oldest waiting task dropped`);
    this._checkWaiters();
  }

  _noteOverflow(task, reason) {
    this._counters.overflowed++;
    this._lastOverflowReason = reason;
    callSafely(this._opts.onOverflow, task, reason);
  }

  _scheduleDispatch() {
    if (this._dispatchScheduled || this._paused) return;
    this._dispatchScheduled = true;
    schedule(() => {
      this._dispatchScheduled = false;
      this._dispatch();
    });
  }

  _dispatch() {
    if (this._paused) return;
    const { maxConcurrency } = this._opts;
    while (this._inFlight < maxConcurrency && this._ready.length > 0) {
      if (this._batchMode && !this._batchMayStart()) {
        this._armTimer();
        return;
      }
      this._run(this._batchMode ? this._takeBatch() : [this._take(this._ready.peek())]);
    }
    // Nothing left to time: don't keep the process alive for a stale maxWaitMs timer.
    if (this._ready.length === 0 && this._timer) {
      clearTimeout(this._timer);
      this._timer = null;
    }
  }

  _batchMayStart() {
    const { maxWaitMs, batchSize } = this._opts;
    if (maxWaitMs === 0 || this._closed || this._ready.length >= batchSize) return true;
    // flush(): anything pushed before it must start now, even in a part-filled batch.
    if (this._waiting.peek().seq <= this._flushSeq) return true;
    return this._opts.now() - this._ready.peek().readyAt >= maxWaitMs;
  }

  _armTimer() {
    // One timer for the oldest ready task; when it fires, _dispatch() re-checks and re-arms.
    if (this._timer) return;
    const due = this._ready.peek().readyAt + this._opts.maxWaitMs - this._opts.now();
    this._timer = setTimeout(() => {
      this._timer = null;
      this._dispatch();
    }, Math.max(0, due));
  }

  _take(entry) {
    this._unlinkWaiting(entry);
    this._waitMs.add(this._opts.now() - entry.pushedAt);
    return entry;
  }

  _takeBatch() {
    const { batchSize } = this._opts;
    const batch = [];
    while (batch.length < batchSize && this._ready.length > 0) {
      const head = this._take(this._ready.peek());
      batch.push(head);
      if (head.key === NO_KEY) continue;
      // The key's later tasks may ride along, in push order; the lane stays busy until the
      // whole batch is done, so no other batch can hold this key meanwhile.
      const lane = this._lanes.get(head.key);
      while (batch.length < batchSize && lane.pending.length > 0) batch.push(this._take(lane.pending.peek()));
    }
    return batch;
  }

  async _run(entries) {
    const { retries, retryDelayMs, now } = this._opts;
    this._inFlight++;
    this._runningTasks += entries.length;
    this._counters.invocations++;
    if (this._inFlight > this._counters.maxInFlightSeen) this._counters.maxInFlightSeen = this._inFlight;

    const input = this._batchMode ? entries.map((entry) => entry.task) : entries[0].task;
    const startedAt = now();
    let failure = null;
    for (let attempt = 0; ; attempt++) {
      try {
        await this._handler(input);
        failure = null;
        break;
      } catch (err) {
        failure = err || new Error('queue handler rejected without a reason');
        if (attempt >= retries) break;
        this._counters.retried++;
        await sleep(retryDelayMs * 2 ** attempt);
      }
    }
    this._runMs.add(now() - startedAt);

    this._inFlight--;
    this._runningTasks -= entries.length;
    if (failure) {
      this._counters.failed += entries.length;
      this._lastError = failure;
      callSafely(this._opts.onError, failure, input);
    } else {
      this._counters.completed += entries.length;
    }

    const keys = new Set();
    for (const entry of entries) {
      if (entry.key !== NO_KEY) keys.add(entry.key);
      this._settle(entry);
    }
    for (const key of keys) this._releaseKey(key);

    this._dispatch();
    this._checkWaiters();
  }

  _checkWaiters() {
    const oldest = this._oldestUnsettledSeq();
    while (this._flushWaiters.length > 0 && this._flushWaiters[0].seq < oldest) {
      this._flushWaiters.shift().resolve();
    }
    if (this._drainWaiters.length > 0 && this._isIdle()) {
      const waiters = this._drainWaiters;
      this._drainWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }
}

/** createQueue(handler, options) — same as new AsyncWorkQueue(handler, options). */
function createQueue(handler, options) {
  return new AsyncWorkQueue(handler, options);
}

module.exports = { createQueue, AsyncWorkQueue, QueueOverflowError, SampleWindow, QUEUE_DEFAULTS };
