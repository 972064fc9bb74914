'use strict';
/**
 * The ingest pipeline: every packet source (MQTT, HTTP, simulator) hands observer reports to
 * one of these, and it feeds them through the parallel queue into the engine.
 *
 *   const pipeline = createPipeline({ engine, persistence, onIngest });
 *   pipeline.submitMessage(topic, payload, 'mqtt:broker1');  // MQTT-shaped input
 *   pipeline.ingestMessageNow(topic, payload, 'mqtt:b1');     // the same, ingested at once when nothing waits
 *   pipeline.submitReport(report, 'replay');                   // an already-built store report
 *   await pipeline.submitBatch(bodies, 'http');                // HTTP items, waits for outcomes
 *   await pipeline.drain();
 *
 * Reports are keyed by observer id in the queue, so one observer's reports reach the store in
 * the order they were submitted even when batches run concurrently.
 *
 * Nothing here throws at the caller: bad input (parse, decode or store error, full queue) is
 * counted by reason, remembered in a small ring of recent drops and handed to
 * `persistence.recordDropped`; the pipeline goes on with the next report.
 */
const { createQueue } = require('../core/queue');
const { parseObserverMessage, toReport } = require('../core/observer-message');
const { resolveLog } = require('../core/log');

/** Every option of createPipeline() besides engine/persistence/onIngest/log, with its default. */
const PIPELINE_DEFAULTS = Object.freeze({
  // Queue knobs (imports/core/queue.js); mode is always 'batch' and onOverflow is ours.
  queue: Object.freeze({ batchSize: 256, maxConcurrency: 4, maxLength: 100000, overflow: 'reject' }),
  // How many recent drops stats() keeps (a ring: memory is fixed).
  droppedRingSize: 100,
  // Raw input kept per drop is cut to this many characters.
  droppedRawChars: 200,
  // Clock in milliseconds (tests pass their own).
  now: Date.now,
});

/** Reasons the pipeline itself adds to those of observer-message.js, decode.js and store.js. */
const PIPELINE_ERRORS = {
  queue_full: 'ingest queue full',
  pipeline_closed: 'pipeline is closed',
  ingest_error: 'engine threw while ingesting',
};

const RATE_WINDOWS_SECONDS = [10, 60];

/** Per-second counts over the last minute, for "reports per second over the last N s". */
class RateCounter {
  constructor(seconds, now) {
    this.counts = new Float64Array(seconds);
    this.seconds = new Float64Array(seconds).fill(-1); // which second each slot holds
    this.now = now;
    this.startedAt = now();
  }

  add(count = 1) {
    const second = Math.floor(this.now() / 1000);
    const slot = second % this.counts.length;
    if (this.seconds[slot] !== second) {
      this.seconds[slot] = second;
      this.counts[slot] = 0;
    }
    this.counts[slot] += count;
  }

  /** Mean per second over the last `window` seconds (or since start, if that is shorter). */
  rate(window) {
    const now = this.now();
    const second = Math.floor(now / 1000);
    let total = 0;
    for (let i = 0; i < this.counts.length; i++) {
      if (this.seconds[i] > second - window && this.seconds[i] <= second) total += this.counts[i];
    }
    const elapsed = Math.min(window, Math.max(1, (now - this.startedAt) / 1000));
    return total / elapsed;
  }
}

function truncate(value, max) {
  if (value === undefined || value === null) return null;
  let text;
  if (typeof value === 'string') text = value;
  else if (Buffer.isBuffer(value)) text = value.subarray(0, max * 4).toString('utf8');
  else {
    try {
      text = JSON.stringify(value);
    } catch {
      text = String(value);
    }
  }
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * Call a user callback; its exceptions and rejections must never reach the pipeline.
 * Returns null, or a promise that always resolves, when the callback returned one.
 */
function callSafely(log, what, onFailure, callback, ...args) {
  const fail = (err) => {
    if (onFailure) onFailure(err);
    log.warn(`ingest: ${what} failed: ${err && err.message}`);
  };
  try {
    const result = callback(...args);
    if (result && typeof result.then === 'function') return result.then(() => {}, fail);
  } catch (err) {
    fail(err);
  }
  return null;
}

/**
 * @param {object} options
 * @param {object} options.engine          anything with ingest(report) -> { tx, observation, isNew } | { error }
 * @param {object} [options.persistence]   { recordIngest(result, report), recordDropped(report, error) }; may return promises
 * @param {object} [options.queue]         queue options (see PIPELINE_DEFAULTS.queue and imports/core/queue.js)
 * @param {Function} [options.onIngest]    (result, report, source) after each accepted report (fan-out)
 * @param {object} [options.log]           { info, warn, error }; silent by default
 */
function createPipeline(options = {}) {
  const { engine, persistence = null, onIngest = null } = options;
  if (!engine || typeof engine.ingest !== 'function') throw new TypeError('createPipeline: engine with ingest(report) is required');
  const log = resolveLog(options.log);
  const now = options.now || PIPELINE_DEFAULTS.now;
  const ringSize = options.droppedRingSize || PIPELINE_DEFAULTS.droppedRingSize;
  const rawChars = options.droppedRawChars || PIPELINE_DEFAULTS.droppedRawChars;

  const counters = { submitted: 0, queued: 0, accepted: 0, duplicates: 0, rejected: 0, persistenceErrors: 0 };
  const rejectedByReason = Object.create(null);
  const dropped = new Array(ringSize); // ring of the most recent drops
  let droppedNext = 0;
  let droppedCount = 0;
  const acceptedRate = new RateCounter(Math.max(...RATE_WINDOWS_SECONDS), now);
  const countPersistenceError = () => { counters.persistenceErrors++; };
  // Bound once: these run for every accepted report.
  const recordIngest = persistence && typeof persistence.recordIngest === 'function' ? persistence.recordIngest.bind(persistence) : null;
  const recordDropped = persistence && typeof persistence.recordDropped === 'function' ? persistence.recordDropped.bind(persistence) : null;

  /** Count a rejected input, remember it in the ring and tell persistence. Never throws. */
  function reject(error, { source = null, raw = null, report = null } = {}) {
    const reason = (error && error.reason) || 'unknown';
    const message = (error && error.message) || reason;
    counters.rejected++;
    rejectedByReason[reason] = (rejectedByReason[reason] || 0) + 1;
    const entry = { reason, message: truncate(message, 300), time: now(), source, raw: truncate(raw ?? (report && report.raw), rawChars) };
    dropped[droppedNext] = entry;
    droppedNext = (droppedNext + 1) % ringSize;
    droppedCount++;
    if (recordDropped) {
      // `report` is null when the input never became one (parse errors); entry.raw still says what came in.
      callSafely(log, 'persistence.recordDropped', countPersistenceError, recordDropped, report, { ...entry });
    }
    return { error: { reason, message } };
  }

  /**
   * Ingest one report now: engine, counters, persistence, fan-out. Returns the engine's result
   * ({ error } when refused). A persistence write that returned a promise (the core's never
   * does) is pushed onto `writes`.
   */
  function ingestOne(report, source, done, writes) {
    let result;
    try {
      result = engine.ingest(report) || {};
    } catch (err) {
      result = { error: { reason: 'ingest_error', message: `${PIPELINE_ERRORS.ingest_error}: ${err && err.message}` } };
    }
    if (result.error) {
      reject(result.error, { source, report });
      if (done) done({ error: result.error });
      return result;
    }
    counters.accepted++;
    if (!result.isNew) counters.duplicates++;
    acceptedRate.add();
    if (recordIngest) {
      const write = callSafely(log, 'persistence.recordIngest', countPersistenceError, recordIngest, result, report);
      if (write) writes.push(write);
    }
    if (onIngest) callSafely(log, 'onIngest', null, onIngest, result, report, source);
    if (done) done({ isNew: result.isNew });
    return result;
  }

  /** The batch handler: ingest in order, then wait for this batch's persistence writes. */
  async function ingestBatch(tasks) {
    const writes = [];
    for (const task of tasks) ingestOne(task.report, task.source, task.done, writes);
    // Waiting here bounds outstanding writes by the queue's concurrency (back-pressure).
    if (writes.length > 0) await Promise.all(writes);
  }

  // Writes of reports ingested at once (ingestMessageNow) still pending, and drain()s waiting for them.
  const directWrites = [];
  let directCount = 0;
  let directWaiters = [];
  function trackDirectWrites() {
    const pending = directWrites.splice(0);
    directCount += pending.length;
    Promise.all(pending).then(() => {
      directCount -= pending.length;
      if (directCount > 0) return;
      const waiters = directWaiters;
      directWaiters = [];
      for (const resolve of waiters) resolve();
    });
  }
  const directSettled = () => (directCount === 0 ? Promise.resolve() : new Promise((resolve) => directWaiters.push(resolve)));

  const queueOptions = { ...PIPELINE_DEFAULTS.queue, ...(options.queue || {}) };
  const userOnOverflow = queueOptions.onOverflow;
  const userOnError = queueOptions.onError;
  if (queueOptions.overflow === 'throw') queueOptions.overflow = 'reject'; // submit* must not throw
  const queue = createQueue(ingestBatch, {
    ...queueOptions,
    mode: 'batch',
    // Called for a refused new task and for a dropped old one alike ('drop-oldest').
    onOverflow(task, reason) {
      reject({ reason: 'queue_full', message: `${PIPELINE_ERRORS.queue_full}: ${reason}` }, { source: task.source, report: task.report });
      if (task.done) task.done({ error: { reason: 'queue_full', message: reason } });
      if (userOnOverflow) userOnOverflow(task, reason);
    },
    onError(err, tasks) {
      // ingestBatch catches per report; this is a bug guard, logged loudly.
      log.error(`ingest: batch of ${tasks.length} failed: ${err && err.stack}`);
      if (userOnError) userOnError(err, tasks);
    },
  });
  let closed = false;

  function enqueue(report, source, done) {
    if (closed) {
      const error = reject({ reason: 'pipeline_closed', message: PIPELINE_ERRORS.pipeline_closed }, { source, report });
      if (done) done(error);
      return error;
    }
    const key = typeof report.observerId === 'string' ? report.observerId : undefined;
    // push() returns false on overflow; onOverflow has already counted it and called done.
    if (!queue.push({ report, source, done }, key)) return { error: { reason: 'queue_full', message: PIPELINE_ERRORS.queue_full } };
    counters.queued++;
    return { queued: true };
  }

  /** MQTT-shaped input: topic meshcore/<region>/<observer>/packets and a JSON payload. */
  function submitMessage(topic, payload, source = null) {
    counters.submitted++;
    const parsed = parseObserverMessage(topic, payload, now());
    if (parsed.error) return reject(parsed.error, { source, raw: payload });
    return enqueue(parsed.report, source, null);
  }

  /**
   * submitMessage() for a source that delivers one message at a time and can wait (MQTT): when
   * nothing is queued or running, the report is ingested now, in the caller's turn: no queue
   * entry, no extra event-loop turn, and the source reads its next message only after this one
   * (back-pressure without a queue). Otherwise it queues behind the others, so an observer's
   * reports keep their order. Returns { ingested: true, isNew }, { queued: true } or { error }.
   */
  function ingestMessageNow(topic, payload, source = null) {
    counters.submitted++;
    const parsed = parseObserverMessage(topic, payload, now());
    if (parsed.error) return reject(parsed.error, { source, raw: payload });
    if (closed || queue.depth > 0 || queue.inFlight > 0 || directCount > 0) return enqueue(parsed.report, source, null);
    const result = ingestOne(parsed.report, source, null, directWrites);
    // An asynchronous persistence: later reports queue until this write settles.
    if (directWrites.length > 0) trackDirectWrites();
    return result.error ? { error: result.error } : { ingested: true, isNew: result.isNew };
  }

  /** A store report ({ raw, observerId, ... }) that needs no parsing. */
  function submitReport(report, source = null) {
    counters.submitted++;
    if (!report || typeof report !== 'object') return reject({ reason: 'bad_json', message: 'report is not an object' }, { source, raw: report });
    return enqueue(report, source, null);
  }

  /**
   * Observer JSON objects ({ raw, observer, region, SNR, RSSI, score, timestamp, origin }), as
   * HTTP receives them. Resolves once every item was ingested or rejected:
   * { accepted, duplicates, rejected, errors: [{ index, reason, message }] }.
   */
  function submitBatch(bodies, source = null) {
    const receivedAt = now();
    const outcome = { accepted: 0, duplicates: 0, rejected: 0, errors: [] };
    const pending = [];
    bodies.forEach((body, index) => {
      counters.submitted++;
      const recordOutcome = (result) => {
        if (result.error) {
          outcome.rejected++;
          outcome.errors.push({ index, reason: result.error.reason, message: result.error.message });
        } else {
          outcome.accepted++;
          if (!result.isNew) outcome.duplicates++;
        }
      };
      const parsed = toReport(body, {}, receivedAt);
      if (parsed.error) {
        recordOutcome(reject(parsed.error, { source, raw: body }));
        return;
      }
      pending.push(new Promise((resolve) => {
        enqueue(parsed.report, source, (result) => {
          recordOutcome(result);
          resolve();
        });
      }));
    });
    return Promise.all(pending).then(() => {
      outcome.errors.sort((a, b) => a.index - b.index);
      return outcome;
    });
  }

  /** Recent drops, newest first. */
  function recentDropped(limit = ringSize) {
    const out = [];
    const available = Math.min(droppedCount, ringSize);
    for (let i = 1; i <= Math.min(limit, available); i++) out.push(dropped[(droppedNext - i + ringSize) % ringSize]);
    return out;
  }

  /** Queue counters, with its last error as a message so stats stay plain JSON (EJSON, logs). */
  function queueStats() {
    const queueState = queue.stats();
    return { ...queueState, lastError: queueState.lastError ? String(queueState.lastError.message || queueState.lastError) : null };
  }

  function stats() {
    return {
      ...counters,
      rejectedByReason: { ...rejectedByReason },
      ratePerSecond: { last10s: acceptedRate.rate(10), last60s: acceptedRate.rate(60) },
      queue: queueStats(),
      lastDropped: recentDropped(),
    };
  }

  return {
    submitMessage,
    ingestMessageNow,
    submitReport,
    submitBatch,
    /** Count and remember input rejected before it reached the pipeline (e.g. a bad NDJSON line). */
    reject: (error, context) => reject(error, context),
    recentDropped,
    stats,
    /** Resolves once everything submitted so far is ingested or rejected (part-filled batches start now). */
    drain: () => Promise.all([queue.flush(), directSettled()]).then(() => {}),
    /** Whether close() was called: the server is stopping and takes no more input. */
    get closed() {
      return closed;
    },
    /** Refuse further input, finish what is queued. */
    close() {
      closed = true;
      return queue.close();
    },
    queue,
  };
}

module.exports = { createPipeline, PIPELINE_DEFAULTS, PIPELINE_ERRORS };
