'use strict';
/**
 * The connection-storm load generator: a few storm-worker.js processes, all pinned to the
 * load core, that together start users at evenly spaced times (Artillery's `arrivalCount`
 * spacing) and each run one dashboard user (storm-ddp.js).
 *
 *   const pool = await startStormPool({ workers: 3 });
 *   const step = await pool.runStep({ url, path: 'reactive', perMinute: 3000, stepS: 10,
 *     user: { holdMs: 5000, refreshMs: 2000, liveLimit: 16 } });
 *   step.users, step.failed, step.timings.ready_ms.p99, step.generator.cpu_s, ...
 *   pool.cpuSeconds()   // CPU the workers used so far (sum, /proc): sample it per second
 *   await pool.close();
 *
 * Several processes rather than one: on one core they share the same CPU, but a user's timings
 * then wait behind only its own process's work, and one process's GC pause does not stall
 * every user at once.
 */
const path = require('path');
const { spawn } = require('child_process');
const hdr = require('hdr-histogram-js');
const { LOAD_CPU } = require('./study');
const { cpuSeconds } = require('./sampler');
const { TIMINGS, COUNTERS } = require('./storm-worker');

const WORKER = path.join(__dirname, 'storm-worker.js');
const DEFAULT_WORKERS = 3;
// Users are scheduled this far ahead so that every worker has the step before its first slot.
const LEAD_MS = 300;

function startWorker(cpu) {
  const args = [process.execPath, '--max-old-space-size=1024', WORKER];
  const child = cpu === null ? spawn(args[0], args.slice(1), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    : spawn('taskset', ['-c', String(cpu), ...args], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const waiting = new Map(); // step id -> { resolve, reject }
  let exited = false;
  const up = new Promise((resolve, reject) => {
    child.once('error', reject);
    child.on('message', (message) => {
      if (message.type === 'up') return resolve();
      const entry = waiting.get(message.id);
      if (!entry) return;
      waiting.delete(message.id);
      if (message.error) entry.reject(new Error(`storm worker ${child.pid}: ${message.error}`));
      else entry.resolve(message.report);
    });
    child.on('exit', (code, signal) => {
      exited = true;
      const error = new Error(`storm worker ${child.pid} exited (${code ?? signal})`);
      reject(error);
      for (const entry of waiting.values()) entry.reject(error);
      waiting.clear();
    });
  });
  return {
    child,
    up,
    get exited() { return exited; },
    step(command) {
      return new Promise((resolve, reject) => {
        // As client-pool.js: a worker whose IPC channel is gone rejects instead of throwing.
        if (!child.connected) { reject(new Error(`storm worker ${child.pid} exited`)); return; }
        waiting.set(command.id, { resolve, reject });
        child.send(command, (err) => { if (err) { waiting.delete(command.id); reject(err); } });
      });
    },
  };
}

/** Percentiles of a merged histogram: { count, p50, p95, p99, max, mean } (ms), nulls when empty. */
function percentiles(histogram) {
  if (!histogram.totalCount) return { count: 0, p50: null, p95: null, p99: null, max: null, mean: null };
  return {
    count: histogram.totalCount,
    p50: histogram.getValueAtPercentile(50),
    p95: histogram.getValueAtPercentile(95),
    p99: histogram.getValueAtPercentile(99),
    max: histogram.maxValue,
    mean: Math.round(histogram.mean * 10) / 10,
  };
}

/** One step's worker reports -> one figure set (pure; exported for the test). */
function mergeReports(reports) {
  const merged = { created: 0, completed: 0, failed: 0, without_update: 0, errors: {}, max_open: 0, counters: {}, timings: {}, loop_delay_p99_ms: 0, loop_delay_max_ms: 0, cpu_s: 0, inflate: {} };
  for (const name of COUNTERS) merged.counters[name] = 0;
  const histograms = Object.fromEntries(TIMINGS.map((name) => [name, hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 3600000, numberOfSignificantValueDigits: 3 })]));
  for (const report of reports) {
    for (const key of ['created', 'completed', 'failed', 'without_update', 'max_open']) merged[key] += report[key];
    for (const [error, n] of Object.entries(report.errors)) merged.errors[error] = (merged.errors[error] || 0) + n;
    for (const name of COUNTERS) merged.counters[name] += report.counters[name] || 0;
    for (const name of TIMINGS) histograms[name].add(hdr.decodeFromCompressedBase64(report.histograms[name]));
    merged.loop_delay_p99_ms = Math.max(merged.loop_delay_p99_ms, report.loop_delay_p99_ms);
    merged.loop_delay_max_ms = Math.max(merged.loop_delay_max_ms, report.loop_delay_max_ms);
    merged.cpu_s += report.cpu_s;
    for (const [key, n] of Object.entries(report.inflate || {})) merged.inflate[key] = (merged.inflate[key] || 0) + n;
  }
  for (const name of TIMINGS) merged.timings[name] = percentiles(histograms[name]);
  merged.cpu_s = Math.round(merged.cpu_s * 100) / 100;
  return merged;
}

async function startStormPool({ workers = DEFAULT_WORKERS, cpu = LOAD_CPU } = {}) {
  const list = Array.from({ length: workers }, () => startWorker(cpu));
  await Promise.all(list.map((w) => w.up));
  let nextStep = 1;

  /**
   * Start round(perMinute * stepS / 60) users evenly over stepS seconds; resolves when every one
   * has finished or failed: { users, per_minute, started_at, ended_at, ...mergeReports() }.
   */
  async function runStep({ url, path: userPath, perMinute, stepS, user = {} }) {
    const count = Math.round((perMinute * stepS) / 60);
    const intervalMs = (stepS * 1000) / count;
    const startAt = Date.now() + LEAD_MS;
    const id = nextStep++;
    const reports = await Promise.all(list.map((worker, offset) => worker.step({ type: 'step', id, url, path: userPath, startAt, intervalMs, count, offset, stride: list.length, user })));
    return { users: count, per_minute: perMinute, started_at: startAt, ended_at: Date.now(), ...mergeReports(reports) };
  }

  /** CPU seconds every worker used so far (user + system), from /proc. */
  function totalCpuSeconds() {
    let total = 0;
    for (const worker of list) total += cpuSeconds(worker.child.pid) || 0;
    return total;
  }

  async function close() {
    await Promise.all(list.map((worker) => new Promise((resolve) => {
      if (worker.exited) return resolve();
      const timer = setTimeout(() => { worker.child.kill('SIGKILL'); resolve(); }, 3000);
      worker.child.once('exit', () => { clearTimeout(timer); resolve(); });
      if (!worker.child.connected) { worker.child.kill('SIGKILL'); return; }
      worker.child.send({ type: 'exit' }, (err) => { if (err) worker.child.kill('SIGKILL'); });
    })));
  }

  return { runStep, cpuSeconds: totalCpuSeconds, pids: () => list.map((w) => w.child.pid), workers: list.length, close };
}

module.exports = { startStormPool, mergeReports, percentiles, DEFAULT_WORKERS };
