#!/usr/bin/env node
'use strict';
/**
 * Reactive vs method delivery at equal offered load: `npm run bench:delivery` (`-- --quick`).
 *
 * For each path, a fresh production server (core 0) ingests the simulator's 50 packets/s; after
 * a warm-up, tests/artillery/dashboard.yml (core 1) opens the same dashboard for the same users
 * with the same phases: `reactive` subscribes to the views and the live feed, `method` calls
 * them every 2000 ms like the UI's method mode. Server CPU and RSS are sampled every second.
 * Users: 10, 40 and 200. Full runs alternate the two paths for ROUNDS rounds per level and
 * report the median ratio with its spread; a ratio is never taken from a run where either side
 * fell behind (failed users, a saturated server or load generator, p99 over 2 s) or whose net
 * CPU is within the idle floor's noise: the level then says why instead. Delays are compared
 * only from rounds where, besides, the load core had room (≥ 95% busy delays the clients). The quick run is one round, no browser, one
 * server per path for its three levels (≤ 4 min).
 * Then (full runs, or --browser), if Chromium is installed, tests/artillery/browser.yml opens
 * the real UI in both modes.
 * Writes benchmarks/results/latest/delivery(-quick).json; render.js turns it into DELIVERY.md + PNGs
 * beside it (ignored). `npm run bench:publish` copies it into the tracked benchmarks/results/.
 */
const fs = require('fs');
const { runStudy, sleep } = require('./lib/study');
const { runArtillery } = require('./lib/artillery');
const { startSampler, cpuSeconds, summarize, coreTimes, coreBusyPct } = require('./lib/sampler');
const { SERVER_CPU, LOAD_CPU } = require('./lib/study');
const { websocketCompressionEnv, DEFAULT_PRESET } = require('../imports/core/compression');

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const INGEST_PER_S = 50;
const round = (value, digits = 2) => (value === null || value === undefined || !Number.isFinite(value) ? null : Math.round(value * 10 ** digits) / 10 ** digits);

// `--shared off`: Meteor's own per-session serialization and deflate (the A/B baseline).
const SHARED_OFF = process.argv.includes('--shared') && process.argv[process.argv.indexOf('--shared') + 1] === 'off';

function compressionEnv(bundle) {
  const value = websocketCompressionEnv(DEFAULT_PRESET, bundle.meteorVersion);
  const shared = SHARED_OFF ? { MESHPULSE_SHARED_SEND: 'off', MESHPULSE_SHARED_DEFLATE: 'off' } : {};
  return value === undefined ? shared : { ...shared, SERVER_WEBSOCKET_COMPRESSION: value };
}

/** Server CPU % with no client at all: the ingest floor both paths pay. */
async function idleCpu(pid, seconds) {
  const before = cpuSeconds(pid);
  await sleep(seconds * 1000);
  return ((cpuSeconds(pid) - before) / seconds) * 100;
}

async function startPathServer(study, path, load) {
  const bundle = await study.bundle();
  const server = await study.startServer({
    settings: { sources: { simulator: { enabled: true, ratePerSecond: INGEST_PER_S } } },
    env: compressionEnv(bundle),
  });
  study.log(`${path}: server ${server.url} (pid ${server.pid}); warming up ${load.warmupS} s with ingest only`);
  await sleep(load.warmupS * 1000);
  return server;
}

// Quick runs keep one server per path for all user levels (levels run one path at a time, so
// no second server shares the core): three fewer server start-ups per path keep the quick
// study under 4 minutes. Full runs start a fresh server per run.
const quickServers = new Map();

async function serverFor(study, path, load) {
  if (!study.quick) return { server: await startPathServer(study, path, load), shared: false };
  if (!quickServers.has(path)) {
    for (const [other, server] of quickServers) {
      await server.stop();
      quickServers.delete(other);
    }
    quickServers.set(path, await startPathServer(study, path, load));
  }
  return { server: quickServers.get(path), shared: true };
}

async function runPath(study, path, load) {
  const { server, shared } = await serverFor(study, path, load);
  const idleBeforePct = await idleCpu(server.pid, load.idleS);
  const sampler = startSampler({ server: server.pid });
  const cpuBefore = cpuSeconds(server.pid);
  const coresBefore = coreTimes();
  study.log(`${path}: ${load.users} users over ${load.rampS} s, each for ${load.holdS} s`);
  const run = await runArtillery({
    script: 'dashboard.yml',
    scenario: path,
    target: server.wsUrl,
    phases: [{ name: `${load.users} dashboards`, duration: load.rampS, arrivalCount: load.users }],
    // Nothing is recorded until every user has arrived: the steady state, not the arrival storm
    // (bench:capacity measures storms).
    variables: { holdSeconds: load.holdS, warmupSeconds: load.rampS + 2, refreshMs: 2000, liveLimit: 16 },
    onStart: (pid) => sampler.watch('load', pid),
    label: path,
  });
  const cpuAfter = cpuSeconds(server.pid);
  const coresAfter = coreTimes();
  const loadCoreBusy = coreBusyPct(coresBefore, coresAfter, LOAD_CPU);
  const serverCoreBusy = coreBusyPct(coresBefore, coresAfter, SERVER_CPU);
  const health = await fetch(`${server.url}/api/health`).then((r) => r.json()).catch(() => null);
  const series = sampler.stop();
  // The ingest-only CPU again once every user has left: the floor is the mean of the two, and
  // their difference is how precisely "net" CPU can be known on this (shared) machine.
  await sleep(1000);
  const idleAfterPct = await idleCpu(server.pid, load.idleS);
  if (!shared) await server.stop();
  const idleCpuPct = (idleBeforePct + idleAfterPct) / 2;
  const idleNoisePct = Math.abs(idleBeforePct - idleAfterPct);

  const durationS = (run.endedAt - run.startedAt) / 1000;
  const serverCpuS = cpuAfter - cpuBefore;
  const netCpuS = Math.max(0, serverCpuS - (idleCpuPct / 100) * durationS);
  const counters = run.summary.counters;
  const updates = counters['ddp.updates'] || 0;
  const created = counters['vusers.created'] || 0;
  const completed = counters['vusers.completed'] || 0;
  const delay = run.summary.summaries['ddp.delivery_delay_ms'] || {};
  const resources = summarize(series.server, run.startedAt, run.endedAt);
  const loadCpu = summarize(series.load || [], run.startedAt, run.endedAt);
  const failed = counters['vusers.failed'] || 0;
  // Why this run cannot be compared (it measured a queue, not the path), or null.
  const behind = [];
  if (failed > 0) behind.push(`${failed} users failed`);
  if ((serverCpuS / durationS) * 100 >= 90) behind.push(`server saturated (${round((serverCpuS / durationS) * 100, 1)}% of its core)`);
  if (loadCpu.cpu_mean !== null && loadCpu.cpu_mean !== undefined && loadCpu.cpu_mean >= 90) behind.push(`load generator saturated (${loadCpu.cpu_mean}%)`);
  // A saturated load core (Artillery itself at 200 users, or other work on a shared machine)
  // delays what the clients see, not what the server spends: it withholds the delay
  // comparison, not the CPU ratio.
  const loadCoreSaturated = loadCoreBusy !== null && loadCoreBusy >= 95 ? `load core ${loadCoreBusy}% busy (Artillery ${loadCpu.cpu_mean}% of it)` : null;
  if (delay.p99 !== undefined && delay.p99 > 2000) behind.push(`delay p99 ${delay.p99} ms > 2000 ms`);
  const netCpuPct = (netCpuS / durationS) * 100;
  // Net CPU no larger than the idle floor's own wobble: too small to compare, not zero.
  const belowResolution = netCpuPct < Math.max(0.5, idleNoisePct) ? `net CPU ${round(netCpuPct, 2)}% of a core is within the idle floor's noise (${round(idleNoisePct, 2)}%)` : null;
  return {
    path,
    fell_behind: behind.length ? behind.join('; ') : null,
    load_core_saturated: loadCoreSaturated,
    passed: run.passed,
    checks: run.checks,
    errors: run.errors,
    users: load.users,
    duration_s: round(durationS, 1),
    server_cpu_s: round(serverCpuS, 2),
    server_cpu_pct_mean: round((serverCpuS / durationS) * 100, 1),
    idle_ingest_cpu_pct: round(idleCpuPct, 1),
    idle_ingest_cpu_pct_before_after: [round(idleBeforePct, 1), round(idleAfterPct, 1)],
    net_cpu_below_resolution: belowResolution,
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
    load_generator_cpu: loadCpu,
    cores_busy_pct: { server: serverCoreBusy, load: loadCoreBusy },
    shared_send: health ? health.sharedSend || null : null,
    shared_deflate: health ? health.sharedDeflate || null : null,
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

const median = (values) => {
  const sorted = values.filter((v) => v !== null && Number.isFinite(v)).sort((x, y) => x - y);
  if (!sorted.length) return null;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const spread = (values) => {
  const kept = values.filter((v) => v !== null && Number.isFinite(v));
  return kept.length ? { min: Math.min(...kept), max: Math.max(...kept), n: kept.length } : null;
};

/** One level: the paths alternated for `rounds` rounds; ratios only from rounds where neither fell behind. */
async function runLevel(study, load, users, alreadyRun = null) {
  const rounds = [];
  for (let i = 0; i < load.rounds; i++) {
    const round_ = { round: i + 1 };
    for (const path of ['reactive', 'method']) {
      round_[path] = alreadyRun ? alreadyRun(path) : await runPath(study, path, { ...load, users });
      const p = round_[path];
      study.log(`${users} users, round ${i + 1}, ${path}: p99 ${p.delay_p99_ms} ms, ${p.updates_per_s} updates/s, server CPU ${p.server_cpu_pct_mean}% (${p.net_cpu_ms_per_user_s} ms net per user·s), failed ${p.vusers_failed}${p.fell_behind ? `, FELL BEHIND: ${p.fell_behind}` : ''}`);
    }
    const r = round_.reactive;
    const m = round_.method;
    const behind = [r.fell_behind && `reactive: ${r.fell_behind}`, m.fell_behind && `method: ${m.fell_behind}`].filter(Boolean);
    const unresolved = [r.net_cpu_below_resolution && `reactive: ${r.net_cpu_below_resolution}`, m.net_cpu_below_resolution && `method: ${m.net_cpu_below_resolution}`].filter(Boolean);
    // fell_behind (either side could not keep up) withholds every comparison; a net CPU too small
    // to measure withholds only the CPU ratio.
    round_.fell_behind = behind.length ? behind.join('; ') : null;
    round_.cpu_not_comparable = round_.fell_behind || (unresolved.length ? unresolved.join('; ') : null);
    round_.cpu_per_user_s_ratio = !round_.cpu_not_comparable && r.net_cpu_ms_per_user_s && m.net_cpu_ms_per_user_s ? round(r.net_cpu_ms_per_user_s / m.net_cpu_ms_per_user_s, 3) : null;
    round_.cpu_per_update_ratio = !round_.cpu_not_comparable && r.net_cpu_ms_per_update && m.net_cpu_ms_per_update ? round(r.net_cpu_ms_per_update / m.net_cpu_ms_per_update, 3) : null;
    const saturated = [r.load_core_saturated && `reactive: ${r.load_core_saturated}`, m.load_core_saturated && `method: ${m.load_core_saturated}`].filter(Boolean);
    round_.load_core_saturated = saturated.length ? saturated.join('; ') : null;
    // Delays compare only where neither side fell behind and the load core had room.
    round_.delays_comparable = !round_.fell_behind && !round_.load_core_saturated;
    rounds.push(round_);
  }
  const valid = rounds.filter((r) => !r.cpu_not_comparable);
  const first = rounds[0];
  return {
    users,
    // The first round's runs (plots and tables); every round is in `rounds`.
    reactive: first.reactive,
    method: first.method,
    rounds: rounds.map((r) => ({ round: r.round, fell_behind: r.fell_behind, cpu_not_comparable: r.cpu_not_comparable, load_core_saturated: r.load_core_saturated, cpu_per_user_s_ratio: r.cpu_per_user_s_ratio, cpu_per_update_ratio: r.cpu_per_update_ratio, reactive: { net_cpu_ms_per_user_s: r.reactive.net_cpu_ms_per_user_s, delay_p99_ms: r.reactive.delay_p99_ms, vusers_failed: r.reactive.vusers_failed, server_cpu_pct_mean: r.reactive.server_cpu_pct_mean }, method: { net_cpu_ms_per_user_s: r.method.net_cpu_ms_per_user_s, delay_p99_ms: r.method.delay_p99_ms, vusers_failed: r.method.vusers_failed, server_cpu_pct_mean: r.method.server_cpu_pct_mean } })),
    valid_rounds: valid.length,
    fell_behind: valid.length ? null : rounds.map((r) => r.cpu_not_comparable).join(' | '),
    reactive_to_method_cpu_per_user_s: round(median(valid.map((r) => r.cpu_per_user_s_ratio)), 3),
    reactive_to_method_cpu_per_user_s_spread: spread(valid.map((r) => r.cpu_per_user_s_ratio)),
    reactive_to_method_cpu_per_update: round(median(valid.map((r) => r.cpu_per_update_ratio)), 3),
    reactive_delay_p99_ms: median(rounds.filter((r) => r.delays_comparable).map((r) => r.reactive.delay_p99_ms)),
    method_delay_p99_ms: median(rounds.filter((r) => r.delays_comparable).map((r) => r.method.delay_p99_ms)),
    delays_not_comparable: rounds.every((r) => !r.delays_comparable) ? rounds.map((r) => r.fell_behind || r.load_core_saturated).join(' | ') : null,
    // Every round's delays, comparable or not, so a reader sees what the clients saw.
    delay_p99_ms_all_rounds: rounds.map((r) => ({ reactive: r.reactive.delay_p99_ms, method: r.method.delay_p99_ms })),
    reactive_failed_users: rounds.reduce((sum, r) => sum + (r.reactive.vusers_failed || 0), 0),
  };
}

runStudy('delivery', async (study) => {
  const load = study.quick
    ? { userLevels: [10, 40, 200], rounds: 1, rampS: 5, holdS: 12, warmupS: 3, idleS: 3, browserUsers: 4, browserHoldS: 15 }
    : { userLevels: [10, 40, 200], rounds: 3, rampS: 10, holdS: 45, warmupS: 10, idleS: 5, browserUsers: 8, browserHoldS: 30 };
  const levels = [];
  if (study.quick) {
    // One round: every level on the reactive server, then every level on the method server.
    const runs = new Map();
    for (const path of ['reactive', 'method']) {
      for (const users of load.userLevels) runs.set(`${path}:${users}`, await runPath(study, path, { ...load, users }));
    }
    for (const server of quickServers.values()) await server.stop();
    quickServers.clear();
    for (const users of load.userLevels) levels.push(await runLevel(study, load, users, (path) => runs.get(`${path}:${users}`)));
  } else {
    for (const users of load.userLevels) levels.push(await runLevel(study, load, users));
  }
  const wantBrowser = !process.argv.includes('--no-browser') && (!study.quick || process.argv.includes('--browser'));
  const browser = wantBrowser ? await runBrowser(study, load) : { skipped: study.quick ? 'quick run (add --browser)' : '--no-browser' };
  const at = (users) => levels.find((l) => l.users === users) || null;
  const perLevel = (fn) => Object.fromEntries(levels.map((l) => [`${l.users}_users`, fn(l)]));
  return {
    settings: {
      ingest_per_s: INGEST_PER_S,
      websocket_compression: DEFAULT_PRESET,
      shared_send_and_deflate: SHARED_OFF ? 'off (--shared off: Meteor\'s per-session path)' : 'on',
      dashboard: 'view.stats, view.nodes, view.rf, view.topology, view.channels {} + live feed (packets.live / view.packets {limit: 16})',
      method_refresh_ms: 2000,
      ...load,
    },
    levels,
    targets: {
      cpu_per_user_s_half_of_method: {
        target: 'reactive net server CPU per user·second <= 0.5 x method, at 10, 40 and 200 users (median of the rounds where neither side fell behind)',
        measured: perLevel((l) => l.reactive_to_method_cpu_per_user_s),
        fell_behind: perLevel((l) => l.fell_behind),
        met: levels.every((l) => l.reactive_to_method_cpu_per_user_s !== null && l.reactive_to_method_cpu_per_user_s <= 0.5),
      },
      data_age_p99_not_worse: {
        target: 'reactive update delay p99 <= method data age p99 at every level',
        measured: perLevel((l) => ({ reactive: l.reactive_delay_p99_ms, method: l.method_delay_p99_ms })),
        not_comparable: perLevel((l) => l.delays_not_comparable),
        met: levels.every((l) => l.reactive_delay_p99_ms !== null && l.method_delay_p99_ms !== null && l.reactive_delay_p99_ms <= l.method_delay_p99_ms),
      },
      no_drops_200: {
        target: '0 reactive connections dropped at 200 users',
        measured: at(200) ? at(200).reactive_failed_users : null,
        met: at(200) ? at(200).reactive_failed_users === 0 : null,
      },
    },
    browser,
  };
});
