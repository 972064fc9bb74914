'use strict';
/**
 * Server performance figures for /api/health and the `perf` view: memory, event-loop delay
 * percentiles, and latency percentiles of methods (recent samples in a bounded window).
 */
const { monitorEventLoopDelay } = require('perf_hooks');

const WINDOW = 2048;

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

function createPerfMetrics() {
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const methods = new SampleRing();
  const startedAt = Date.now();
  return {
    recordMethod: (ms) => methods.add(ms),
    snapshot() {
      const memory = process.memoryUsage();
      const ms = (ns) => Math.round((ns / 1e6) * 100) / 100;
      return {
        uptimeS: Math.round((Date.now() - startedAt) / 1000),
        memory: { rssMB: Math.round(memory.rss / 1048576), heapUsedMB: Math.round(memory.heapUsed / 1048576), heapTotalMB: Math.round(memory.heapTotal / 1048576), externalMB: Math.round(memory.external / 1048576) },
        eventLoopDelayMs: { p50: ms(loop.percentile(50)), p95: ms(loop.percentile(95)), p99: ms(loop.percentile(99)), max: ms(loop.max) },
        methodMs: methods.percentiles(),
        cpu: process.cpuUsage(),
      };
    },
    resetLoop: () => loop.reset(),
    stop: () => loop.disable(),
  };
}

module.exports = { createPerfMetrics, SampleRing };
