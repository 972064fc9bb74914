#!/usr/bin/env node
'use strict';
/**
 * Connection capacity per minute, for each path: `npm run bench:capacity` (`-- --quick`).
 *
 * A fresh server per path (core 0, simulator 50 packets/s). New DDP connections per minute are
 * stepped up as in Meteor's performance report; each step starts rate x step / 60 users evenly
 * over the step (core 1), and every user does what a user of tests/artillery/ramp.yml does:
 * connects, opens the dashboard (reactive: subscribes to every view until every `ready`;
 * method: calls them, then each again 2 s after its answer), keeps it 5 s, leaves. A step
 * passes when ramp.yml's `ensure` checks hold: no failed user, dashboard ready p99 < 2 s,
 * ingest -> arrival p99 < 1 s (storm also: connecting p99 < 2 s, and, reactive, every user saw
 * an update while holding). The study stops at the first failing step (--keep-going: all).
 * Capacity = the highest rate that passed. Full runs alternate the paths for 3 rounds (reactive, method, reactive,
 * ...) and report the median with its spread; the quick run is one round of 3,000, 4,800, 7,200
 * and 9,600/min, 10 s steps (≤ 4 min).
 *
 * Load generators (--generator=):
 *   storm      (default) benchmarks/lib/storm-pool.js: a few DDP processes on the load core
 *              (--workers=N, default 3) on a bare websocket client (storm-socket.js) that
 *              inflates each distinct compressed message once per process: ~3-6 ms of CPU per
 *              user against Artillery's ~40 ms (same users, same bytes received).
 *   artillery  tests/artillery/ramp.yml, one Artillery run per step (as before): at 3,000/min
 *              it held its core at 100% while the server used at most 42% of its own.
 * `--cross-check` adds, per path, one Artillery step at the lowest rate after the storm series,
 * in the same server, to compare the two generators' figures.
 * Either way the generator's CPU is recorded, and a failed step while the generator (or its
 * core) was saturated is INCONCLUSIVE, not a failure of the server: see fellBehind().
 *
 * Development flags: --rates=1500,3000 (per minute), --paths=reactive, --step-s=N, --rounds=N.
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const { runStudy, sleep, StudyError } = require('./lib/study');
const { runArtillery, ARTILLERY_DIR } = require('./lib/artillery');
const { startSampler, cpuSeconds, summarize, coreTimes, coreBusyPct } = require('./lib/sampler');
const { SERVER_CPU, LOAD_CPU } = require('./lib/study');
const { startStormPool, DEFAULT_WORKERS } = require('./lib/storm-pool');
const { websocketCompressionEnv, DEFAULT_PRESET } = require('../imports/core/compression');

const INGEST_PER_S = 50;
const HOLD_S = 5;
const REFRESH_MS = 2000;
const LIVE_LIMIT = 16;
// The load generator counts as saturated when its per-second CPU stayed at or above this...
const SATURATED_CPU_PCT = 95;
// ...for at least this many consecutive samples: its users' arrivals were measured, not the server.
const SATURATED_RUN_S = 3;
// ...or when its core was this busy over the step, whoever used it.
const LOAD_CORE_BUSY_PCT = 90;
// ...or (storm) when its event loop was this late at p99: every timing it took carries that much.
const GENERATOR_LOOP_DELAY_P99_MS = 250;

const round = (value, digits = 2) => (value === null || value === undefined || !Number.isFinite(value) ? null : Math.round(value * 10 ** digits) / 10 ** digits);
const loadAverage = () => os.loadavg().map((v) => round(v, 2));

/** ramp.yml's `ensure` thresholds (one source for both generators): { readyP99Ms, delayP99Ms }. */
function rampThresholds() {
  const text = fs.readFileSync(path.join(ARTILLERY_DIR, 'ramp.yml'), 'utf8');
  const read = (metric) => {
    const match = new RegExp(`"${metric.replace(/\./g, '\\.')}\\.p99":\\s*(\\d+)`).exec(text);
    if (!match) throw new StudyError(`tests/artillery/ramp.yml has no ensure threshold for ${metric}.p99`);
    return Number(match[1]);
  };
  return { readyP99Ms: read('ddp.dashboard_ready_ms'), delayP99Ms: read('ddp.delivery_delay_ms') };
}

/** Seconds (samples) of `series` in [from, to] at >= SATURATED_CPU_PCT: { seconds, longest }. */
function saturatedSeconds(series, from, to) {
  let seconds = 0;
  let longest = 0;
  let current = 0;
  for (const sample of series) {
    if (sample.t < from || sample.t > to) continue;
    if (sample.cpu >= SATURATED_CPU_PCT) {
      seconds++;
      current++;
      longest = Math.max(longest, current);
    } else {
      current = 0;
    }
  }
  return { seconds, longest };
}

/**
 * Why a step's figures measured the load generator or a busy machine rather than the server,
 * or null. Only asked of a failed step: a step that passed despite a busy generator passed.
 */
function fellBehind(step) {
  const reasons = [];
  if (step.load_core_busy_pct !== null && step.load_core_busy_pct >= LOAD_CORE_BUSY_PCT) {
    reasons.push(`load core ${step.load_core_busy_pct}% busy (generator ${step.load_cpu.cpu_mean}% mean)`);
  } else if (step.load_saturated_longest_s >= SATURATED_RUN_S) {
    reasons.push(`load generator at >= ${SATURATED_CPU_PCT}% of its core for ${step.load_saturated_longest_s} s in a row (${step.load_saturated_s} s in all; the server at most ${step.server_cpu_max_pct}%)`);
  }
  if (step.generator.loop_delay_p99_ms !== null && step.generator.loop_delay_p99_ms >= GENERATOR_LOOP_DELAY_P99_MS) {
    reasons.push(`load generator's event loop ${step.generator.loop_delay_p99_ms} ms late at p99`);
  }
  if (step.server_core_busy_pct !== null && step.server_core_busy_pct >= 90 && step.server_core_busy_pct - step.server_cpu_pct >= 20) {
    reasons.push(`server core ${step.server_core_busy_pct}% busy, the server ${step.server_cpu_pct}% of it`);
  }
  return reasons.length ? reasons.join('; ') : null;
}

async function sessions(url) {
  try {
    const health = await fetch(`${url}/api/health`).then((r) => r.json());
    return health.sessions;
  } catch (err) {
    return null;
  }
}

/** One step with the storm generator: the figures every step has, generator-neutral names. */
async function stormStep({ pool, server, path: userPath, perMinute, stepS, thresholds }) {
  const run = await pool.runStep({ url: server.wsUrl, path: userPath, perMinute, stepS, user: { holdMs: HOLD_S * 1000, refreshMs: REFRESH_MS, liveLimit: LIVE_LIMIT } });
  const t = run.timings;
  const checks = [
    { ok: run.failed === 0, check: 'vusers.failed == 0' },
    { ok: t.ready_ms.p99 !== null && t.ready_ms.p99 < thresholds.readyP99Ms, check: `ddp.dashboard_ready_ms.p99 < ${thresholds.readyP99Ms}` },
    // As Artillery: a threshold on a metric nobody recorded fails.
    { ok: t.delay_ms.p99 !== null && t.delay_ms.p99 < thresholds.delayP99Ms, check: `ddp.delivery_delay_ms.p99 < ${thresholds.delayP99Ms}` },
  ];
  // A user who waited seconds for the websocket did not get a dashboard in time either, though
  // ramp.yml's ready clock starts at the first subscribe: the storm holds connecting to the same bound.
  checks.push({ ok: t.joined_ms.p99 !== null && t.joined_ms.p99 < thresholds.readyP99Ms, check: `connect (TCP + websocket + DDP connected) p99 < ${thresholds.readyP99Ms}` });
  if (userPath === 'reactive') checks.push({ ok: run.without_update === 0, check: 'every user saw a view update while holding' });
  return {
    startedAt: run.started_at,
    endedAt: run.ended_at,
    passed: checks.every((c) => c.ok),
    checks,
    vusers_created: run.created,
    vusers_completed: run.completed,
    vusers_failed: run.failed,
    vusers_without_update: userPath === 'reactive' ? run.without_update : null,
    errors: run.errors,
    connect_p99_ms: t.connect_ms.p99,
    // storm only: TCP + websocket handshake (open), DDP connect -> connected, and the two together (joined).
    connect: { open_p50_ms: t.open_ms.p50, open_p99_ms: t.open_ms.p99, ddp_p50_ms: t.connect_ms.p50, ddp_p99_ms: t.connect_ms.p99, joined_p99_ms: t.joined_ms.p99, joined_max_ms: t.joined_ms.max },
    ready_p50_ms: t.ready_ms.p50,
    ready_p99_ms: t.ready_ms.p99,
    delay_p99_ms: t.delay_ms.p99,
    first_update_p99_ms: userPath === 'reactive' ? t.first_update_ms.p99 : null,
    method_latency_p99_ms: userPath === 'method' ? t.method_latency_ms.p99 : null,
    updates: run.counters.updates,
    bytes_payload: run.counters.bytes_payload,
    bytes_wire: run.counters.bytes_wire,
    generator: {
      name: 'storm',
      workers: pool.workers,
      cpu_s: run.cpu_s,
      // Per user: what makes the two generators comparable.
      cpu_ms_per_user: run.created ? round((run.cpu_s * 1000) / run.created, 2) : null,
      loop_delay_p99_ms: run.loop_delay_p99_ms,
      loop_delay_max_ms: run.loop_delay_max_ms,
      arrival_lag_p99_ms: run.timings.arrival_lag_ms.p99,
      arrival_lag_max_ms: run.timings.arrival_lag_ms.max,
      max_open_users: run.max_open,
      // storm-socket.js: compressed messages read from the process cache / inflated / inflated with a window / stored blocks.
      inflate: run.inflate,
    },
  };
}

/** One step as one Artillery run of ramp.yml (the previous generator; cross-check). */
async function artilleryStep({ server, path: userPath, perMinute, stepS, sampler }) {
  const users = Math.round((perMinute * stepS) / 60);
  let pid = null;
  const run = await runArtillery({
    script: 'ramp.yml',
    scenario: userPath,
    target: server.wsUrl,
    phases: [{ name: `${perMinute}/min`, duration: stepS, arrivalCount: users }],
    variables: { holdSeconds: HOLD_S, warmupSeconds: 0, refreshMs: REFRESH_MS, liveLimit: LIVE_LIMIT },
    onStart: (started) => { pid = started; sampler.watch('artillery', started); },
    label: `${userPath} ${perMinute}/min`,
  });
  const c = run.summary.counters;
  const s = run.summary.summaries;
  const p = (name, key) => (s[name] ? s[name][key] : null);
  return {
    startedAt: run.startedAt,
    endedAt: run.endedAt,
    passed: run.passed && (c['vusers.failed'] || 0) === 0,
    checks: run.checks,
    vusers_created: c['vusers.created'] || 0,
    vusers_completed: c['vusers.completed'] || 0,
    vusers_failed: c['vusers.failed'] || 0,
    vusers_without_update: null,
    errors: run.errors,
    connect_p99_ms: p('ddp.connect_ms', 'p99'),
    connect: null,
    ready_p50_ms: p('ddp.dashboard_ready_ms', 'p50'),
    ready_p99_ms: p('ddp.dashboard_ready_ms', 'p99'),
    delay_p99_ms: p('ddp.delivery_delay_ms', 'p99'),
    first_update_p99_ms: null,
    method_latency_p99_ms: p('ddp.method_latency_ms', 'p99'),
    updates: c['ddp.updates'] || 0,
    bytes_payload: c['ddp.bytes_payload'] || 0,
    bytes_wire: c['ddp.bytes_wire'] || 0,
    generator: { name: 'artillery', workers: 1, pid, cpu_s: null, cpu_ms_per_user: null, loop_delay_p99_ms: null, loop_delay_max_ms: null, arrival_lag_p99_ms: null, arrival_lag_max_ms: null, max_open_users: null },
  };
}

/**
 * A per-second CPU series of the storm workers, in the sampler's shape ({ t, cpu }), so one
 * saturation rule reads either generator.
 */
function trackPoolCpu(pool) {
  const series = [];
  let last = { t: Date.now(), cpu: pool.cpuSeconds() };
  const timer = setInterval(() => {
    const now = { t: Date.now(), cpu: pool.cpuSeconds() };
    series.push({ t: now.t, cpu: round(((now.cpu - last.cpu) / ((now.t - last.t) / 1000)) * 100, 1), rssMB: null });
    last = now;
  }, 1000);
  return { series, stop: () => clearInterval(timer) };
}

async function runPath(study, userPath, { rates, stepS, generator, pool, crossCheck, thresholds }) {
  const bundle = await study.bundle();
  const compression = websocketCompressionEnv(DEFAULT_PRESET, bundle.meteorVersion);
  const server = await study.startServer({
    settings: { sources: { simulator: { enabled: true, ratePerSecond: INGEST_PER_S } } },
    env: compression === undefined ? {} : { SERVER_WEBSOCKET_COMPRESSION: compression },
  });
  await sleep(10000);
  const sampler = startSampler({ server: server.pid });
  const poolCpu = pool ? trackPoolCpu(pool) : null;
  const t0 = Date.now();
  const steps = [];
  let capacity = 0;
  let crossCheckStep = null;

  const measure = async (perMinute, which) => {
    const cpu0 = cpuSeconds(server.pid);
    const cores0 = coreTimes();
    const load_average_start = loadAverage();
    const generatorCpu0 = which === 'storm' ? pool.cpuSeconds() : null;
    const run = which === 'storm'
      ? await stormStep({ pool, server, path: userPath, perMinute, stepS, thresholds })
      : await artilleryStep({ server, path: userPath, perMinute, stepS, sampler });
    const elapsed = (run.endedAt - run.startedAt) / 1000;
    const cpuS = cpuSeconds(server.pid) - cpu0;
    const cores1 = coreTimes();
    const loadSeries = which === 'storm' ? poolCpu.series : (sampler.series.artillery || []);
    const { startedAt, endedAt, ...figures } = run;
    // The whole generator's CPU over the step (storm: every worker, from /proc, IPC included).
    // Artillery: its per-second samples' mean over the run (its process ends with the step).
    const loadCpu = summarize(loadSeries, startedAt, endedAt);
    if (which === 'storm') figures.generator.cpu_s = round(pool.cpuSeconds() - generatorCpu0, 2);
    else figures.generator.cpu_s = loadCpu.cpu_mean === null ? null : round((loadCpu.cpu_mean / 100) * elapsed, 2);
    if (figures.generator.cpu_s !== null) figures.generator.cpu_ms_per_user = figures.vusers_created ? round((figures.generator.cpu_s * 1000) / figures.vusers_created, 2) : null;
    const saturated = saturatedSeconds(loadSeries, startedAt, endedAt);
    const resources = summarize(sampler.series.server, startedAt, endedAt);
    const step = {
      per_minute: perMinute,
      users: Math.round((perMinute * stepS) / 60),
      ...figures,
      server_cpu_pct: round((cpuS / elapsed) * 100, 1),
      server_cpu_max_pct: resources.cpu_max,
      rss_max_mb: resources.rss_max_mb,
      // The generator's per-second CPU (% of one core) over the step, whatever the generator.
      load_cpu: loadCpu,
      // Whole-core busy %, whoever used it (other work on a shared machine included).
      load_core_busy_pct: coreBusyPct(cores0, cores1, LOAD_CPU),
      server_core_busy_pct: coreBusyPct(cores0, cores1, SERVER_CPU),
      load_saturated_s: saturated.seconds,
      load_saturated_longest_s: saturated.longest,
      load_average_start,
      t_start: startedAt - t0,
      t_end: endedAt - t0,
    };
    step.fell_behind = step.passed ? null : fellBehind(step);
    study.log(`${userPath} ${perMinute}/min [${which}]: ${step.passed ? 'passed' : step.fell_behind ? `INCONCLUSIVE (${step.fell_behind})` : `FAILED (${step.checks.filter((c) => !c.ok).map((c) => c.check).join('; ')})`} (users ${step.vusers_created}, failed ${step.vusers_failed}${Object.keys(step.errors).length ? ` ${JSON.stringify(step.errors).slice(0, 300)}` : ''}, connect p99 ${step.connect_p99_ms} ms${step.connect ? ` (websocket open p50/p99 ${step.connect.open_p50_ms}/${step.connect.open_p99_ms} ms before it)` : ''}, ready p50/p99 ${step.ready_p50_ms}/${step.ready_p99_ms} ms, delay p99 ${step.delay_p99_ms} ms, server CPU ${step.server_cpu_pct}% (max ${step.server_cpu_max_pct}%), generator ${step.load_cpu.cpu_mean}% mean / ${step.load_cpu.cpu_max}% max, ${step.generator.cpu_ms_per_user} ms CPU per user, cores busy: server ${step.server_core_busy_pct}%, load ${step.load_core_busy_pct}%, load avg ${load_average_start.join(' ')})`);
    // Let the step's users leave before anything else starts.
    const deadline = Date.now() + 20000;
    while (Date.now() < deadline && (await sessions(server.url)) > 0) await sleep(250);
    return step;
  };

  try {
    for (const perMinute of rates) {
      const step = await measure(perMinute, generator);
      steps.push(step);
      if (step.passed) capacity = perMinute;
      else if (!study.flags.includes('--keep-going')) break;
    }
    if (crossCheck) crossCheckStep = await measure(rates[0], 'artillery');
  } finally {
    if (poolCpu) poolCpu.stop();
    const series = sampler.stop();
    await server.stop();
    steps.series = { server: series.server, load: poolCpu ? poolCpu.series : (series.artillery || []) };
  }
  // Every step passed: the capacity is at least the last rate tried, not exactly it.
  const capped = steps.length === rates.length && steps.every((step) => step.passed);
  const firstFailure = steps.find((step) => !step.passed) || null;
  return {
    path: userPath,
    generator,
    capacity_per_minute: capacity,
    capped_by_plan: capped,
    first_failure_fell_behind: firstFailure ? firstFailure.fell_behind : null,
    steps,
    cross_check: crossCheckStep,
    series: { t0, server: steps.series.server, load: steps.series.load },
  };
}

function flagValue(flags, name) {
  const flag = flags.find((f) => f.startsWith(`--${name}=`));
  return flag ? flag.slice(name.length + 3) : null;
}

runStudy('capacity', async (study) => {
  const flags = study.flags;
  const generator = flagValue(flags, 'generator') || 'storm';
  if (!['storm', 'artillery'].includes(generator)) throw new StudyError(`--generator=${generator}: use storm or artillery`);
  const plan = study.quick
    ? { rates: [3000, 4800, 7200, 9600], stepS: 10, rounds: 1 }
    : { rates: [180, 300, 600, 1000, 1500, 2400, 3000, 3600, 4800, 6000, 7200, 9600, 12000, 15000], stepS: 15, rounds: 3 };
  if (flagValue(flags, 'rates')) plan.rates = flagValue(flags, 'rates').split(',').map(Number);
  if (flagValue(flags, 'step-s')) plan.stepS = Number(flagValue(flags, 'step-s'));
  if (flagValue(flags, 'rounds')) plan.rounds = Number(flagValue(flags, 'rounds'));
  const paths = (flagValue(flags, 'paths') || 'reactive,method').split(',');
  const workers = Number(flagValue(flags, 'workers')) || DEFAULT_WORKERS;
  const crossCheck = flags.includes('--cross-check');
  const thresholds = rampThresholds();
  const loadStart = loadAverage();
  // The storm processes stay up for the whole study (idle between steps); Artillery starts per step.
  const pool = generator === 'storm' ? await startStormPool({ workers, cpu: LOAD_CPU }) : null;
  if (pool) study.onCleanup(() => pool.close());

  const rounds = [];
  for (let i = 0; i < plan.rounds; i++) {
    const round_ = {};
    for (const userPath of paths) round_[userPath] = await runPath(study, userPath, { ...plan, generator, pool, crossCheck, thresholds });
    rounds.push(round_);
  }
  const median = (values) => {
    const sorted = values.slice().sort((a, b) => a - b);
    return sorted[Math.floor((sorted.length - 1) / 2)];
  };
  const summary = (userPath) => {
    if (!rounds[0][userPath]) return null;
    const values = rounds.map((r) => r[userPath].capacity_per_minute);
    return { median: median(values), min: Math.min(...values), max: Math.max(...values), rounds: values };
  };
  const reactive = summary('reactive');
  const method = summary('method');
  return {
    settings: {
      ingest_per_s: INGEST_PER_S,
      hold_s: HOLD_S,
      step_s: plan.stepS,
      rates_per_minute: plan.rates,
      rounds: plan.rounds,
      paths,
      websocket_compression: DEFAULT_PRESET,
      thresholds: `vusers.failed == 0, dashboard ready p99 < ${thresholds.readyP99Ms} ms, ingest -> arrival p99 < ${thresholds.delayP99Ms} ms (tests/artillery/ramp.yml)${generator === 'storm' ? `; connect (TCP + websocket + DDP connected) p99 < ${thresholds.readyP99Ms} ms; reactive: every user saw a view update while holding` : ''}`,
      // Which load generator produced the figures, and the rule that makes a failed step inconclusive.
      generator: generator === 'storm'
        ? { name: 'storm', description: `benchmarks/lib/storm-pool.js: ${workers} DDP processes pinned to core ${LOAD_CPU} (bare websocket client, storm-socket.js), the users of tests/artillery/ramp.yml`, workers }
        : { name: 'artillery', description: `tests/artillery/ramp.yml, one Artillery run per step, pinned to core ${LOAD_CPU}`, workers: 1 },
      cross_check: crossCheck ? `one Artillery step at ${plan.rates[0]}/min per path after the storm series, same server` : null,
      inconclusive_when: `a failed step while: the load core >= ${LOAD_CORE_BUSY_PCT}% busy, or the generator >= ${SATURATED_CPU_PCT}% of its core for >= ${SATURATED_RUN_S} s in a row, or (storm) its event loop >= ${GENERATOR_LOOP_DELAY_P99_MS} ms late at p99, or the server's core >= 90% busy with the server >= 20 points below it`,
    },
    load_average_start: loadStart,
    // The first round's runs in full (steps, series); every round's capacity in `capacity`.
    reactive: rounds[0].reactive || null,
    method: rounds[0].method || null,
    capacity: { reactive, method },
    rounds: rounds.map((r, i) => ({ round: i + 1, reactive: r.reactive ? r.reactive.capacity_per_minute : null, method: r.method ? r.method.capacity_per_minute : null, reactive_first_failure_fell_behind: r.reactive ? r.reactive.first_failure_fell_behind : null, method_first_failure_fell_behind: r.method ? r.method.first_failure_fell_behind : null })),
    targets: {
      reactive_3000: {
        target: '>= 3,000 new reactive DDP connections per minute with no failure (median of the rounds; method beside it)',
        generator,
        measured: { reactive: reactive && reactive.median, reactive_spread: reactive && [reactive.min, reactive.max], method: method && method.median, method_spread: method && [method.min, method.max] },
        // Set when the reactive series stopped at a step where the load generator, not the server, fell behind.
        inconclusive: rounds.map((r) => r.reactive && r.reactive.first_failure_fell_behind).filter(Boolean)[0] || null,
        met: reactive ? reactive.median >= 3000 : null,
      },
    },
  };
});
