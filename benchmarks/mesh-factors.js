#!/usr/bin/env node
'use strict';
/**
 * What makes the large mesh's reports cost more than the default mesh's: the size of the mesh,
 * or the shape of its reports? Issue 8 asks for large-mesh ingest >= 0.6x the default mesh's.
 * The large profile differs from the default in the mesh (5,200 nodes against 176, 64 observers
 * against 8, colliding 1-byte prefixes, every view's state many times larger) and, before it was
 * calibrated to the real capture (2026-11-24), in its reports too: flood paths of ~5 hops against
 * ~2.7, ~7 observers per transmission against ~2, and 40% of hop hashes 2 or 3 bytes long (the
 * capture: 7%). This study takes them apart, with the large world and its traffic mix unchanged
 * and only the report shape changed:
 *
 *   default              the default profile
 *   large                the large profile: a loss per hop (hopSurvival 0.5: an observer h relays
 *                        away reports a flood with chance 0.5^h) and hop hashes of 1/2/3 bytes
 *                        at 93/6/1%, the path lengths and hash sizes of the real capture
 *   large-wide-hashes    large with hashes at 60/30/10%, the profile's mix until 2026-11-24
 *   large-long-paths     large without the loss per hop (hopSurvival 1)
 *   large-uncalibrated   both: the large profile until 2026-11-24, every published large-mesh
 *                        figure before that day
 *   large-short-paths    large-uncalibrated, flood hop limit `--short-hops` (default 4: mean
 *                        hops near the default mesh's); nothing else changed
 *   large-few-observers  large-uncalibrated, observers per transmission as the default's (1-4)
 *   large-default-shape  both: the uncalibrated large mesh sending reports shaped like the
 *                        default's
 *
 * Each variant ingests `--reports` simulated reports (default 300,000) into a fresh engine with
 * every view, in a process of its own, `--rounds` times (default 3), the order rotating each
 * round; rates are per CPU-second of that process, as bench:core's rounds. Figures per variant:
 * hops per report, observations per transmission, nodes known at the end, and the median
 * (min-max) ingest rate, its ratio to the default mesh's in the same round, and per report + hop;
 * and the distribution of path lengths (hops per non-TRACE report), beside that of the real
 * capture in the shared fixtures (`real_capture`, when the file is there): issue 8 asks for
 * realistic path lengths, and the large mesh's ratio turns on them.
 *
 *   node --max-old-space-size=8192 benchmarks/mesh-factors.js [--reports=300000] [--rounds=3]
 *        [--short-hops=4] [--variants=default,large,...] [--out=file.json]
 *
 * Writes benchmarks/results/latest/mesh-factors.json (not tracked; `npm run bench:publish --
 * mesh-factors` to commit it), or `--out`. A study of causes beside bench:core, which keeps the issue's
 * figures; its variants are not profiles an operator would choose.
 */
const os = require('os');
const { spawnSync } = require('child_process');
const { writeResult, writeResultFile } = require('./lib/results');
const { median } = require('./lib/report');
const { hopLengthSummary, realCaptureHopLengths, hashSizeShares, realCaptureHashSizes, REAL_CAPTURE_PATH, TRACE } = require('./lib/hop-lengths');

const arg = (name, fallback) => {
  const found = process.argv.find((a) => a.startsWith(`--${name}=`));
  return found ? found.slice(name.length + 3) : fallback;
};

// The default profile's observers per transmission (imports/core/simulate/profiles.js DEFAULTS).
const DEFAULT_OBSERVERS_PER_TRANSMISSION = { 1: 30, 2: 30, 3: 25, 4: 15 };

// The large profile's options before it was calibrated to the real capture (2026-11-24).
const { LARGE_UNCALIBRATED: UNCALIBRATED } = require('../imports/core/simulate/profiles');

/** Simulator options of each variant, from the short-path hop limit. */
function variantOptions(shortHops) {
  return {
    default: { profile: 'default' },
    large: { profile: 'large' },
    'large-wide-hashes': { profile: 'large', hashSizeMix: UNCALIBRATED.hashSizeMix },
    'large-long-paths': { profile: 'large', hopSurvival: UNCALIBRATED.hopSurvival },
    'large-uncalibrated': { profile: 'large', ...UNCALIBRATED },
    // The shape variants start from the uncalibrated large mesh, as first studied.
    'large-short-paths': { profile: 'large', ...UNCALIBRATED, maxFloodHops: shortHops },
    'large-few-observers': { profile: 'large', ...UNCALIBRATED, observersPerTransmission: DEFAULT_OBSERVERS_PER_TRANSMISSION },
    'large-default-shape': { profile: 'large', ...UNCALIBRATED, maxFloodHops: shortHops, observersPerTransmission: DEFAULT_OBSERVERS_PER_TRANSMISSION },
  };
}

const round = (value, digits = 3) => Math.round(value * 10 ** digits) / 10 ** digits;

/** Child: one variant, one fresh engine; prints one JSON line. */
function runVariant(name, optionsJson, count) {
  const { createEngine } = require('../imports/core/engine');
  const { simulatedReports } = require('./lib/simulated-reports');
  const { reports, channels } = simulatedReports({ seed: 2026, ...JSON.parse(optionsJson) }, count);
  const engine = createEngine({ channels, store: { memoryBudgetBytes: 64 * 1024 ** 3 } });
  if (global.gc) global.gc();
  const started = process.cpuUsage();
  for (const report of reports) engine.ingest(report);
  engine.store.flushViews(); // the views' held updates (store.js viewBatch), timed with the rest
  const used = process.cpuUsage(started);
  const cpuSeconds = (used.user + used.system) / 1e6;
  const store = engine.store;
  let hops = 0;
  // Path lengths, TRACE left out (its path bytes are SNRs): of every report, and of each
  // transmission's first-heard report (the one a store keeping one path per packet would keep).
  const lengths = [];
  const firstHeard = [];
  const hashSizes = []; // of reports with a hop: bytes per hop hash
  store.fifo.forEachOldest((tx) => {
    const observations = tx.observations;
    for (const observation of observations) {
      hops += observation.path.length;
      if (tx.payloadType !== TRACE) lengths.push(observation.path.length);
      if (tx.payloadType !== TRACE && observation.path.length > 0) hashSizes.push(observation.path[0].length / 2);
    }
    if (tx.payloadType !== TRACE) firstHeard.push(observations[0].path.length);
  });
  console.log(JSON.stringify({
    variant: name,
    reports: count,
    ingest_per_s: Math.round(count / cpuSeconds),
    hops_per_report: round(hops / store.observationCount, 2),
    observations_per_transmission: round(store.observationCount / store.size, 2),
    transmissions: store.size,
    nodes_known: store.nodes.size,
    observers_known: store.directory.observers.size,
    // Distinct hop lists among the stored reports (the path interner's): how often a path
    // repeats, which decides how much of the per-hop views' state stays in the CPU's caches.
    distinct_paths: store.paths.size,
    hop_lengths: hopLengthSummary(lengths),
    first_heard_hop_lengths: hopLengthSummary(firstHeard),
    hash_sizes: hashSizeShares(hashSizes),
  }));
}

/**
 * The path lengths of real traffic, for the variants' to be read against: the shared fixture's
 * 250 transmissions (one public mesh, one day), when this machine has it.
 */
function realCapture() {
  const lengths = realCaptureHopLengths();
  if (lengths === null) return { absent: `no ${REAL_CAPTURE_PATH}` };
  return {
    source: 'meshcore-real-packets.ndjson (shared fixtures): 250 transmissions of one public mesh (San Francisco Bay Area, 2026-03-29), one report each, as a reference analyzer stored them; which of a transmission\'s reports it kept is not recorded (a store keeping one per packet keeps the first heard), so compare with both hop_lengths and first_heard_hop_lengths of a variant',
    hop_lengths: hopLengthSummary(lengths),
    hash_sizes: hashSizeShares(realCaptureHashSizes()),
  };
}

function main() {
  const count = Number(arg('reports', '300000'));
  const rounds = Number(arg('rounds', '3'));
  const shortHops = Number(arg('short-hops', '4'));
  const all = variantOptions(shortHops);
  const names = arg('variants', Object.keys(all).join(',')).split(',');
  for (const name of names) if (!all[name]) throw new Error(`--variants: unknown "${name}"; known: ${Object.keys(all).join(', ')}`);
  if (!names.includes('default')) throw new Error('--variants must include default (every ratio is to it)');
  if (!(Number.isInteger(count) && count >= 10000)) throw new Error('--reports must be an integer of at least 10000');
  if (!(Number.isInteger(rounds) && rounds >= 1)) throw new Error('--rounds must be a positive integer');
  const started = Date.now();
  const perRound = [];
  for (let r = 0; r < rounds; r++) {
    // Rotate the order so that no variant always runs first (or last) on a machine that drifts.
    const order = names.map((_, i) => names[(i + r) % names.length]);
    const entry = { round: r + 1, order, variants: {} };
    for (const name of order) {
      const child = spawnSync(process.execPath, ['--expose-gc', '--max-old-space-size=8192', __filename, '--child', name, JSON.stringify(all[name]), String(count)], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
      if (child.status !== 0) throw new Error(`${name} (round ${r + 1}) failed: ${child.stderr || child.error}`);
      entry.variants[name] = JSON.parse(child.stdout.trim().split('\n').pop());
    }
    const base = entry.variants.default;
    for (const name of names) {
      const v = entry.variants[name];
      v.to_default = round(v.ingest_per_s / base.ingest_per_s);
      // (reports x (1 + hops)) per CPU-second against the default's: 1 = a hop costs the same.
      v.to_default_per_report_and_hop = round((v.ingest_per_s * (1 + v.hops_per_report)) / (base.ingest_per_s * (1 + base.hops_per_report)));
    }
    console.log(`round ${r + 1}: ${order.map((name) => `${name} ${entry.variants[name].ingest_per_s}/s (${entry.variants[name].to_default})`).join(', ')}`);
    perRound.push(entry);
  }
  const spread = (values) => ({ median: round(median(values)), min: round(Math.min(...values)), max: round(Math.max(...values)) });
  const summary = {};
  for (const name of names) {
    const runs = perRound.map((entry) => entry.variants[name]);
    summary[name] = {
      options: all[name],
      hops_per_report: runs[0].hops_per_report,
      observations_per_transmission: runs[0].observations_per_transmission,
      nodes_known: runs[0].nodes_known,
      observers_known: runs[0].observers_known,
      distinct_paths: runs[0].distinct_paths,
      hop_lengths: runs[0].hop_lengths,
      first_heard_hop_lengths: runs[0].first_heard_hop_lengths,
      hash_sizes: runs[0].hash_sizes,
      ingest_per_s: spread(runs.map((v) => v.ingest_per_s)),
      to_default: spread(runs.map((v) => v.to_default)),
      to_default_per_report_and_hop: spread(runs.map((v) => v.to_default_per_report_and_hop)),
    };
  }
  const result = {
    benchmark: 'mesh-factors',
    date: new Date().toISOString(),
    command: `node --max-old-space-size=8192 benchmarks/mesh-factors.js --reports=${count} --rounds=${rounds} --short-hops=${shortHops}${names.length < Object.keys(all).length ? ` --variants=${names.join(',')}` : ''}${arg('out', null) !== null ? ` --out=${arg('out', null)}` : ''}`,
    machine: { cpus: os.cpus().length, model: os.cpus()[0] ? os.cpus()[0].model : null, memory_gib: Math.round(os.totalmem() / 1024 ** 3), node: process.version },
    method: 'each variant in a fresh process per round, order rotating; every view on; rates per CPU-second of that process',
    reports_per_variant: count,
    rounds,
    summary,
    real_capture: realCapture(),
    rounds_detail: perRound,
    load_average_end: os.loadavg().map((l) => round(l, 2)),
    duration_s: Math.round((Date.now() - started) / 1000),
  };
  const out = arg('out', null);
  if (out === null) writeResult('mesh-factors', result);
  else writeResultFile(out, result);
  const real = result.real_capture;
  console.log(real.hop_lengths ? `real capture: ${real.hop_lengths.reports} reports, mean hops ${real.hop_lengths.mean} (95% ${real.hop_lengths.mean_ci95.join('-')}), 5+ hops ${real.hop_lengths.share_5_or_more}` : `real capture: ${real.absent}`);
  for (const name of names) {
    const s = summary[name];
    console.log(`${name}: ${s.hops_per_report} hops/report (non-TRACE mean ${s.hop_lengths.mean}, 5+ hops ${s.hop_lengths.share_5_or_more}; first heard ${s.first_heard_hop_lengths.mean}), ${s.observations_per_transmission} observations/transmission, ${s.nodes_known} nodes; ingest ${s.ingest_per_s.median}/s; to default ${s.to_default.median} (${s.to_default.min}-${s.to_default.max}); per report + hop ${s.to_default_per_report_and_hop.median}`);
  }
}

if (process.argv[2] === '--child') runVariant(process.argv[3], process.argv[4], Number(process.argv[5]));
else main();

module.exports = { variantOptions };
