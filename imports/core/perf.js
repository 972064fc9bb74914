'use strict';
/**
 * Server performance figures for /api/health and the `perf` view: memory, event-loop delay
 * percentiles, and latency percentiles of methods (recent samples in a bounded window), plus a
 * bounded history of the health document's headline figures (PerfHistory: one sample every
 * 5 s for the last hour by default), served with the perf document so the Perf page's charts
 * are filled the moment it opens instead of growing from empty.
 */
const { monitorEventLoopDelay } = require('perf_hooks');

const WINDOW = 2048;
const HISTORY_INTERVAL_MS = 5000;
const HISTORY_SAMPLES = 720; // an hour at one sample per 5 s

class SampleRing {
  constructor(size = WINDOW) {
    this.samples = new Float64Array(size);
    this.count = 0;
  }

  add(value) {
    this.samples[this.count % this.samples.length] = value;
    this.count++;
  }

  percentiles() {
    const n = Math.min(this.count, this.samples.length);
    if (n === 0) return { count: 0, p50: null, p95: null, p99: null, max: null };
    const sorted = Array.from(this.samples.subarray(0, n)).sort((a, b) => a - b);
    const pick = (p) => sorted[Math.min(n - 1, Math.ceil((p / 100) * n) - 1)];
    return { count: this.count, p50: pick(50), p95: pick(95), p99: pick(99), max: sorted[n - 1] };
  }
}

/**
 * The figures a history sample keeps, each read from a health document (imports/core/health.js)
 * by its path; the Perf page charts them (imports/ui/lib/perf-series.js names them alike).
 * `digits` rounds what is sent: the history is resent with the perf document.
 */
const HISTORY_FIELDS = Object.freeze([
  { name: 'time', path: ['generatedAt'], digits: 0 },
  { name: 'cpuMicros', path: ['perf', 'cpuTotal'], digits: 0 },
  { name: 'rssMB', path: ['perf', 'memory', 'rssMB'], digits: 0 },
  { name: 'heapUsedMB', path: ['perf', 'memory', 'heapUsedMB'], digits: 0 },
  { name: 'loopP50Ms', path: ['perf', 'eventLoopDelayMs', 'p50'], digits: 2 },
  { name: 'loopP99Ms', path: ['perf', 'eventLoopDelayMs', 'p99'], digits: 2 },
  { name: 'ingestPerSecond', path: ['ingest', 'ratePerSecond', 'last10s'], digits: 1 },
  { name: 'queueDepth', path: ['ingest', 'queue', 'depth'], digits: 0 },
  { name: 'publishP50Ms', path: ['publish', 'snapshotMs', 'p50'], digits: 2 },
  { name: 'publishP95Ms', path: ['publish', 'snapshotMs', 'p95'], digits: 2 },
  { name: 'methodP50Ms', path: ['perf', 'methodMs', 'p50'], digits: 2 },
  { name: 'methodP95Ms', path: ['perf', 'methodMs', 'p95'], digits: 2 },
  { name: 'methodCalls', path: ['perf', 'methodMs', 'count'], digits: 0 },
  { name: 'transmissions', path: ['store', 'transmissions'], digits: 0 },
]);

function round(value, digits) {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/** One history row from a health document (or a part of one): a number or null per field. */
function historyRow(doc) {
  return HISTORY_FIELDS.map(({ path, digits }) => {
    let value = doc;
    for (const key of path) value = value !== null && typeof value === 'object' ? value[key] : undefined;
    // CPU: user + system microseconds when the document carries process.cpuUsage() as is.
    if (path[1] === 'cpuTotal' && value === undefined && doc && doc.perf && doc.perf.cpu) value = (doc.perf.cpu.user || 0) + (doc.perf.cpu.system || 0);
    return typeof value === 'number' && Number.isFinite(value) ? round(value, digits) : null;
  });
}

/**
 * A bounded ring of history rows, oldest dropped first. toJSON() is what the perf document
 * carries: { intervalMs, maxSamples, fields: [names], rows: [[...]] } oldest first (columns in
 * `fields` order; a figure the sampled document lacked is null).
 */
class PerfHistory {
  constructor({ intervalMs = HISTORY_INTERVAL_MS, maxSamples = HISTORY_SAMPLES } = {}) {
    if (!(maxSamples >= 1)) throw new Error(`perf history: maxSamples must be at least 1 (got ${maxSamples})`);
    this.intervalMs = intervalMs;
    this.maxSamples = maxSamples;
    this.rows = new Array(maxSamples);
    this.count = 0; // rows ever recorded
    this.errors = 0; // documents that could not be read
    this.lastError = null;
  }

  record(doc) {
    this.rows[this.count % this.maxSamples] = historyRow(doc);
    this.count++;
  }

  get length() {
    return Math.min(this.count, this.maxSamples);
  }

  /** Rows oldest first. */
  ordered() {
    const n = this.length;
    const out = new Array(n);
    const first = this.count - n;
    for (let i = 0; i < n; i++) out[i] = this.rows[(first + i) % this.maxSamples];
    return out;
  }

  toJSON() {
    return {
      intervalMs: this.intervalMs,
      maxSamples: this.maxSamples,
      fields: HISTORY_FIELDS.map((field) => field.name),
      rows: this.ordered(),
      ...(this.errors ? { errors: this.errors, lastError: this.lastError } : {}),
    };
  }
}

/**
 * @param {object} [options]
 * @param {number} [options.historyIntervalMs]  one history sample per this many ms (5,000)
 * @param {number} [options.historySamples]     samples kept (720: an hour at 5 s); 0 = no history
 */
function createPerfMetrics({ historyIntervalMs = HISTORY_INTERVAL_MS, historySamples = HISTORY_SAMPLES } = {}) {
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const methods = new SampleRing();
  const startedAt = Date.now();
  const history = historySamples > 0 ? new PerfHistory({ intervalMs: historyIntervalMs, maxSamples: historySamples }) : null;
  let sampling = false;

  function ownFigures() {
    const memory = process.memoryUsage();
    const ms = (ns) => Math.round((ns / 1e6) * 100) / 100;
    return {
      uptimeS: Math.round((Date.now() - startedAt) / 1000),
      memory: { rssMB: Math.round(memory.rss / 1048576), heapUsedMB: Math.round(memory.heapUsed / 1048576), heapTotalMB: Math.round(memory.heapTotal / 1048576), externalMB: Math.round(memory.external / 1048576) },
      eventLoopDelayMs: { p50: ms(loop.percentile(50)), p95: ms(loop.percentile(95)), p99: ms(loop.percentile(99)), max: ms(loop.max) },
      methodMs: methods.percentiles(),
      cpu: process.cpuUsage(),
    };
  }

  // Until startHistory() names the whole health document, samples hold this module's own
  // figures (memory, event loop, methods, CPU): ingest, queue and publish stay null.
  let readDocument = () => ({ generatedAt: Date.now(), perf: ownFigures() });

  function sample() {
    if (!history || sampling) return;
    sampling = true; // readDocument() may build the health document, which calls snapshot()
    try {
      history.record(readDocument());
    } catch (err) {
      history.errors++;
      history.lastError = err && err.message ? err.message : String(err);
    } finally {
      sampling = false;
    }
  }

  let timer = null;
  if (history) {
    timer = setInterval(sample, historyIntervalMs);
    if (typeof timer.unref === 'function') timer.unref(); // never keeps a process alive
  }

  return {
    recordMethod: (ms) => methods.add(ms),
    /**
     * The `perf` part of the health document, with the history unless `{ history: false }` (or
     * while a sample is taken). A document that carries the history as a top-level field of its
     * own asks for it without: the publish hub resends a changed top-level field whole, and the
     * history changes every 5 s, the rest of `perf` every second.
     */
    snapshot(options = {}) {
      const figures = ownFigures();
      if (history && !sampling && options.history !== false) figures.history = history.toJSON();
      return figures;
    },
    /**
     * Sample the whole health document from now on (`read` returns it, e.g. the server's
     * health()), so the history also holds ingest rate, queue depth and publish latency.
     */
    startHistory(read) {
      if (typeof read !== 'function') throw new Error('perf history: startHistory needs a function returning the health document');
      readDocument = read;
    },
    /** Take one sample now (tests; the timer does it every historyIntervalMs). */
    sampleHistory: sample,
    history,
    resetLoop: () => loop.reset(),
    stop: () => {
      loop.disable();
      if (timer) clearInterval(timer);
    },
  };
}

module.exports = { createPerfMetrics, SampleRing, PerfHistory, historyRow, HISTORY_FIELDS, HISTORY_INTERVAL_MS, HISTORY_SAMPLES };
