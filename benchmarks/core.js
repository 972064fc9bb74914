#!/usr/bin/env node
'use strict';
/**
 * Core engine benchmark: `npm run bench:core` (one million reports per mesh) or `-- --quick` (100k).
 *
 * Measures, on the simulator's traffic, in one process on one core, for both mesh profiles
 * (`default`: 176 nodes, 8 observers; `large`: 5,200 nodes, 64 observers, 1/2/3-byte hashes):
 *   decode_only_per_s   decodePacket alone over the same reports
 *   ingest_per_s        decode + verify + dedup + store + every view, over the whole run
 *   ingest_flatness     ingest rate of the last fifth / the first fifth
 *   bytes_per_packet    memory growth after GC with everything stored (V8 heap + ArrayBuffer
 *                       contents), per ingested report; bytes_per_packet_array_buffers: the latter alone
 *   views.<name>        snapshot latency p50/p99 at 28k reports and at the full size
 *   ingest_rounds       the two ingest ratios again (large / default, default / reference decode)
 *                       in 5 rounds of 1M reports per mesh, the issue's scale (3 of 100k with --quick; --rounds=N,
 *                       --round-reports=N), each mesh in a fresh process, order alternating:
 *                       medians and ranges, and the large / default ratio per report + hop
 *   cost_shares         where ingest time goes (decode, store, each view, GC), from V8's CPU
 *                       profiler over 200k of 300k reports per mesh (--only=costs alone); then
 *                       .allocation: bytes allocated per report (what the GC must deal with)
 *                       and the functions allocating most, from V8's sampling heap profiler
 *                       over the next 100k reports
 * Then:
 *   advert_verification   ingest with and without Ed25519 advert checks (default mesh)
 *   hostile               each hostile stream under 16 MB and 256 MB budgets: heap after GC
 *                         against the budget, rejections by reason, and for random-key adverts
 *                         the ingest rate after 100k distinct keys against the first 5k's
 *   memory_calibration    the engine's own memory estimate against the heap it measured
 * Rates are computed from this process's CPU time (user + system), not wall time: the machine
 * is shared and noisy, and CPU time is what "packets per second on one core" means.
 * Writes benchmarks/results/latest/core(-quick).json and CORE.md beside it (not tracked;
 * `npm run bench:publish` commits them). "Packet" = one observer report (one MQTT message).
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const { createSimulator } = require('../imports/core/simulate');
const { parseObserverMessage } = require('../imports/core/observer-message');
const { simulatedReports } = require('./lib/simulated-reports');
const { decodePacket, signatureChecks } = require('../imports/core/decode');
const { referenceDecodeRates, referenceDecodeWithKeysRate, cpuSeconds } = require('./lib/reference-decode');
const { createEngine } = require('../imports/core/engine');
const { threadCpuSeconds, helperShare } = require('./lib/sampler');
const { percentile, median, renderCoreReport, perReportAndHop } = require('./lib/report');
const { writeResult, writeResultFile, readResult, partsFrom } = require('./lib/results');
const { hostileStream } = require('../imports/core/simulate/hostile');
const { keyPairFromSeed } = require('../imports/core/simulate/packets');
const { resolvePath } = require('../imports/core/hop-resolver');
const crypto = require('crypto');
const { spawnSync } = require('child_process');
const { backend: ed25519Backend, createVerifier } = require('../imports/core/ed25519');

const quick = process.argv.includes('--quick');
const only = (process.argv.find((arg) => arg.startsWith('--only=')) || '').slice(7) || null; // profiles | rounds | costs | hostile | hops | verification
// Development flags (a published run uses none): --profile=default|large measures that mesh alone
// (no advert-verification or hop-resolution part), --reports=N ingests N reports per mesh, and
// --out=FILE writes the JSON there (nothing under benchmarks/results/, no merge with a previous run).
const argValue = (name) => (process.argv.find((arg) => arg.startsWith(`--${name}=`)) || '').slice(name.length + 3) || null;
const onlyProfile = argValue('profile');
const reportsArg = argValue('reports');
const outFile = argValue('out');
if (onlyProfile !== null && !['default', 'large'].includes(onlyProfile)) throw new Error(`--profile must be default or large, not ${onlyProfile}`);
if (reportsArg !== null && !(Number.isInteger(Number(reportsArg)) && Number(reportsArg) >= 50000)) throw new Error(`--reports must be an integer of at least 50000, not ${reportsArg}`);
const TOTAL = reportsArg !== null ? Number(reportsArg) : quick ? 100000 : 1000000;
const SMALL = 28000;
const FIFTHS = 5;
const SNAPSHOT_RUNS = quick ? 50 : 100;
// Reports generated past TOTAL for the final snapshots (one per snapshot; ~30 views x params x runs).
const SNAPSHOT_HOLDOUT = 8000;
const PROFILES = onlyProfile !== null ? [onlyProfile] : ['default', 'large'];
// Ingest rounds (see measureIngestRounds): --rounds=N (0: none), each of ROUND_REPORTS per mesh.
const roundsArg = argValue('rounds');
if (roundsArg !== null && !(Number.isInteger(Number(roundsArg)) && Number(roundsArg) >= 0)) throw new Error(`--rounds must be a whole number, not ${roundsArg}`);
const ROUNDS = roundsArg !== null ? Number(roundsArg) : quick ? 3 : 5;
// --round-reports=N: reports per mesh and round: 1M, the issue's scale ("flat over 1M reports"),
// where the ratios differ from 300k's (benchmarks/README.md: the reference library decodes slower
// in a process holding 1M reports, the large mesh's state is bigger); 100k with --quick.
const roundReportsArg = argValue('round-reports');
if (roundReportsArg !== null && !(Number.isInteger(Number(roundReportsArg)) && Number(roundReportsArg) >= 50000)) throw new Error(`--round-reports must be an integer of at least 50000, not ${roundReportsArg}`);
const ROUND_REPORTS = roundReportsArg !== null ? Number(roundReportsArg) : quick ? 100000 : 1000000;
// Cost shares (measureCostShares): reports per mesh, and the profiler's sampling interval.
const COST_REPORTS = 300000;
const COST_SAMPLING_US = 250;
// Allocation (measureCostShares, after the CPU profile): reports sampled, and the heap profiler's
// mean interval between samples in bytes.
const ALLOCATION_REPORTS = 100000;
const ALLOCATION_SAMPLING_BYTES = 1024;
// Child mode of the rounds: --ingest-round=<profile> measures one mesh and prints one JSON line.
const roundChild = argValue('ingest-round');
// Cores this process may run on (its CPU affinity: 1 under `taskset -c 1`). V8's helper threads
// (JIT compiles, GC) run beside the main thread when there is more than one, as in a server on
// any multi-core box; on one core they take turns with it, and a background compile then shows
// in a snapshot's wall time (benchmarks/README.md, "Snapshot latency and pinning").
const CORES_AVAILABLE = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
// The ingest rounds' processes run pinned to the last core (taskset) when this process has more
// than one: their rates are CPU-seconds either way, and a pinned process is not migrated.
const ROUNDS_CPU = roundsCpu();

function roundsCpu() {
  if (roundChild !== null || CORES_AVAILABLE < 2) return null;
  const core = os.cpus().length - 1;
  const probe = spawnSync('taskset', ['-c', String(core), 'true']);
  return probe.status === 0 ? core : null;
}

function gc() {
  if (global.gc) { global.gc(); global.gc(); }
}

// Memory after GC: the V8 heap plus ArrayBuffer contents, which live outside it (the store's
// indexes keep their entries in Int32Arrays; counting the heap alone would understate them).
function heapUsed() {
  gc();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

function arrayBuffersUsed() {
  return process.memoryUsage().arrayBuffers;
}

function generateReports(count, seed, profile = 'default') {
  return simulatedReports({ seed, profile }, count);
}

/** Representative params for each view, chosen from the data (a busy node, a busy channel...). */
function paramsFor(name, engine) {
  const store = engine.store;
  const busiestNode = () => {
    let best = null;
    let bestCount = -1;
    for (const node of store.nodes.values()) {
      const deque = store.byPrefix.get(node.pubKey.slice(0, 2));
      const count = deque ? deque.length : 0;
      if (count > bestCount) { best = node; bestCount = count; }
    }
    return best ? best.pubKey : '00'.repeat(32);
  };
  const busiestChannel = () => {
    let best = null;
    for (const [hash, deque] of store.byChannel) if (!best || deque.length > store.byChannel.get(best).length) best = hash;
    return best || '00';
  };
  switch (name) {
    case 'node': return [{ pubKey: busiestNode(), days: 7 }];
    case 'nodes': return [{}, { search: 'a', sort: 'packets', limit: 100 }];
    case 'bulkHealth': return [{ limit: 200 }];
    case 'packets': return [{}, { type: 5, limit: 100 }, { observer: store.fifo.last().observations[0].observer.id }, { node: busiestNode() }];
    case 'channelMessages': return [{ channel: busiestChannel(), limit: 50 }];
    case 'subpaths': {
      const top = engine.snapshot('subpaths', {});
      const first = top && (top.subpaths || top.top || [])[0];
      return first && first.subpath ? [{}, { subpath: Array.isArray(first.subpath) ? first.subpath.join(',') : first.subpath }] : [{}];
    }
    default: return [{}];
  }
}

/**
 * Snapshot latency as a publication sees it: one more report is ingested (untimed) before each
 * snapshot, so no view can answer from an answer it kept for the same state (the snapshot caches
 * and the routes memo make a repeated call a lookup, which is not what a subscriber waits for).
 * `startTime` is the newest report's time; `nextReport()` gives the report to ingest (null: none left, then the call repeats).
 */
function measureSnapshots(engine, startTime, nextReport) {
  const results = {};
  let now = startTime;
  let fresh = 0;
  const advance = () => {
    const report = nextReport();
    if (!report) return;
    engine.ingest(report);
    engine.store.flushViews(); // untimed: the snapshot below times only itself
    now = report.time;
    fresh++;
  };
  for (const name of engine.views.keys()) {
    const samples = [];
    const cpuSamples = [];
    // The first call with each params runs the view's snapshot code for the first time in this
    // process (not yet optimized): kept apart as well, so a p99 set by those calls says so.
    const firstCalls = [];
    const laterSamples = [];
    let paramsList;
    try {
      paramsList = paramsFor(name, engine);
    } catch (err) {
      paramsList = [{}];
    }
    // Start each view from a collected heap, so one view's garbage is not charged to the next,
    // then let the collection finish: a forced full GC leaves V8 sweeping the heap on its helper
    // threads, and the next allocations on the main thread wait for that work. Measured right
    // after gc(), a view's first call took 15-23 ms (`node`) and 17 ms (`neighbours`) that took
    // 4-6 and 2 ms after a 300 ms pause or with no gc() at all (scratch, 28k default-mesh
    // reports, 2026-11-24): the harness's own GC, not anything a publication meets.
    gc();
    settleAfterGc();
    for (let run = 0; run < SNAPSHOT_RUNS; run++) {
      for (const params of paramsList) {
        advance();
        const cpuStarted = process.cpuUsage();
        const started = process.hrtime.bigint();
        const snapshot = engine.snapshot(name, params, now);
        const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
        samples.push(wallMs);
        (run === 0 ? firstCalls : laterSamples).push(wallMs);
        // CPU time of this process over the call: unlike wall time, not inflated when another
        // process takes the core (it still includes our own GC).
        const cpu = process.cpuUsage(cpuStarted);
        cpuSamples.push((cpu.user + cpu.system) / 1000);
        if (run === 0 && snapshot === undefined) throw new Error(`${name} returned nothing`);
      }
    }
    samples.sort((a, b) => a - b);
    cpuSamples.sort((a, b) => a - b);
    laterSamples.sort((a, b) => a - b);
    results[name] = {
      afterFreshReports: fresh, p50: percentile(samples, 50), p99: percentile(samples, 99), cpuP50: percentile(cpuSamples, 50), cpuP99: percentile(cpuSamples, 99),
      firstCallMax: Math.max(...firstCalls), p99AfterFirstCalls: percentile(laterSamples, 99),
      samples: samples.length, params: paramsList.map((p) => Object.keys(p).join('+') || 'default'),
    };
  }
  return results;
}

// How long measureSnapshots lets a forced GC's sweeping finish before it samples a view.
const GC_SETTLE_MS = 300;
const settleCell = new Int32Array(new SharedArrayBuffer(4));

/** Block this thread for GC_SETTLE_MS (V8's helper threads keep working meanwhile). */
function settleAfterGc() {
  Atomics.wait(settleCell, 0, 0, GC_SETTLE_MS);
}

/** Mean path length (hops) of the reports, read from each raw packet's path-length byte. */
function meanHops(reports) {
  let hops = 0;
  for (const report of reports) {
    const routeType = parseInt(report.raw.slice(0, 2), 16) & 0x03;
    // Transport-code routes (0 and 3) put 4 bytes of codes before the path-length byte.
    const at = routeType === 0 || routeType === 3 ? 5 : 1;
    hops += parseInt(report.raw.slice(2 * at, 2 * at + 2), 16) & 0x3f;
  }
  return reports.length ? hops / reports.length : 0;
}

/**
 * Decode-only rates. Ours over the first 200k reports, after a warm-up. The reference library's
 * over every report of the stream, the same reports the ingest takes, and over its first 50k
 * alone (lib/reference-decode.js): the first is the verdict's figure (`referenceDecodePerS`).
 */
function measureDecode(reports) {
  const decodeSample = reports.slice(0, Math.min(200000, reports.length));
  for (let i = 0; i < Math.min(20000, decodeSample.length); i++) decodePacket(decodeSample[i].raw.toLowerCase()); // warm-up
  const cpu0 = process.cpuUsage();
  for (const report of decodeSample) decodePacket(report.raw.toLowerCase());
  const decodeOnlyPerS = decodeSample.length / cpuSeconds(cpu0);
  const threadsBefore = threadCpuSeconds();
  const reference = referenceDecodeRates(reports);
  const referenceHelperShare = helperShare(threadsBefore, threadCpuSeconds());
  return { decodeOnlyPerS, referenceDecodePerS: reference.perS, referenceFirstPerS: reference.firstPerS, referenceReports: reference.reports, referenceHelperShare };
}

/** Ingest every report of one profile; rates per fifth, heap per report, snapshots at 28k and at the end. */
function measureProfile(profile) {
  console.log(`[${profile}] generating ${TOTAL} simulated observer reports...`);
  // The stream runs on past TOTAL: its continuation is ingested one report before each snapshot
  // at the end (see measureSnapshots) and counts in no ingest rate or memory figure.
  const generated = generateReports(TOTAL + SNAPSHOT_HOLDOUT, 2026, profile);
  let reports = generated.reports.slice(0, TOTAL);
  let continuation = generated.reports.slice(TOTAL);
  const { channels } = generated;
  const reportCount = reports.length;
  const hopsPerReport = meanHops(reports);
  const decode = measureDecode(reports);
  console.log(`[${profile}] decode only: ${Math.round(decode.decodeOnlyPerS)}/s; reference library: ${Math.round(decode.referenceDecodePerS)}/s`);

  gc();
  let engine = createEngine({ channels, store: { memoryBudgetBytes: 64 * 1024 ** 3 } });
  const chunk = Math.floor(reportCount / FIFTHS);
  const chunkRates = [];
  let snapshotsSmall = null;
  let untimedReports = 0; // ingested before the 28k snapshots, outside the timed stretches
  let untimedInFifth = 0;
  // Ingest CPU time is summed only while ingesting, so the 28k snapshot pause is in no rate.
  let ingestCpu = 0;
  let ingestCpuAtChunkStart = 0;
  let wallNs = 0n;
  let resumedCpu = process.cpuUsage();
  let resumedWall = process.hrtime.bigint();
  for (let i = 0; i < reports.length; i++) {
    engine.ingest(reports[i]);
    const done = i + 1;
    if (done === SMALL || done % chunk === 0) {
      // The views' held updates (store.js viewBatch) run inside the timed stretch.
      engine.store.flushViews();
      ingestCpu += cpuSeconds(resumedCpu);
      wallNs += process.hrtime.bigint() - resumedWall;
      if (done % chunk === 0) {
        chunkRates.push((chunk - untimedInFifth) / (ingestCpu - ingestCpuAtChunkStart));
        untimedInFifth = 0;
        ingestCpuAtChunkStart = ingestCpu;
        process.stdout.write(`  [${profile}] ${done} ingested, fifth rate ${Math.round(chunkRates[chunkRates.length - 1])}/s, heap ${Math.round(process.memoryUsage().heapUsed / 1048576)} MB\n`);
      }
      if (done === SMALL) {
        // Takes the next reports of the stream itself (untimed), so the loop skips them.
        let cursor = i + 1;
        snapshotsSmall = measureSnapshots(engine, reports[i].time, () => (cursor < reports.length ? reports[cursor++] : null));
        untimedReports += cursor - (i + 1);
        untimedInFifth += cursor - (i + 1);
        i = cursor - 1;
      }
      resumedCpu = process.cpuUsage();
      resumedWall = process.hrtime.bigint();
    }
  }
  const ingestPerS = (reportCount - untimedReports) / ingestCpu;
  const ingestWallPerS = (reportCount - untimedReports) / (Number(wallNs) / 1e9);
  const lastTime = reports[reports.length - 1].time;
  let continued = 0;
  const snapshotsLarge = measureSnapshots(engine, lastTime, () => (continued < continuation.length ? continuation[continued++] : null));
  continuation = null;
  // Memory: what the engine alone retains. The pre-generated reports share numbers and strings
  // with the store (times, SNRs, ids), so they are released first; then the engine is measured
  // against the heap with it released too.
  reports = null;
  generated.reports = null;
  const stats = engine.store.stats();
  const estimated = engine.store.memory.summary();
  const heapWithEngine = heapUsed();
  const buffersWithEngine = arrayBuffersUsed();
  // Read the engine after measuring: otherwise V8 may collect it as dead before the measure.
  if (engine.store.size !== stats.transmissions) throw new Error('the engine changed while measured');
  engine = null;
  const engineHeap = heapWithEngine - heapUsed();
  const engineBuffers = buffersWithEngine - arrayBuffersUsed();
  // The engine holds the reports of the stream plus the continuation ingested before the final snapshots.
  const heldReports = reportCount + continued;
  const bytesPerPacket = engineHeap / heldReports;
  console.log(`[${profile}] ingest: ${Math.round(ingestPerS)}/s; ${Math.round(bytesPerPacket)} bytes/packet`);

  const largeLabel = reportsArg !== null ? `${Math.round(TOTAL / 1000)}k` : quick ? '100k' : '1m';
  const views = {};
  for (const name of Object.keys(snapshotsLarge)) {
    views[name] = {
      p50_ms_28k: round(snapshotsSmall[name].p50), p99_ms_28k: round(snapshotsSmall[name].p99),
      [`p50_ms_${largeLabel}`]: round(snapshotsLarge[name].p50), [`p99_ms_${largeLabel}`]: round(snapshotsLarge[name].p99),
      cpu_p99_ms_28k: round(snapshotsSmall[name].cpuP99), [`cpu_p99_ms_${largeLabel}`]: round(snapshotsLarge[name].cpuP99),
      // The slowest of the first calls (one per params) and the p99 of every later call.
      first_call_ms_28k: round(snapshotsSmall[name].firstCallMax), p99_after_first_calls_ms_28k: round(snapshotsSmall[name].p99AfterFirstCalls),
      [`first_call_ms_${largeLabel}`]: round(snapshotsLarge[name].firstCallMax), [`p99_after_first_calls_ms_${largeLabel}`]: round(snapshotsLarge[name].p99AfterFirstCalls),
      samples: snapshotsLarge[name].samples,
      after_fresh_report: true, // one report ingested (untimed) before each snapshot: no cached answer
      params: snapshotsLarge[name].params,
    };
  }
  return {
    profile,
    packets: reportCount,
    transmissions: stats.transmissions,
    observations: stats.observations,
    nodes: stats.nodes,
    observers: stats.observers,
    decode_only_per_s: Math.round(decode.decodeOnlyPerS),
    reference_library_decode_only_per_s: Math.round(decode.referenceDecodePerS),
    reference_decode_reports: decode.referenceReports,
    reference_library_first_50k_per_s: Math.round(decode.referenceFirstPerS),
    ingest_per_s: Math.round(ingestPerS),
    ingest_cpu_us_per_report: round(1e6 / ingestPerS, 2),
    // Most per-report work is per hop (node keys, links, pairs, subpaths), so the profiles'
    // rates differ by their reports' path lengths as much as by their mesh sizes.
    hops_per_report: round(hopsPerReport, 2),
    ingest_wall_per_s: Math.round(ingestWallPerS),
    ingest_to_decode_ratio: round(ingestPerS / decode.decodeOnlyPerS, 3),
    ingest_to_reference_decode_ratio: round(ingestPerS / decode.referenceDecodePerS, 3),
    ingest_to_reference_first_50k_ratio: round(ingestPerS / decode.referenceFirstPerS, 3),
    ingest_flatness: round(chunkRates[chunkRates.length - 1] / chunkRates[0], 3),
    fifth_rates_per_s: chunkRates.map(Math.round),
    bytes_per_packet: Math.round(bytesPerPacket),
    bytes_per_transmission: Math.round(engineHeap / stats.transmissions),
    bytes_per_packet_array_buffers: Math.round(engineBuffers / heldReports),
    memory_calibration: { heap_bytes: engineHeap, array_buffer_bytes: engineBuffers, estimated_bytes: estimated.total, estimate_to_heap: round(estimated.total / engineHeap, 3), parts: estimated.parts },
    views,
  };
}

/**
 * One ingest round, in a process of its own (--ingest-round=<profile>): ROUND_REPORTS reports
 * of one mesh (the same seed as the main run), the reference library's decode-only rate over
 * the same reports, then every report ingested into a fresh engine. No snapshots, no memory
 * figures: the rate alone.
 */
function measureRound(profile) {
  const count = ROUND_REPORTS;
  // 'default-unverified': the default mesh with Ed25519 advert checks off (issue 8's default /
  // reference figure with and without them: the reference library's decode verifies nothing).
  const unverified = profile === 'default-unverified';
  const { reports, channels } = generateReports(count, 2026, unverified ? 'default' : profile);
  const hops = meanHops(reports);
  const decode = measureDecode(reports);
  gc();
  const engine = createEngine({ channels, store: { memoryBudgetBytes: 64 * 1024 ** 3, ...(unverified ? { verifyAdverts: false } : {}) } });
  const threadsBefore = threadCpuSeconds();
  const started = process.cpuUsage();
  for (const report of reports) engine.ingest(report);
  engine.store.flushViews(); // the views' held updates, timed with the rest
  const ingestPerS = reports.length / cpuSeconds(started);
  const ingestHelperShare = helperShare(threadsBefore, threadCpuSeconds());
  const result = {
    profile,
    reports: count,
    hops_per_report: round(hops, 2),
    ingest_per_s: Math.round(ingestPerS),
    reference_library_decode_only_per_s: Math.round(decode.referenceDecodePerS),
    reference_decode_reports: decode.referenceReports,
    reference_library_first_50k_per_s: Math.round(decode.referenceFirstPerS),
    decode_only_per_s: Math.round(decode.decodeOnlyPerS),
    transmissions: engine.store.size,
    advert_verification: engine.store.stats().advertVerification, // the backend, or 'off'
    // The rates above are per CPU-second of the whole process: of that CPU, the share V8's helper
    // threads used (GC's parallel and concurrent work, JIT compiles; /proc, null elsewhere),
    // while the ingest ran and while the reference decoded.
    helper_threads_cpu_share: { ingest: roundOrNull(ingestHelperShare), reference: roundOrNull(decode.referenceHelperShare) },
  };
  if (profile === 'default') {
    // Beside the target: the reference given the channel keys the ingest holds, so that it also
    // decrypts the group texts (its decode-only rate above decrypts none). After the ingest, so
    // the ingest's figure is timed exactly as before (run 16 timed it before the engine was built:
    // the keyed rate was the same within this machine's noise; benchmarks/README.md).
    const keyed = referenceDecodeWithKeysRate(reports, channels);
    result.reference_library_with_keys_per_s = Math.round(keyed.perS);
    result.reference_with_keys_group_texts = keyed.groupTexts;
    result.reference_with_keys_decrypted = keyed.decrypted;
  }
  return result;
}

/**
 * The two ingest ratios of issue 8 measured again in `ROUNDS` rounds, each mesh in a fresh
 * process, the order alternating (default first in odd rounds, large first in even ones).
 * Why: one run's ratios are one sample of a noisy host. The same code ingested the large mesh
 * at 17k to 35k reports per CPU-second from one run to the next (benchmarks/README.md), and the
 * spread is in this process's own main-thread CPU (not GC pauses or V8's helper threads), which
 * moves most for the mesh whose state is many times the CPU's caches. Medians over alternating
 * rounds, with their range, say what one run cannot.
 */
function measureIngestRounds() {
  const rounds = [];
  for (let r = 1; r <= ROUNDS; r++) {
    // The unverified default mesh runs last in every round: the two meshes' order stays as it
    // was before it was added, so large / default is measured as in earlier runs.
    const order = r % 2 === 1 ? ['default', 'large', 'default-unverified'] : ['large', 'default', 'default-unverified'];
    const entry = { round: r, order };
    for (const profile of order) {
      const args = ['--expose-gc', '--max-old-space-size=8192', __filename, `--ingest-round=${profile}`];
      if (quick) args.push('--quick');
      if (roundReportsArg !== null) args.push(`--round-reports=${ROUND_REPORTS}`);
      const command = ROUNDS_CPU === null ? [process.execPath, ...args] : ['taskset', '-c', String(ROUNDS_CPU), process.execPath, ...args];
      const child = spawnSync(command[0], command.slice(1), { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
      if (child.status !== 0) throw new Error(`ingest round ${r} (${profile}) failed: ${child.stderr || child.error}`);
      entry[profile] = JSON.parse(child.stdout.trim().split('\n').pop());
    }
    entry.default_to_reference = round(entry.default.ingest_per_s / entry.default.reference_library_decode_only_per_s, 3);
    entry.large_to_default = round(entry.large.ingest_per_s / entry.default.ingest_per_s, 3);
    entry.large_to_default_per_report_and_hop = perReportAndHop(entry);
    const bare = entry['default-unverified'];
    entry.default_unverified_to_reference = round(bare.ingest_per_s / bare.reference_library_decode_only_per_s, 3);
    // The same ingest over the reference's first 50k reports alone (how runs 1-10 read it).
    entry.default_to_reference_first_50k = round(entry.default.ingest_per_s / entry.default.reference_library_first_50k_per_s, 3);
    // Against the reference decrypting what the ingest decrypts (beside the target, not its verdict).
    entry.default_to_reference_with_keys = round(entry.default.ingest_per_s / entry.default.reference_library_with_keys_per_s, 3);
    console.log(`ingest round ${r}: default ${entry.default.ingest_per_s}/s (reference ${entry.default.reference_library_decode_only_per_s}/s: ${entry.default_to_reference}), large ${entry.large.ingest_per_s}/s (${entry.large_to_default} of default), default without advert checks ${bare.ingest_per_s}/s (reference ${bare.reference_library_decode_only_per_s}/s: ${entry.default_unverified_to_reference}), reference with the channel keys ${entry.default.reference_library_with_keys_per_s}/s: ${entry.default_to_reference_with_keys}`);
    rounds.push(entry);
  }
  return {
    rounds_count: ROUNDS,
    reports_per_round: ROUND_REPORTS,
    method: 'each mesh in a fresh process per round, order alternating; rates per CPU-second of that process',
    pinned_to_core: ROUNDS_CPU, // null: not pinned by this script (one core available, or no taskset)
    default_to_reference: spread(rounds.map((r) => r.default_to_reference)),
    large_to_default: spread(rounds.map((r) => r.large_to_default)),
    large_to_default_per_report_and_hop: spread(rounds.map((r) => r.large_to_default_per_report_and_hop)),
    default_ingest_per_s: spread(rounds.map((r) => r.default.ingest_per_s), 0),
    large_ingest_per_s: spread(rounds.map((r) => r.large.ingest_per_s), 0),
    // Beside the target, not instead of it: the default mesh without Ed25519 advert checks (its
    // own process, last in each round) over the reference decode rate measured in that process.
    default_unverified_to_reference: spread(rounds.map((r) => r.default_unverified_to_reference)),
    // The reference timed over every report of the stream (its cold start amortized as the
    // ingest's is); beside it, over its first 50k reports alone, as runs 1-10 did.
    reference_decode_over: 'every report of the stream',
    default_to_reference_first_50k: spread(rounds.map((r) => r.default_to_reference_first_50k)),
    // The reference given the ingest's channel keys (it then decrypts every group text too).
    default_to_reference_with_keys: spread(rounds.map((r) => r.default_to_reference_with_keys)),
    // Of each process's CPU, the share its V8 helper threads used (GC, JIT) while the default
    // mesh's ingest ran, while the reference decoded the same reports, and while the large
    // mesh's ingest ran; null where /proc gives no per-thread figures.
    helper_threads_cpu_share: helperShares(rounds),
    rounds,
  };
}

/** Median, min and max of the rounds' values of one figure, rounded. */
function spread(values, digits = 3) {
  return { median: round(median(values), digits), min: round(Math.min(...values), digits), max: round(Math.max(...values), digits) };
}

function roundOrNull(value, digits = 3) {
  return value === null || value === undefined ? null : round(value, digits);
}

/** Median (min–max) helper-thread shares over the rounds (helper_threads_cpu_share), null without them. */
function helperShares(rounds) {
  const spreadOf = (values) => (values.some((value) => value === null || value === undefined) ? null : spread(values));
  const shareOf = (entry) => entry.helper_threads_cpu_share || {};
  return {
    default_ingest: spreadOf(rounds.map((r) => shareOf(r.default).ingest)),
    reference: spreadOf(rounds.map((r) => shareOf(r.default).reference)),
    large_ingest: spreadOf(rounds.map((r) => shareOf(r.large).ingest)),
  };
}

/** Ingest cost of Ed25519 advert verification: the same reports with the check on and off, alternated. */
function measureAdvertVerification() {
  const count = quick ? 100000 : 300000;
  const { reports, channels } = generateReports(count, 77, 'default');
  const adverts = reports.filter((report) => ((parseInt(report.raw.slice(0, 2), 16) >> 2) & 0x0f) === 4).length;
  // Both engines in one process, fed the same reports in alternating chunks of 2,000 (which goes
  // first alternates too), so that both see the machine at the same moments: run one after the
  // other, the cost share moved from 14% to 28% with the load of other work on the machine.
  // Which engine is created first still moves the result by ~10% (either way, one process to the
  // next), so each round is a pair of passes, one in each creation order, and its share comes from
  // the geometric mean of the two CPU ratios (as benchmarks/engine-ab.js corrects its ratios).
  const CHUNK = 2000;
  const rates = { on: [], off: [] };
  const shares = [];
  const verifiedBefore = signatureChecks.verified;
  let extraCpu = 0;
  let passes = 0;
  for (let pair = 0; pair < 3; pair++) {
    const ratios = [];
    for (const order of [[true, false], [false, true]]) {
      const engines = new Map(order.map((verify) => [verify, createEngine({ channels, store: { verifyAdverts: verify } })]));
      const copies = new Map(order.map((verify) => [verify, reports.map((report) => ({ ...report }))]));
      const cpu = new Map(order.map((verify) => [verify, 0]));
      gc();
      for (let start = 0, chunk = 0; start < count; start += CHUNK, chunk++) {
        const end = Math.min(count, start + CHUNK);
        for (const verify of chunk % 2 === 0 ? order : order.slice().reverse()) {
          const engine = engines.get(verify);
          const list = copies.get(verify);
          const cpu0 = process.cpuUsage();
          for (let i = start; i < end; i++) engine.ingest(list[i]);
          engine.store.flushViews();
          cpu.set(verify, cpu.get(verify) + cpuSeconds(cpu0));
        }
      }
      rates.on.push(count / cpu.get(true));
      rates.off.push(count / cpu.get(false));
      ratios.push(cpu.get(false) / cpu.get(true));
      extraCpu += cpu.get(true) - cpu.get(false);
      passes++;
    }
    shares.push(round(1 - Math.sqrt(ratios[0] * ratios[1]), 3));
  }
  const verifications = signatureChecks.verified - verifiedBefore;
  const on = median(rates.on);
  const off = median(rates.off);
  const perBackend = verifyMicrosPerBackend();
  console.log(`advert verification (${ed25519Backend}): ${Math.round(on)}/s with, ${Math.round(off)}/s without; cost per round ${shares.map((share) => `${(100 * share).toFixed(1)}%`).join(', ')}; µs per check: ${JSON.stringify(perBackend)}; extra CPU per verification ${((extraCpu * 1e6) / verifications).toFixed(1)} µs`);
  return {
    backend: ed25519Backend,
    verify_us_per_check: perBackend,
    reports: count,
    advert_reports: adverts,
    ingest_per_s_verified: Math.round(on),
    ingest_per_s_unverified: Math.round(off),
    rounds: shares.length,
    method: 'one process, both engines fed alternating chunks of 2,000 reports; a round = two passes, one per creation order; its cost share = 1 - sqrt(product of the passes\' CPU without / CPU with)',
    cost_share_per_round: shares,
    verifications_per_pass: verifications / passes,
    // What the verifying engine spent over the other, per Ed25519 check it ran (compare with verify_us_per_check).
    extra_cpu_us_per_verification: round((extraCpu * 1e6) / verifications, 1),
    cost_share: median(shares),
  };
}

/** CPU µs per Ed25519 check with each backend that loads here (median of 3 runs of 2,000 checks). */
function verifyMicrosPerBackend() {
  // From seed bytes, not generateKeyPairSync (on Node 20 exporting a generated key can deadlock
  // when a GC runs during the export: see tests/core/ed25519.test.js).
  const { privateKey, publicKey: raw } = keyPairFromSeed(crypto.randomBytes(32));
  const message = Buffer.alloc(100, 7);
  const signature = crypto.sign(null, message, privateKey);
  const result = {};
  for (const prefer of ['node', 'libsodium']) {
    const verifier = createVerifier(prefer);
    if (verifier.name in result) continue; // libsodium did not load: it fell back to node
    const runs = [];
    for (let run = 0; run < 3; run++) {
      const cpu0 = process.cpuUsage();
      for (let i = 0; i < 2000; i++) if (!verifier.verify(raw, message, signature)) throw new Error(`${verifier.name} refused a valid signature`);
      runs.push(round((cpuSeconds(cpu0) * 1e6) / 2000, 1));
    }
    result[verifier.name] = median(runs);
  }
  return result;
}

/**
 * Where ingest time goes: each mesh's stream ingested under V8's sampling CPU profiler (the
 * inspector, in this process), the first third untimed (warm-up), and the profile's samples
 * attributed to decoding (and within it Ed25519 checks, group-text decryption, the content
 * hash), to each view's apply (by the view's file, inclusive of what it calls; the shared
 * node tracker, node-tracker.js, runs under the first of nodes/node/bulkHealth to apply, and is
 * also shown alone), to the store's own work (ingest minus decoding and views) and to the garbage collector.
 * Shares of the sampled CPU, not rates: the profiler slows everything, and shares are what tell
 * a target's distance in work (benchmarks/README.md quotes them).
 */
function measureCostShares(profile) {
  const { Session } = require('inspector');
  const count = quick ? 100000 : COST_REPORTS;
  const allocationCount = quick ? ALLOCATION_REPORTS / 2 : ALLOCATION_REPORTS;
  // The same stream as before (same seed: its first `count` reports are unchanged), and then
  // `allocationCount` more for the allocation sampling.
  const { reports, channels } = generateReports(count + allocationCount, 2026, profile);
  const engine = createEngine({ channels, store: { memoryBudgetBytes: 64 * 1024 ** 3 } });
  const warm = Math.floor(count / 3);
  for (let i = 0; i < warm; i++) engine.ingest(reports[i]);
  const session = new Session();
  session.connect();
  // The inspector answers this thread's own session synchronously.
  let profileData = null;
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: COST_SAMPLING_US });
  session.post('Profiler.start');
  for (let i = warm; i < count; i++) engine.ingest(reports[i]);
  engine.store.flushViews();
  session.post('Profiler.stop', (err, result) => { if (!err) profileData = result.profile; });
  if (profileData === null) throw new Error('the CPU profile could not be read');
  const shares = attributeProfile(profileData);
  console.log(`[${profile}] cost shares over ${count - warm} reports: decode ${shares.decode}, views ${shares.views}, store ${shares.store}, gc ${shares.garbage_collector}`);
  // Then what the same engine allocates per report, objects the GC already collected included
  // (most of it: a report's garbage), and where.
  let heapProfile = null;
  session.post('HeapProfiler.enable');
  session.post('HeapProfiler.startSampling', { samplingInterval: ALLOCATION_SAMPLING_BYTES, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  for (let i = count; i < count + allocationCount; i++) engine.ingest(reports[i]);
  engine.store.flushViews();
  session.post('HeapProfiler.stopSampling', (err, result) => { if (!err) heapProfile = result.profile; });
  session.post('HeapProfiler.disable');
  session.disconnect();
  if (heapProfile === null) throw new Error('the heap profile could not be read');
  const allocation = attributeAllocation(heapProfile, allocationCount);
  console.log(`[${profile}] allocated per report over ${allocationCount} reports: ${allocation.bytes_per_report} bytes`);
  return { reports_profiled: count - warm, after_untimed: warm, sampling_interval_us: COST_SAMPLING_US, shares, allocation };
}

/** Bytes allocated per report in a sampling heap profile, in all and by the 12 functions allocating most. */
function attributeAllocation(profile, reportCount) {
  const byFunction = new Map();
  let total = 0;
  const walk = (node) => {
    if (node.selfSize > 0) {
      const frame = node.callFrame;
      const file = (frame.url || '').split('/').slice(-2).join('/');
      const name = `${frame.functionName || '(anonymous)'} ${file ? `${file}:${frame.lineNumber + 1}` : '(native)'}`;
      byFunction.set(name, (byFunction.get(name) || 0) + node.selfSize);
      total += node.selfSize;
    }
    for (const child of node.children) walk(child);
  };
  walk(profile.head);
  const top = Array.from(byFunction).sort((a, b) => b[1] - a[1]).slice(0, 12).map(([name, bytes]) => [name, Math.round(bytes / reportCount)]);
  return { reports_sampled: reportCount, sampling_interval_bytes: ALLOCATION_SAMPLING_BYTES, bytes_per_report: Math.round(total / reportCount), top };
}

/** Shares of a .cpuprofile's sampled time (idle and "(program)" left out), by part of the pipeline. */
function attributeProfile(data) {
  const byId = new Map(data.nodes.map((node) => [node.id, node]));
  const self = new Map();
  data.samples.forEach((id, i) => self.set(id, (self.get(id) || 0) + (data.timeDeltas[i + 1] || 0)));
  const inclusive = new Map();
  const total = (node) => {
    if (inclusive.has(node.id)) return inclusive.get(node.id);
    let time = self.get(node.id) || 0;
    for (const child of node.children || []) time += total(byId.get(child));
    inclusive.set(node.id, time);
    return time;
  };
  let sampled = 0;
  let gcTime = 0;
  for (const node of data.nodes) {
    const name = node.callFrame.functionName;
    if (name === '(idle)' || name === '(program)') continue;
    sampled += self.get(node.id) || 0;
    if (name === '(garbage collector)') gcTime += self.get(node.id) || 0;
  }
  const fileOf = (frame) => (frame.url || '').split('/').pop();
  // Inclusive time of the outermost calls matching `test` (a recursive call is counted once).
  const outermost = (test) => {
    let time = 0;
    const walk = (node, inside) => {
      const hit = !inside && test(node.callFrame);
      if (hit) time += total(node);
      for (const child of node.children || []) walk(byId.get(child), inside || hit);
    };
    walk(data.nodes[0], false);
    return time;
  };
  const ingest = outermost((f) => f.functionName === 'ingest' && fileOf(f) === 'store.js');
  const decode = outermost((f) => f.functionName === 'decodePacket' && fileOf(f) === 'decode.js');
  const viewsTotal = outermost((f) => f.functionName === 'apply' && fileOf(f) === 'view.js');
  const byView = {};
  for (const node of data.nodes) {
    const frame = node.callFrame;
    if (frame.functionName !== 'apply' || fileOf(frame) !== 'view.js') continue;
    for (const child of node.children || []) {
      const file = fileOf(byId.get(child).callFrame).replace(/\.js$/, '') || '(native)';
      byView[file] = (byView[file] || 0) + total(byId.get(child));
    }
  }
  const share = (time) => round(time / sampled, 3);
  const views = {};
  for (const [file, time] of Object.entries(byView).sort((a, b) => b[1] - a[1])) views[file] = share(time);
  return {
    ingest: share(ingest),
    decode: share(decode),
    decode_ed25519: share(outermost((f) => f.functionName === 'verifyAdvertSignature')),
    decode_group_text: share(outermost((f) => f.functionName === 'decryptGroupText')),
    decode_content_hash: share(outermost((f) => f.functionName === 'contentHash')),
    store: share(ingest - decode - viewsTotal),
    views: share(viewsTotal),
    node_health_tracker: share(outermost((f) => f.functionName === 'apply' && fileOf(f) === 'node-tracker.js')),
    by_view_file: views,
    garbage_collector: share(gcTime),
    sampled_ms: Math.round(sampled / 1000),
  };
}

/**
 * Hop resolution against the simulator's truth (large mesh, every node advertised at start):
 * per hash size, the share of hops resolved to the right repeater, to a wrong one, left
 * ambiguous or unknown, and the CPU time resolvePath takes per path. Paths are measured after
 * the first third of the run, once adjacency has been learned from unambiguous paths.
 * Beside it, each adjacent pair of the same paths resolved alone (no observer or source to
 * anchor it), as the topology view resolves its busiest pairs for the map's links: per `by`
 * (prefix, range, nearest), ends right and wrong.
 * `npm run bench:core -- --only=hops` runs this part alone.
 */
function measureHopResolution() {
  const count = quick ? 60000 : 200000;
  const sim = createSimulator({ seed: 2026, profile: 'large', withTruth: true, startupAdverts: true });
  const engine = createEngine({ views: [], channels: sim.channels.map((c) => ({ name: c.name, key: c.key })) });
  const bySize = {};
  let index = 0;
  let resolveCpu = 0; // CPU seconds inside resolvePath (views such as routes call it per observation)
  let paths = 0;
  const pairEnds = { ends: 0, ambiguous: 0, unknown: 0, by: {} }; // each adjacent pair resolved alone
  for (const message of sim.messages(count)) {
    const { report } = parseObserverMessage(message.topic, JSON.stringify(message.payload), Date.parse(message.payload.timestamp));
    const result = engine.ingest(report);
    if (result.error || !result.observation || index++ < count / 3) continue;
    const truth = message.truth && message.truth.hops;
    if (!truth || truth.length === 0) continue;
    const cpu0 = process.cpuUsage();
    const entries = resolvePath(engine.store, result.observation.path, { observerId: report.observerId, sourceKey: result.tx.advert ? result.tx.advert.pubKey : null, routeType: result.tx.routeType });
    resolveCpu += cpuSeconds(cpu0);
    paths++;
    entries.forEach((entry, i) => {
      const size = entry.hop.length / 2;
      const tally = bySize[size] || (bySize[size] = { hops: 0, right: 0, wrong: 0, ambiguous: 0, unknown: 0 });
      tally.hops++;
      if (entry.status === 'resolved') tally[entry.node.pubKey === truth[i].toLowerCase() ? 'right' : 'wrong']++;
      else tally[entry.status]++;
    });
    const path = result.observation.path;
    for (let i = 1; i < path.length; i++) {
      resolvePath(engine.store, [path[i - 1], path[i]], {}).forEach((entry, k) => {
        pairEnds.ends++;
        if (entry.status !== 'resolved') {
          pairEnds[entry.status]++;
          return;
        }
        const by = pairEnds.by[entry.by] || (pairEnds.by[entry.by] = { right: 0, wrong: 0 });
        by[entry.node.pubKey === truth[i - 1 + k].toLowerCase() ? 'right' : 'wrong']++;
      });
    }
  }
  for (const by of Object.values(pairEnds.by)) by.wrong_share_of_resolved = round(by.wrong / (by.right + by.wrong), 4);
  pairEnds.resolved_share = round(Object.values(pairEnds.by).reduce((sum, by) => sum + by.right + by.wrong, 0) / pairEnds.ends, 3);
  for (const tally of Object.values(bySize)) {
    tally.right_share = round(tally.right / tally.hops, 3);
    tally.wrong_free_share = round(1 - tally.wrong / tally.hops, 3);
    tally.resolved_share = round((tally.right + tally.wrong) / tally.hops, 3);
  }
  console.log(`hop resolution (1-byte): right ${bySize[1] && bySize[1].right_share}, wrong-free ${bySize[1] && bySize[1].wrong_free_share}, resolved ${bySize[1] && bySize[1].resolved_share}; ${round((1e6 * resolveCpu) / paths, 1)} µs CPU per path`);
  console.log(`pairs resolved alone: ${JSON.stringify(pairEnds)}`);
  return { profile: 'large', reports: count, measured_after: Math.round(count / 3), paths, resolve_cpu_us_per_path: round((1e6 * resolveCpu) / paths, 1), by_hash_size: bySize, pairs_alone: pairEnds };
}

const HOSTILE_RUNS = ['longPaths', 'randomObservers', 'randomAdverts', 'randomChannels', 'extremeNumbers', 'oddStrings', 'randomBytes'];

/** One hostile stream into a fresh engine under `budgetMB`: heap after GC against the budget. */
function measureHostile(className, budgetMB) {
  // Long random paths cost ~1 ms a report (every hop is a new key for every view), so fewer of
  // them fill any budget; random-key adverts need ~150k to measure the rate after 100k distinct
  // keys (a third of them are refused: bad signatures, app data changed after signing).
  const counts = { longPaths: quick ? 20000 : 60000, randomAdverts: 160000 };
  const count = counts[className] || (quick ? 50000 : 300000);
  gc();
  const heapBefore = heapUsed();
  const engine = createEngine({ store: { memoryBudgetBytes: budgetMB * 1024 * 1024 } });
  const store = engine.store;
  const rates = [];
  let cpu0 = process.cpuUsage();
  let advertCpu = cpu0;
  let window = 0;
  let distinctKeysAt = null;
  let reportsAt100kKeys = null;
  let firstRate = null;
  let rateAfter100k = null;
  let peakHeap = 0;
  let n = 0;
  for (const report of hostileStream(className, { seed: 7, count })) {
    engine.ingest(report);
    n++;
    window++;
    // Random-key adverts: rate over the first 5k reports, then over the 5k reports after the
    // directory has learnt 100k distinct keys (those it holds, plus those it let go over its cap
    // or aged out).
    if (className === 'randomAdverts') {
      // Its own CPU counter: the 50k-window rates below must not be reset by this measure.
      if (firstRate === null && n === 5000) {
        store.flushViews(); // every rate includes the views' held updates
        firstRate = 5000 / cpuSeconds(advertCpu);
      }
      if (reportsAt100kKeys === null) {
        const d = store.directory;
        const keys = d.nodes.size + d.counters.nodesOverCap + d.counters.nodesAgedOut;
        if (keys >= 100000) {
          reportsAt100kKeys = n;
          distinctKeysAt = keys;
          advertCpu = process.cpuUsage();
        }
      } else if (rateAfter100k === null && n === reportsAt100kKeys + 5000) {
        store.flushViews();
        rateAfter100k = 5000 / cpuSeconds(advertCpu);
      }
    }
    if (window === 50000) {
      store.flushViews();
      rates.push(window / cpuSeconds(cpu0));
      window = 0;
      cpu0 = process.cpuUsage();
      peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers);
    }
  }
  store.flushViews(); // memory as any read of a view leaves it
  const stats = store.stats();
  const heapAfter = heapUsed();
  // Read the engine after measuring: otherwise V8 may collect it as dead before the measure.
  if (engine.store.size !== stats.transmissions) throw new Error('the engine changed while measured');
  const bound = 1.25 * budgetMB + 40;
  const result = {
    class: className,
    budget_mb: budgetMB,
    reports: n,
    stored_transmissions: stats.transmissions,
    evicted: stats.evicted,
    rejected: stats.rejected,
    reject_reasons: stats.rejectReasons,
    estimated_mb: round(stats.estimatedBytes / 1048576, 1),
    directory_mb: round(stats.memoryParts.directory / 1048576, 1),
    heap_after_gc_mb: round(heapAfter / 1048576, 1),
    engine_heap_after_gc_mb: round((heapAfter - heapBefore) / 1048576, 1),
    peak_heap_mb_sampled: round(peakHeap / 1048576, 1),
    bound_mb: bound,
    within_bound: heapAfter / 1048576 <= bound,
    rate_per_s_median: Math.round(rates.slice().sort((a, b) => a - b)[rates.length >> 1] || 0),
    directory: stats.directory,
  };
  if (className === 'randomAdverts') {
    result.advert_rate_first_5k_per_s = Math.round(firstRate);
    result.advert_rate_after_100k_keys_per_s = rateAfter100k === null ? null : Math.round(rateAfter100k);
    result.advert_rate_ratio = rateAfter100k === null ? null : round(rateAfter100k / firstRate, 3);
    result.distinct_keys_at_100k = distinctKeysAt;
    result.reports_at_100k_keys = reportsAt100kKeys;
  }
  console.log(`hostile ${className} @ ${budgetMB} MB: ${n} reports, heap after GC ${result.heap_after_gc_mb} MB (bound ${bound}), estimate ${result.estimated_mb} MB, stored ${stats.transmissions}, rejected ${stats.rejected}`);
  return result;
}

function main() {
  if (roundChild !== null) {
    if (!['default', 'large', 'default-unverified'].includes(roundChild)) throw new Error(`--ingest-round must be default, large or default-unverified, not ${roundChild}`);
    console.log(JSON.stringify(measureRound(roundChild)));
    return;
  }
  const started = Date.now();
  const profiles = {};
  let advertVerification = null;
  let hopResolution = null;
  const hostile = [];
  if (!only || only === 'profiles') {
    for (const profile of PROFILES) profiles[profile] = measureProfile(profile);
    if (onlyProfile === null) {
      advertVerification = measureAdvertVerification();
      hopResolution = measureHopResolution();
    }
  }
  // The rounds belong with the profiles (--only=profiles runs them too); --only=rounds alone, a few minutes.
  const ingestRounds = ROUNDS > 0 && onlyProfile === null && (!only || only === 'profiles' || only === 'rounds') ? measureIngestRounds() : null;
  // Where ingest time goes, per mesh (a minute or two; --only=costs alone).
  let costShares = null;
  if (onlyProfile === null && (!only || only === 'profiles' || only === 'costs')) {
    costShares = {};
    for (const profile of ['default', 'large']) costShares[profile] = measureCostShares(profile);
  }
  if (only === 'hops') hopResolution = measureHopResolution(); // hop resolution alone, a minute or two
  if (only === 'verification') advertVerification = measureAdvertVerification(); // a minute or two
  if (!only || only === 'hostile') {
    for (const budget of [16, 256]) for (const className of HOSTILE_RUNS) hostile.push(measureHostile(className, budget));
  }
  const base = profiles.default || null;
  const large = profiles.large || null;
  const result = {
    benchmark: 'core',
    quick,
    only,
    date: new Date().toISOString(),
    cores_available: CORES_AVAILABLE,
    machine: { cpus: os.cpus().length, cpu: os.cpus()[0].model, memoryGiB: Math.round(os.totalmem() / 1024 ** 3), node: process.version, platform: `${os.platform()} ${os.release()}` },
    command: `npm run bench:core${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
    rate_basis: 'process CPU time (user+system); wall-clock ingest rate in ingest_wall_per_s',
    load_average: os.loadavg().map((v) => Math.round(v * 100) / 100),
    // Headline figures of the default mesh at the top level (the README table reads them).
    ...(base ? {
      packets: base.packets, transmissions: base.transmissions, observations: base.observations,
      decode_only_per_s: base.decode_only_per_s, reference_library_decode_only_per_s: base.reference_library_decode_only_per_s,
      ingest_per_s: base.ingest_per_s, ingest_to_decode_ratio: base.ingest_to_decode_ratio, ingest_flatness: base.ingest_flatness,
      chunk_rates_per_s: base.fifth_rates_per_s, bytes_per_packet: base.bytes_per_packet, bytes_per_transmission: base.bytes_per_transmission,
      views: base.views,
    } : {}),
    large_to_default_ingest_ratio: base && large ? round(large.ingest_per_s / base.ingest_per_s, 3) : null,
    ingest_rounds: ingestRounds,
    cost_shares: costShares,
    profiles,
    advert_verification: advertVerification,
    hop_resolution: hopResolution,
    hostile,
    duration_s: Math.round((Date.now() - started) / 1000),
  };
  if (outFile !== null) {
    writeResultFile(outFile, result);
    return;
  }
  // A partial run (--only=profiles|hostile) replaces its part of the latest full result of the
  // same size and says so, so that one JSON holds both parts, each with its own run recorded.
  const previous = only ? readResult(`core${quick ? '-quick' : ''}`, { from: 'latest' }) : null;
  if (previous) {
    const keep = only === 'hostile' ? ['profiles', 'ingest_rounds', 'cost_shares', 'advert_verification', 'hop_resolution', 'large_to_default_ingest_ratio', 'packets', 'transmissions', 'observations', 'decode_only_per_s', 'reference_library_decode_only_per_s', 'ingest_per_s', 'ingest_to_decode_ratio', 'ingest_flatness', 'chunk_rates_per_s', 'bytes_per_packet', 'bytes_per_transmission', 'views'] : ['hostile'];
    // --only=hops (or verification) keeps every measured part of the previous run but that one.
    const measuredAlone = { hops: 'hop_resolution', verification: 'advert_verification', rounds: 'ingest_rounds', costs: 'cost_shares' }[only];
    if (measuredAlone) keep.splice(0, keep.length, ...Object.keys(previous).filter((key) => ![measuredAlone, 'benchmark', 'quick', 'only', 'date', 'machine', 'command', 'rate_basis', 'load_average', 'duration_s', 'parts_from'].includes(key)));
    for (const key of keep) if (previous[key] !== undefined) result[key] = previous[key];
    result.parts_from = partsFrom(previous, only, { command: result.command, date: result.date });
  }
  writeResult('core', result, { report: 'CORE.md', render: renderCoreReport });
}

function readIfExists(file) {
  try { return JSON.parse(fs.readFileSync(file, 'utf8')); } catch (err) { return null; }
}

function round(value, digits = 3) {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

main();
