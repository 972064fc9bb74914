'use strict';
/**
 * One load-generator process of a connection storm (started by storm-pool.js, pinned to the
 * load core), driven over IPC:
 *
 *   { type: 'step', id, url, path, startAt, intervalMs, count, offset, stride, user }
 *       runs users offset, offset + stride, ... of `count`, user k starting at
 *       startAt + k * intervalMs (the pool interleaves its workers, so together they make the
 *       one evenly spaced arrival stream Artillery's `arrivalCount` makes), each with
 *       storm-ddp.js's runStormUser(user options);
 *       -> { type: 'step-done', id, report } once every one of them has finished or failed
 *   { type: 'exit' }
 *
 * The report carries HDR histograms (base64) of every timing, counters, failures by message,
 * how late users started against their schedule (arrival lag: a generator that cannot keep up
 * starts them late), this process's event-loop delay p99 and its own CPU time over the step.
 */
const { monitorEventLoopDelay } = require('perf_hooks');
const hdr = require('hdr-histogram-js');
const { runStormUser } = require('./storm-ddp');
const { inflateCache } = require('./storm-socket');

const TIMINGS = ['open_ms', 'connect_ms', 'joined_ms', 'ready_ms', 'delay_ms', 'first_update_ms', 'method_latency_ms', 'arrival_lag_ms'];
const COUNTERS = ['updates', 'bytes_payload', 'bytes_wire'];

function newHistogram() {
  return hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 3600000, numberOfSignificantValueDigits: 3 });
}

function createMetrics() {
  const histograms = Object.fromEntries(TIMINGS.map((name) => [name, newHistogram()]));
  const counters = Object.fromEntries(COUNTERS.map((name) => [name, 0]));
  return {
    histograms,
    counters,
    // Clock skew is impossible (one machine), but a negative delay would throw in HDR: clamp at 0.
    record(name, ms) { histograms[name].recordValue(Math.max(0, Math.round(ms))); },
    count(name, n) { counters[name] += n; },
  };
}

async function runStep(command) {
  const { url, path, startAt, intervalMs, count, offset, stride, user = {} } = command;
  const metrics = createMetrics();
  const lag = monitorEventLoopDelay({ resolution: 10 });
  lag.enable();
  const cpu0 = process.cpuUsage();
  const inflate0 = { ...inflateCache.stats };
  const outcomes = [];
  const result = { created: 0, completed: 0, failed: 0, without_update: 0, errors: {}, max_open: 0 };
  let open = 0;

  const launch = (index) => {
    result.created++;
    open++;
    result.max_open = Math.max(result.max_open, open);
    const { done } = runStormUser({ ...user, url, path, metrics });
    outcomes.push(done.then((outcome) => {
      open--;
      if (outcome.ok) {
        result.completed++;
        if (path === 'reactive' && !outcome.sawUpdate) result.without_update++;
      } else {
        result.failed++;
        result.errors[outcome.error] = (result.errors[outcome.error] || 0) + 1;
      }
    }));
    return index;
  };

  // Start each user at its slot; when this process is late, start every overdue one at once.
  await new Promise((resolve) => {
    let next = offset;
    const tick = () => {
      const now = Date.now();
      while (next < count && startAt + next * intervalMs <= now) {
        metrics.record('arrival_lag_ms', now - (startAt + next * intervalMs));
        launch(next);
        next += stride;
      }
      if (next >= count) return resolve();
      setTimeout(tick, Math.max(0, startAt + next * intervalMs - Date.now()));
    };
    tick();
  });
  await Promise.all(outcomes);
  const cpu = process.cpuUsage(cpu0);
  lag.disable();
  return {
    ...result,
    histograms: Object.fromEntries(TIMINGS.map((name) => [name, hdr.encodeIntoCompressedBase64(metrics.histograms[name])])),
    counters: metrics.counters,
    loop_delay_p99_ms: Math.round(lag.percentile(99) / 1e4) / 100,
    loop_delay_max_ms: Math.round(lag.max / 1e4) / 100,
    cpu_s: (cpu.user + cpu.system) / 1e6,
    // Compressed messages: read from the process cache, inflated, inflated with a socket's window, stored.
    inflate: Object.fromEntries(Object.entries(inflateCache.stats).map(([key, n]) => [key, n - inflate0[key]])),
  };
}

if (require.main === module) {
  process.on('message', async (command) => {
    if (command.type === 'exit') process.exit(0);
    if (command.type !== 'step') return;
    try {
      process.send({ type: 'step-done', id: command.id, report: await runStep(command) });
    } catch (err) {
      process.send({ type: 'step-done', id: command.id, error: err.message });
    }
  });
  process.on('disconnect', () => process.exit(0));
  process.send({ type: 'up' });
}

module.exports = { runStep, TIMINGS, COUNTERS };
