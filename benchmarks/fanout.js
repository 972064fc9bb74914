#!/usr/bin/env node
'use strict';
/**
 * Fan-out: `npm run bench:fanout` (`-- --quick`).
 *
 * One server (core 0) ingests the simulator's 50 packets/s; subscribers (DDP clients spread
 * over load processes on core 1, ≤ 500 per process) are added in steps (1, 100, 500, 1,000,
 * 2,000), all subscribed to the same view(s). At each step: server RSS after a settle, then a
 * measurement window: update delay (newestPacketAt -> arrival) p50/p95/p99, updates delivered,
 * server CPU (exact, /proc), the load processes' event-loop lag (if that grows, the clients,
 * not the server, are late). Three servers, one after the other:
 *   meteor, NO_MERGE on   (settings.publish.noMerge = true, the default)
 *   meteor, NO_MERGE off  (Meteor's default merge box: a per-connection copy of every doc)
 *   bare ws               (benchmarks/lib/bare-ws-server.js: same engine, hub and documents,
 *                          no framework; the floor)
 * Websocket compression is off for all three, so the comparison is the publish path alone
 * (bench:compression measures compression).
 * Flags: --views stats,channels (default stats), --levels 1,100,1000, --window 20 (seconds).
 * --quick: levels 1 and 1,000, NO_MERGE on and the bare floor only, 10 s windows (≤ 4 min).
 * A floor ratio is never taken from a step where either side fell behind (fewer than 95% of
 * the subscribers connected, connections dropped, or a load process's event loop lagging over
 * 200 ms p99): the headline says why instead.
 */
const path = require('path');
const { spawn } = require('child_process');
const { runStudy, sleep, SERVER_CPU, StudyError } = require('./lib/study');
const { createClientPool } = require('./lib/client-pool');
const { cpuSeconds, rssBytes, startSampler } = require('./lib/sampler');
const { freePort } = require('../tests/helpers/meteor-app');

const INGEST_PER_S = 50;
const round = (value, digits = 2) => (value === null || value === undefined || !Number.isFinite(value) ? null : Math.round(value * 10 ** digits) / 10 ** digits);

function flag(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : fallback;
}

async function startBareServer(study) {
  const port = await freePort();
  const child = spawn('taskset', ['-c', String(SERVER_CPU), process.execPath, path.join(__dirname, 'lib', 'bare-ws-server.js'), '--port', String(port), '--rate', String(INGEST_PER_S), '--mode', flag('bare-mode', 'changed')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const stop = async () => {
    if (child.exitCode !== null) return;
    child.kill('SIGTERM');
    await new Promise((resolve) => {
      const timer = setTimeout(() => { child.kill('SIGKILL'); resolve(); }, 5000);
      child.once('exit', () => { clearTimeout(timer); resolve(); });
    });
  };
  study.onCleanup(stop);
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new StudyError('the bare ws server did not start within 30 s')), 30000);
    child.stdout.on('data', (chunk) => { if (/LISTENING/.test(chunk.toString())) { clearTimeout(timer); resolve(); } });
    child.once('exit', (code) => { clearTimeout(timer); reject(new StudyError(`the bare ws server exited (${code})`)); });
  });
  return { url: `http://127.0.0.1:${port}`, wsUrl: `ws://127.0.0.1:${port}/websocket`, pid: child.pid, stop };
}

/** Median of three RSS readings a second apart (one reading can land on a GC). */
async function steadyRss(pid) {
  const readings = [];
  for (let i = 0; i < 3; i++) {
    readings.push(rssBytes(pid));
    if (i < 2) await sleep(1000);
  }
  return readings.sort((a, b) => a - b)[1];
}

/** The server's own heapUsed (MB) from /api/health, when it reports one. */
async function heapUsedMB(url) {
  try {
    const health = await fetch(`${url}/api/health`).then((r) => r.json());
    return health.perf && health.perf.memory ? health.perf.memory.heapUsedMB : null;
  } catch (err) {
    return null;
  }
}

async function runConfig(study, config, { levels, windowS, subscriptions }) {
  const server = config.kind === 'bare'
    ? await startBareServer(study)
    : await study.startServer({
      settings: { sources: { simulator: { enabled: true, ratePerSecond: INGEST_PER_S } }, publish: { noMerge: config.noMerge } },
      env: { SERVER_WEBSOCKET_COMPRESSION: 'false' },
    });
  study.log(`${config.label}: server pid ${server.pid}; warming up`);
  await sleep(8000);
  const sampler = startSampler({ server: server.pid });
  const t0 = Date.now();
  // Zero subscribers: the ingest-only floor of CPU and the RSS baseline.
  const idleCpu0 = cpuSeconds(server.pid);
  await sleep(Math.min(windowS, 10) * 1000);
  const idleCpuPct = ((cpuSeconds(server.pid) - idleCpu0) / Math.min(windowS, 10)) * 100;
  const rss0 = await steadyRss(server.pid);
  const heap0 = await heapUsedMB(server.url);
  const pool = createClientPool({ url: server.wsUrl, subscriptions, perMessageDeflate: false });
  study.onCleanup(() => pool.close());
  const steps = [];
  try {
    for (const level of levels) {
      const connectStarted = Date.now();
      const grown = await pool.grow(level);
      const connectS = (Date.now() - connectStarted) / 1000;
      for (const pid of pool.pids()) sampler.watch(`load-${pid}`, pid);
      await sleep(2000);
      const rss = await steadyRss(server.pid);
      const heap = await heapUsedMB(server.url);
      await pool.measure();
      const cpu0 = cpuSeconds(server.pid);
      const windowStarted = Date.now();
      await sleep(windowS * 1000);
      const cpuS = cpuSeconds(server.pid) - cpu0;
      const elapsed = (Date.now() - windowStarted) / 1000;
      const m = await pool.report();
      const netCpuS = Math.max(0, cpuS - (idleCpuPct / 100) * elapsed);
      const step = {
        subscribers: level,
        connected: m.clients,
        connect_failures: grown.failures,
        connection_drops: m.failures,
        connect_s: round(connectS, 1),
        window_s: round(elapsed, 1),
        t_start: windowStarted - t0,
        delay_p50_ms: m.delay.p50,
        delay_p95_ms: m.delay.p95,
        delay_p99_ms: m.delay.p99,
        delay_max_ms: m.delay.max,
        delay_samples: m.delay.count,
        updates: m.updates,
        updates_per_s: round(m.updates / elapsed, 1),
        server_cpu_s: round(cpuS, 3),
        server_cpu_pct: round((cpuS / elapsed) * 100, 1),
        server_net_cpu_s: round(netCpuS, 3),
        cpu_us_per_update: m.updates ? round((cpuS * 1e6) / m.updates, 1) : null,
        net_cpu_us_per_update: m.updates ? round((netCpuS * 1e6) / m.updates, 1) : null,
        rss_mb: round(rss / 1048576, 1),
        rss_delta_mb: round((rss - rss0) / 1048576, 1),
        bytes_per_subscriber: level >= 100 ? Math.round((rss - rss0) / level) : null,
        heap_used_mb: heap,
        heap_bytes_per_subscriber: level >= 100 && heap !== null && heap0 !== null ? Math.round(((heap - heap0) * 1048576) / level) : null,
        client_lag_p99_ms: round(m.lagP99Ms, 1),
        wire_bytes_per_s: Math.round((m.messages.small.wire_bytes + m.messages.large.wire_bytes) / elapsed),
        errors: grown.errors.slice(0, 3),
      };
      steps.push(step);
      study.log(`${config.label}: ${level} subscribers: p99 ${step.delay_p99_ms} ms, ${step.updates_per_s} updates/s, CPU ${step.server_cpu_pct}% (${step.net_cpu_us_per_update} us net/update), RSS +${step.rss_delta_mb} MB, client lag p99 ${step.client_lag_p99_ms} ms`);
      if (m.clients < level * 0.9) { study.log(`${config.label}: only ${m.clients} of ${level} connected; stopping this series`); break; }
    }
  } finally {
    await pool.close();
    const series = sampler.stop();
    await server.stop();
    config.series = { t0, server: series.server };
  }
  // Memory per subscriber as the slope of RSS (and heap) over the steps with >= 500 subscribers:
  // a least-squares fit is immune to the GC shrinking RSS below the no-subscriber baseline.
  const slope = (key) => {
    const points = steps.filter((step) => step.subscribers >= 500 && step[key] !== null && step[key] !== undefined);
    if (points.length < 2) return null;
    const mx = points.reduce((sum, p) => sum + p.subscribers, 0) / points.length;
    const my = points.reduce((sum, p) => sum + p[key], 0) / points.length;
    const num = points.reduce((sum, p) => sum + (p.subscribers - mx) * (p[key] - my), 0);
    const den = points.reduce((sum, p) => sum + (p.subscribers - mx) ** 2, 0);
    return den ? Math.round((num / den) * 1048576) : null;
  };
  const at = (n) => steps.find((s) => s.subscribers === n);
  const one = at(1);
  const thousand = at(1000);
  return {
    label: config.label,
    kind: config.kind,
    no_merge: config.kind === 'bare' ? null : config.noMerge,
    idle_cpu_pct: round(idleCpuPct, 1),
    rss_baseline_mb: round(rss0 / 1048576, 1),
    steps,
    fanout_cpu_ratio_1000: one && thousand && one.server_cpu_s ? round(thousand.server_cpu_s / one.server_cpu_s, 2) : null,
    fanout_net_cpu_ratio_1000: one && thousand && one.server_net_cpu_s > 0 ? round(thousand.server_net_cpu_s / one.server_net_cpu_s, 2) : null,
    bytes_per_subscriber_1000: thousand ? thousand.bytes_per_subscriber : null,
    bytes_per_subscriber: slope('rss_mb'),
    heap_bytes_per_subscriber: slope('heap_used_mb'),
    series: config.series,
  };
}

runStudy('fanout', async (study) => {
  const views = flag('views', 'stats').split(',').map((v) => v.trim()).filter(Boolean);
  const subscriptions = views.map((name) => ({ name: `view.${name}`, params: {} }));
  const levels = flag('levels', study.quick ? '1,1000' : '1,100,500,1000,2000').split(',').map(Number);
  const windowS = Number(flag('window', study.quick ? 10 : 20));
  const configs = [
    { label: 'Meteor, NO_MERGE on', kind: 'meteor', noMerge: true },
    ...(study.quick ? [] : [{ label: 'Meteor, NO_MERGE off', kind: 'meteor', noMerge: false }]),
    { label: 'bare ws (floor)', kind: 'bare' },
  ];
  const results = [];
  for (const config of configs) results.push(await runConfig(study, config, { levels, windowS, subscriptions }));
  const noMergeOn = results[0];
  const bare = results[results.length - 1];
  const noMergeOff = results.length === 3 ? results[1] : { bytes_per_subscriber: null, heap_bytes_per_subscriber: null };
  const stepAt = (result, n) => result.steps.find((s) => s.subscribers === n) || null;
  const on1000 = stepAt(noMergeOn, 1000);
  const bare1000 = stepAt(bare, 1000);
  const behindAt = (step, label) => {
    if (!step) return `${label}: no 1,000-subscriber step`;
    const why = [];
    if (step.connected < step.subscribers * 0.95) why.push(`${step.connected} of ${step.subscribers} connected`);
    if (step.connection_drops > 0) why.push(`${step.connection_drops} connections dropped`);
    if (step.client_lag_p99_ms > 200) why.push(`load process lag p99 ${step.client_lag_p99_ms} ms`);
    return why.length ? `${label}: ${why.join(', ')}` : null;
  };
  const fellBehind = [behindAt(on1000, 'Meteor'), behindAt(bare1000, 'bare ws')].filter(Boolean).join('; ') || null;
  const floorRatio = !fellBehind && on1000 && bare1000 && bare1000.net_cpu_us_per_update ? round(on1000.net_cpu_us_per_update / bare1000.net_cpu_us_per_update, 2) : null;
  const floorRatioTotal = on1000 && bare1000 && bare1000.server_cpu_s ? round(on1000.server_cpu_s / bare1000.server_cpu_s, 2) : null;
  return {
    settings: { ingest_per_s: INGEST_PER_S, subscriptions, levels, window_s: windowS, websocket_compression: 'off (all three servers)', publish_interval_ms: 250, bare_mode: flag('bare-mode', 'changed'), subscribers_per_load_process: 500 },
    configs: results,
    headline: {
      delay_p99_ms_1000: on1000 ? on1000.delay_p99_ms : null,
      fanout_cpu_ratio_1000: noMergeOn.fanout_cpu_ratio_1000,
      fanout_net_cpu_ratio_1000: noMergeOn.fanout_net_cpu_ratio_1000,
      bytes_per_subscriber_no_merge_on: noMergeOn.bytes_per_subscriber,
      bytes_per_subscriber_no_merge_off: noMergeOff.bytes_per_subscriber,
      heap_bytes_per_subscriber_no_merge_on: noMergeOn.heap_bytes_per_subscriber,
      heap_bytes_per_subscriber_no_merge_off: noMergeOff.heap_bytes_per_subscriber,
      bytes_per_subscriber_bare: bare.bytes_per_subscriber,
      cpu_vs_bare_floor_1000: floorRatioTotal,
      net_cpu_per_update_vs_bare_floor_1000: floorRatio,
      fell_behind_1000: fellBehind,
      shared_send: 'one serialization per group message (imports/api/ddp/shared-send.js)',
    },
    targets: {
      delay_p99_1000: { target: 'reactive update delay p99 <= 100 ms with 1,000 subscribers at 50 packets/s', measured: on1000 ? on1000.delay_p99_ms : null, met: on1000 && on1000.delay_p99_ms !== null ? on1000.delay_p99_ms <= 100 && on1000.connected >= 1000 : null },
      net_cpu_per_update_within_1_5x_floor: { target: 'fan-out server CPU per delivered update, net of ingest, <= 1.5x the bare ws floor (1,000 subscribers)', measured: floorRatio, fell_behind: fellBehind, met: floorRatio === null ? null : floorRatio <= 1.5 },
      within_3x_of_floor: { target: 'reactive fan-out server CPU within 3x of the bare ws floor (1,000 subscribers)', measured: floorRatioTotal, met: floorRatioTotal === null ? null : floorRatioTotal <= 3 },
    },
  };
});
