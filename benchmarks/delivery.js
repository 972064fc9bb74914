#!/usr/bin/env node
'use strict';
/**
 * Reactive vs method delivery at equal offered load: `npm run bench:delivery` (`-- --quick`).
 *
 * For each path, a fresh production server (core 0) ingests the simulator's 50 packets/s; after
 * a warm-up, tests/artillery/dashboard.yml (core 1) opens the same dashboard for the same users
 * with the same phases: `reactive` subscribes to the views and the live feed, `method` calls
 * them every 2000 ms like the UI's method mode. Server CPU and RSS are sampled every second.
 * Then, if Chromium is installed, tests/artillery/browser.yml opens the real UI in both modes.
 * Writes benchmarks/results/latest/delivery(-quick).json; render.js turns it into DELIVERY.md + PNGs
 * beside it (ignored). `npm run bench:publish` copies it into the tracked benchmarks/results/.
 */
const fs = require('fs');
const { runStudy, sleep } = require('./lib/study');
const { runArtillery } = require('./lib/artillery');
const { startSampler, cpuSeconds, summarize } = require('./lib/sampler');
const { websocketCompressionEnv, DEFAULT_PRESET } = require('../imports/core/compression');

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const INGEST_PER_S = 50;
const round = (value, digits = 2) => (value === null || value === undefined || !Number.isFinite(value) ? null : Math.round(value * 10 ** digits) / 10 ** digits);

function compressionEnv(bundle) {
  const value = websocketCompressionEnv(DEFAULT_PRESET, bundle.meteorVersion);
  return value === undefined ? {} : { SERVER_WEBSOCKET_COMPRESSION: value };
}

/** Server CPU % with no client at all: the ingest floor both paths pay. */
async function idleCpu(pid, seconds) {
  const before = cpuSeconds(pid);
  await sleep(seconds * 1000);
  return ((cpuSeconds(pid) - before) / seconds) * 100;
}

async function runPath(study, path, load) {
  const bundle = await study.bundle();
  const server = await study.startServer({
    settings: { sources: { simulator: { enabled: true, ratePerSecond: INGEST_PER_S } } },
    env: compressionEnv(bundle),
  });
  study.log(`${path}: server ${server.url} (pid ${server.pid}); warming up ${load.warmupS} s with ingest only`);
  await sleep(load.warmupS * 1000);
  const idleCpuPct = await idleCpu(server.pid, 5);
  const sampler = startSampler({ server: server.pid });
  const cpuBefore = cpuSeconds(server.pid);
  study.log(`${path}: ${load.users} users over ${load.rampS} s, each for ${load.holdS} s`);
  const run = await runArtillery({
    script: 'dashboard.yml',
    scenario: path,
    target: server.wsUrl,
    phases: [{ name: `${load.users} dashboards`, duration: load.rampS, arrivalCount: load.users }],
    variables: { holdSeconds: load.holdS, warmupSeconds: 5, refreshMs: 2000, liveLimit: 16 },
    onStart: (pid) => sampler.watch('load', pid),
    label: path,
  });
  const cpuAfter = cpuSeconds(server.pid);
  const health = await fetch(`${server.url}/api/health`).then((r) => r.json()).catch(() => null);
  const series = sampler.stop();
  await server.stop();

  const durationS = (run.endedAt - run.startedAt) / 1000;
  const serverCpuS = cpuAfter - cpuBefore;
  const netCpuS = Math.max(0, serverCpuS - (idleCpuPct / 100) * durationS);
  const counters = run.summary.counters;
  const updates = counters['ddp.updates'] || 0;
  const created = counters['vusers.created'] || 0;
  const completed = counters['vusers.completed'] || 0;
  const delay = run.summary.summaries['ddp.delivery_delay_ms'] || {};
  const resources = summarize(series.server, run.startedAt, run.endedAt);
  return {
    path,
    passed: run.passed,
    checks: run.checks,
    errors: run.errors,
    users: load.users,
    duration_s: round(durationS, 1),
    server_cpu_s: round(serverCpuS, 2),
    server_cpu_pct_mean: round((serverCpuS / durationS) * 100, 1),
    idle_ingest_cpu_pct: round(idleCpuPct, 1),
    server_net_cpu_s: round(netCpuS, 2),
    rss_mean_mb: resources.rss_mean_mb,
    rss_max_mb: resources.rss_max_mb,
    cpu_max_pct: resources.cpu_max,
    delay_p50_ms: delay.p50 ?? null,
    delay_p95_ms: delay.p95 ?? null,
    delay_p99_ms: delay.p99 ?? null,
    delay_samples: delay.count ?? 0,
    method_latency: run.summary.summaries['ddp.method_latency_ms'] || null,
    update_delay: run.summary.summaries['ddp.update_delay_ms'] || null,
    row_delay: run.summary.summaries['ddp.row_delay_ms'] || null,
    dashboard_ready: run.summary.summaries['ddp.dashboard_ready_ms'] || null,
    updates,
    updates_per_s: round(updates / durationS, 1),
    cpu_ms_per_update: updates ? round((serverCpuS * 1000) / updates, 4) : null,
    net_cpu_ms_per_update: updates ? round((netCpuS * 1000) / updates, 4) : null,
    net_cpu_ms_per_user_s: round((netCpuS * 1000) / (load.users * load.holdS), 3),
    success_rate: created ? round(completed / created, 4) : null,
    vusers_created: created,
    vusers_failed: counters['vusers.failed'] || 0,
    bytes_wire: counters['ddp.bytes_wire'] || 0,
    bytes_payload: counters['ddp.bytes_payload'] || 0,
    load_generator_cpu: summarize(series.load || [], run.startedAt, run.endedAt),
    publish: health ? { ticks: health.publish.ticks, snapshots: health.publish.snapshots, updates: health.publish.updates, snapshotMs: health.publish.snapshotMs } : null,
    periods: run.periods.map((p) => ({ t: p.t, delay: p.summaries['ddp.delivery_delay_ms'] || null, updates: p.counters['ddp.updates'] || 0 })),
    series: { t0: run.startedAt, server: series.server, load: series.load || [] },
  };
}

async function runBrowser(study, load) {
  if (!fs.existsSync(CHROMIUM)) return { skipped: `no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH)` };
  const bundle = await study.bundle();
  const server = await study.startServer({
    settings: { sources: { simulator: { enabled: true, ratePerSecond: INGEST_PER_S } } },
    env: compressionEnv(bundle),
  });
  await sleep(5000);
  study.log(`browser: ${load.browserUsers} Chromium users (half reactive, half method) for ${load.browserHoldS} s`);
  const sampler = startSampler({ server: server.pid });
  const run = await runArtillery({
    script: 'browser.yml',
    target: server.url,
    phases: [{ name: 'browsers', duration: 10, arrivalCount: load.browserUsers }],
    variables: { holdSeconds: load.browserHoldS },
    label: 'browser',
    timeoutMs: 5 * 60 * 1000,
  });
  const series = sampler.stop();
  await server.stop();
  const s = run.summary;
  const pick = (name) => s.summaries[name] || null;
  return {
    passed: run.passed,
    checks: run.checks,
    errors: run.errors,
    users: load.browserUsers,
    vusers_created: s.counters['vusers.created'] || 0,
    vusers_failed: s.counters['vusers.failed'] || 0,
    by_mode: {
      reactive: { users: s.counters['vusers.created_by_name.reactive'] || 0, overview_load_ms: pick('browser.step.overview_reactive'), live_load_ms: pick('browser.step.live_reactive'), data_age_ms: pick('browser.data_age_ms.reactive') },
      method: { users: s.counters['vusers.created_by_name.method'] || 0, overview_load_ms: pick('browser.step.overview_method'), live_load_ms: pick('browser.step.live_method'), data_age_ms: pick('browser.data_age_ms.method') },
    },
    server: summarize(series.server, run.startedAt, run.endedAt),
  };
}

runStudy('delivery', async (study) => {
  const load = study.quick
    ? { userLevels: [10, 40], rampS: 10, holdS: 40, warmupS: 10, browserUsers: 4, browserHoldS: 15 }
    : { userLevels: [10, 40], rampS: 15, holdS: 75, warmupS: 15, browserUsers: 8, browserHoldS: 30 };
  const levels = [];
  for (const users of load.userLevels) {
    const level = { users };
    for (const path of ['reactive', 'method']) {
      level[path] = await runPath(study, path, { ...load, users });
      const p = level[path];
      study.log(`${users} users, ${path}: p99 ${p.delay_p99_ms} ms, ${p.updates_per_s} updates/s, server CPU ${p.server_cpu_pct_mean}% (${p.net_cpu_ms_per_update} ms net per update), failed ${p.vusers_failed}`);
    }
    const r = level.reactive;
    const m = level.method;
    level.reactive_to_method_cpu_per_update = r.net_cpu_ms_per_update && m.net_cpu_ms_per_update ? round(r.net_cpu_ms_per_update / m.net_cpu_ms_per_update, 3) : null;
    level.reactive_to_method_cpu_per_user_s = r.net_cpu_ms_per_user_s && m.net_cpu_ms_per_user_s ? round(r.net_cpu_ms_per_user_s / m.net_cpu_ms_per_user_s, 3) : null;
    levels.push(level);
  }
  const browser = process.argv.includes('--no-browser') ? { skipped: '--no-browser' } : await runBrowser(study, load);
  return {
    settings: {
      ingest_per_s: INGEST_PER_S,
      websocket_compression: DEFAULT_PRESET,
      dashboard: 'view.stats, view.nodes, view.rf, view.topology, view.channels {} + live feed (packets.live / view.packets {limit: 16})',
      method_refresh_ms: 2000,
      ...load,
    },
    levels,
    targets: {
      cpu_per_update_half_of_method: {
        target: 'reactive net server CPU per delivered update <= 0.5 x method, at the same offered load',
        measured: Object.fromEntries(levels.map((l) => [`${l.users}_users`, l.reactive_to_method_cpu_per_update])),
        met: levels.every((l) => l.reactive_to_method_cpu_per_update !== null && l.reactive_to_method_cpu_per_update <= 0.5),
      },
    },
    browser,
  };
});
