'use strict';
/**
 * Many DDP subscribers spread over several load-generator processes (client-worker.js),
 * all pinned to the load core. One Node process holds a few hundred sockets comfortably;
 * more processes keep one slow event loop from inflating every client's delay.
 *
 *   const pool = createClientPool({ url, subscriptions, perProcess: 500 });
 *   await pool.grow(1000);            // total connected subscribers
 *   await pool.measure(); await sleep(10000);
 *   const m = await pool.report();    // merged delay histogram, updates, bytes, lag
 *   await pool.close();
 * measureWindow(pool, serverPid, seconds) does the measure/sleep/report dance with server CPU.
 */
const path = require('path');
const { spawn } = require('child_process');
const hdr = require('hdr-histogram-js');
const { LOAD_CPU } = require('./study');
const { createWireStats } = require('./wire-tap');
const { cpuSeconds } = require('./sampler');

const WORKER = path.join(__dirname, 'client-worker.js');

function startWorker() {
  const child = spawn('taskset', ['-c', String(LOAD_CPU), process.execPath, '--max-old-space-size=2048', WORKER], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const waiting = [];
  child.on('message', (message) => {
    const next = waiting.findIndex((w) => w.type === message.type || message.type === 'error');
    if (next >= 0) {
      const [entry] = waiting.splice(next, 1);
      if (message.type === 'error') entry.reject(new Error(`load worker: ${message.message}`));
      else entry.resolve(message);
    }
  });
  child.on('exit', () => { for (const w of waiting.splice(0)) w.reject(new Error('load worker exited')); });
  const ask = (command, replyType) => new Promise((resolve, reject) => {
    if (!child.connected) { reject(new Error('load worker exited')); return; }
    waiting.push({ type: replyType, resolve, reject });
    child.send(command, (err) => { if (err) reject(err); });
  });
  return { child, pid: child.pid, clients: 0, ask };
}

function createClientPool({ url, subscriptions, perProcess = 500, perMessageDeflate = true, light = false }) {
  const workers = [];

  /** Connect up to `total` subscribers; `connectBudgetS`: clients not started by then count as failures. */
  async function grow(total, { connectBudgetS = Infinity } = {}) {
    const deadlineMs = Number.isFinite(connectBudgetS) ? Date.now() + connectBudgetS * 1000 : null;
    const current = workers.reduce((sum, w) => sum + w.clients, 0);
    let missing = total - current;
    const jobs = [];
    const result = { failures: 0, errors: [] };
    while (missing > 0) {
      let worker = workers.find((w) => w.clients < perProcess);
      if (!worker) { worker = startWorker(); workers.push(worker); }
      const count = Math.min(missing, perProcess - worker.clients);
      worker.clients += count;
      missing -= count;
      jobs.push(worker.ask({ type: 'connect', url, count, subscriptions, perMessageDeflate, light, deadlineMs }, 'connected').then((reply) => {
        result.failures += reply.failures;
        result.errors.push(...reply.errors);
        worker.clients -= reply.failures;
      }));
    }
    await Promise.all(jobs);
    return result;
  }

  async function measure() {
    await Promise.all(workers.map((w) => w.ask({ type: 'measure' }, 'measuring')));
  }

  async function report() {
    const replies = await Promise.all(workers.map((w) => w.ask({ type: 'report' }, 'report')));
    const delay = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 3600000, numberOfSignificantValueDigits: 3 });
    const wire = createWireStats();
    const merged = { updates: 0, payload: 0, wireTotal: 0, lagP99Ms: 0, clients: 0, failures: 0, lastError: null, workers: replies.length, workersCpuPct: 0, lightBytes: 0 };
    for (const reply of replies) {
      delay.add(hdr.decodeFromCompressedBase64(reply.delay));
      wire.merge(reply.messages);
      merged.updates += reply.updates;
      merged.payload += reply.totals.payload;
      merged.wireTotal += reply.totals.wire;
      merged.lagP99Ms = Math.max(merged.lagP99Ms, reply.lagP99Ms);
      merged.clients += reply.clients;
      merged.failures += reply.failures;
      merged.lastError = merged.lastError || reply.lastError;
      merged.workersCpuPct += reply.cpuPct || 0;
      merged.lightBytes += reply.light ? reply.light.bytes : 0;
    }
    merged.workersCpuPct = Math.round(merged.workersCpuPct * 10) / 10;
    const at = (p) => (delay.totalCount ? delay.getValueAtPercentile(p) : null);
    return {
      ...merged,
      delay: { count: delay.totalCount, p50: at(50), p95: at(95), p99: at(99), max: delay.totalCount ? delay.maxValue : null, mean: delay.totalCount ? Math.round(delay.mean * 10) / 10 : null },
      messages: wire.snapshot(),
    };
  }

  async function close() {
    await Promise.all(workers.map((w) => new Promise((resolve) => {
      if (w.child.exitCode !== null) return resolve();
      const timer = setTimeout(() => { w.child.kill('SIGKILL'); resolve(); }, 5000);
      w.child.once('exit', () => { clearTimeout(timer); resolve(); });
      // A worker whose IPC channel is already gone (it exited) must not throw from here.
      if (!w.child.connected) { w.child.kill('SIGKILL'); return; }
      w.child.send({ type: 'close' }, (err) => { if (err) w.child.kill('SIGKILL'); });
    })));
    workers.length = 0;
  }

  return { grow, measure, report, close, pids: () => workers.map((w) => w.pid), size: () => workers.reduce((sum, w) => sum + w.clients, 0) };
}


/**
 * One measurement window over a pool: server CPU (exact, /proc) and everything the clients saw.
 * Returns { elapsed_s, server_cpu_s, server_cpu_pct, ...pool.report() }.
 */
async function measureWindow(pool, serverPid, seconds) {
  await pool.measure();
  const cpu0 = cpuSeconds(serverPid);
  const started = Date.now();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const cpuS = cpuSeconds(serverPid) - cpu0;
  const elapsed = (Date.now() - started) / 1000;
  const report = await pool.report();
  return { elapsed_s: elapsed, server_cpu_s: cpuS, server_cpu_pct: (cpuS / elapsed) * 100, ...report };
}

module.exports = { createClientPool, measureWindow };
