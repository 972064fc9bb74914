#!/usr/bin/env node
'use strict';
/**
 * What the real capture's share of adverts would do to issue 8's default / reference ratio.
 *
 * The shared fixtures' capture (one public mesh, one day) has adverts in 22% of its transmissions;
 * the simulator's mix sends 5%. Each new advert costs the ingest an Ed25519 check that the
 * reference library's decode does not make, so the share moves the ratio. Which share is typical
 * is not known (250 transmissions are a small sample), and the profiles stay at 5% until the
 * owner decides (benchmarks/README.md, "How long are real paths?"): this study measures both.
 *
 *   default                  the default profile (adverts ~5% of transmissions)
 *   default-capture-adverts  the same mesh and traffic with the ADVERT weight of its payload mix
 *                            raised (CAPTURE_ADVERT_WEIGHT) so that ~22% of transmissions are adverts
 *
 * Per round, each variant is ingested in fresh processes (`--reports`, default 1,000,000, issue 8's
 * scale), the order alternating: once with advert checks, once without. Each process times the
 * reference library's decode over the same reports first, as bench:core's rounds do (over every
 * report, its cold start spread over the stream); with our checks on, also the reference's decode
 * with its own Ed25519 checks (decodeWithVerification), over the first 100k reports. Rates are per
 * CPU-second of that process.
 *
 *   node --max-old-space-size=8192 benchmarks/advert-share.js [--reports=1000000] [--rounds=3]
 *        [--verifying-reports=100000] [--out=file.json]
 *
 * Writes benchmarks/results/latest/advert-share.json (not tracked; `npm run bench:publish --
 * advert-share` to commit it), or `--out`. A study beside bench:core, which keeps the issue's figures.
 */
const os = require('os');
const { spawnSync } = require('child_process');
const { writeResult, writeResultFile } = require('./lib/results');
const { median } = require('./lib/report');
const { referenceDecodeRates, cpuSeconds } = require('./lib/reference-decode');
const { DEFAULTS } = require('../imports/core/simulate/profiles');

const arg = (name, fallback) => {
  const found = process.argv.find((a) => a.startsWith(`--${name}=`));
  return found ? found.slice(name.length + 3) : fallback;
};

// The default profile's payload mix (imports/core/simulate/profiles.js DEFAULTS) with ADVERT at
// this weight gives ~22% of transmissions as adverts (21.6% over 1M reports: results/advert-share.json).
const CAPTURE_ADVERT_WEIGHT = 32;
// The capture's share (benchmarks/lib/hop-lengths.js reads the same file): 55 of 250 transmissions.
const CAPTURE_ADVERT_SHARE = 55 / 250;

const VARIANTS = {
  default: {},
  'default-capture-adverts': { payloadMix: { ...DEFAULTS.payloadMix, ADVERT: CAPTURE_ADVERT_WEIGHT } },
};

const round = (value, digits = 3) => Math.round(value * 10 ** digits) / 10 ** digits;

// The reference library's verifying decode (decodeWithVerification: its Ed25519 check of every
// advert, async) is some 6 times slower than its decode: timed over the first
// `--verifying-reports` reports only (default 100,000).
const VERIFYING_REFERENCE_REPORTS = 100000;

/** Child: one variant, checks on or off; prints one JSON line. */
async function runChild(name, verify, count, verifyingCount) {
  const { simulatedReports } = require('./lib/simulated-reports');
  const { createEngine } = require('../imports/core/engine');
  const { decodePacket } = require('../imports/core/decode');
  const { MeshCorePacketDecoder } = require('@michaelhart/meshcore-decoder');
  const { reports, channels } = simulatedReports({ seed: 2026, profile: 'default', ...VARIANTS[name] }, count);
  // Advert share of the transmissions (first report of each content hash).
  const hashes = new Set();
  let adverts = 0;
  for (const report of reports) {
    const { packet } = decodePacket(report.raw);
    if (!packet || hashes.has(packet.hash)) continue;
    hashes.add(packet.hash);
    if (packet.payloadType === 4) adverts++;
  }
  const referencePerS = referenceDecodeRates(reports).perS;
  global.gc();
  const engine = createEngine({ channels, store: { memoryBudgetBytes: 64 * 1024 ** 3, verifyAdverts: verify } });
  let started = process.cpuUsage();
  for (const report of reports) engine.ingest(report);
  engine.store.flushViews(); // the views' held updates (store.js viewBatch), timed with the rest
  const ingestPerS = reports.length / cpuSeconds(started);
  const stats = engine.store.stats();
  // With our checks on, the reference's own checks too: its decode with verification, per report
  // (a decoder: every copy of an advert is checked again), over the first reports of the stream.
  let verifyingReferencePerS = null;
  if (verify) {
    const sample = reports.slice(0, Math.min(verifyingCount, reports.length));
    started = process.cpuUsage();
    for (const report of sample) await MeshCorePacketDecoder.decodeWithVerification(report.raw);
    verifyingReferencePerS = sample.length / cpuSeconds(started);
  }
  process.stdout.write(`${JSON.stringify({
    variant: name,
    verify,
    reports: count,
    transmissions: hashes.size,
    advert_share: round(adverts / hashes.size, 4),
    ingest_per_s: Math.round(ingestPerS),
    reference_library_decode_only_per_s: Math.round(referencePerS),
    to_reference: round(ingestPerS / referencePerS),
    // null with our checks off.
    reference_verifying_decode_per_s: verifyingReferencePerS === null ? null : Math.round(verifyingReferencePerS),
    reference_verifying_decode_reports: verifyingReferencePerS === null ? null : Math.min(verifyingCount, reports.length),
    to_verifying_reference: verifyingReferencePerS === null ? null : round(ingestPerS / verifyingReferencePerS),
    advert_verification: stats.advertVerification,
  })}\n`);
}

function spread(values) {
  return { median: round(median(values)), min: round(Math.min(...values)), max: round(Math.max(...values)) };
}

function main() {
  const count = Number(arg('reports', '1000000'));
  const rounds = Number(arg('rounds', '3'));
  const out = arg('out', null);
  const verifyingCount = Number(arg('verifying-reports', String(VERIFYING_REFERENCE_REPORTS)));
  if (!(Number.isInteger(verifyingCount) && verifyingCount >= 1000)) throw new Error(`--verifying-reports must be an integer of at least 1000, not ${verifyingCount}`);
  if (!(Number.isInteger(count) && count >= 50000)) throw new Error(`--reports must be an integer of at least 50000, not ${count}`);
  if (!(Number.isInteger(rounds) && rounds >= 1)) throw new Error(`--rounds must be a whole number of at least 1, not ${rounds}`);
  const started = Date.now();
  const runs = [];
  const names = Object.keys(VARIANTS);
  for (let r = 1; r <= rounds; r++) {
    const order = r % 2 === 1 ? names : [...names].reverse();
    const entry = { round: r, order, variants: {} };
    for (const name of order) {
      entry.variants[name] = {};
      for (const verify of [true, false]) {
        const child = spawnSync(process.execPath, ['--expose-gc', '--max-old-space-size=8192', __filename, '--child', name, String(verify), String(count), String(verifyingCount)], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
        if (child.status !== 0) throw new Error(`${name} (round ${r}, checks ${verify ? 'on' : 'off'}) failed: ${child.stderr || child.error}`);
        const result = JSON.parse(child.stdout.trim().split('\n').pop());
        entry.variants[name][verify ? 'checked' : 'unchecked'] = result;
        console.log(`round ${r} ${name} checks ${verify ? 'on ' : 'off'}: adverts ${(100 * result.advert_share).toFixed(1)}% of transmissions, ingest ${result.ingest_per_s}/s, reference ${result.reference_library_decode_only_per_s}/s: ${result.to_reference}${verify ? `; reference with its checks ${result.reference_verifying_decode_per_s}/s: ${result.to_verifying_reference}` : ''}`);
      }
    }
    runs.push(entry);
  }
  const variants = {};
  for (const name of names) {
    const pick = (mode, key) => runs.map((r) => r.variants[name][mode][key]);
    variants[name] = {
      advert_share: runs[0].variants[name].checked.advert_share,
      to_reference_checked: spread(pick('checked', 'to_reference')),
      to_reference_unchecked: spread(pick('unchecked', 'to_reference')),
      // Ingest with our checks over the reference's decode with its own checks.
      to_verifying_reference: spread(pick('checked', 'to_verifying_reference')),
      ingest_checked_per_s: spread(pick('checked', 'ingest_per_s')),
      ingest_unchecked_per_s: spread(pick('unchecked', 'ingest_per_s')),
      // The checks' cost as a share of checked ingest CPU, per round (the two processes of a round).
      checks_share_of_ingest_cpu: spread(runs.map((r) => 1 - r.variants[name].checked.ingest_per_s / r.variants[name].unchecked.ingest_per_s)),
    };
  }
  const result = {
    benchmark: 'advert-share',
    date: new Date().toISOString(),
    command: `node --max-old-space-size=8192 benchmarks/advert-share.js${process.argv.length > 2 ? ` ${process.argv.slice(2).join(' ')}` : ''}`,
    machine: { cpus: os.cpus().length, cpu: os.cpus()[0].model, node: process.version },
    load_average: os.loadavg().map((v) => round(v, 2)),
    reports_per_run: count,
    verifying_reference_reports: verifyingCount,
    rounds_count: rounds,
    capture_advert_share: round(CAPTURE_ADVERT_SHARE, 4),
    capture_advert_weight: CAPTURE_ADVERT_WEIGHT,
    method: 'each variant with advert checks on and off, each in a fresh process per round, order alternating; the reference library decodes the same reports first in each process; rates per CPU-second of that process',
    variants,
    rounds: runs,
    duration_s: Math.round((Date.now() - started) / 1000),
  };
  if (out !== null) writeResultFile(out, result);
  else writeResult('advert-share', result);
  for (const [name, v] of Object.entries(variants)) {
    console.log(`${name}: adverts ${(100 * v.advert_share).toFixed(1)}%; default / reference ${v.to_reference_checked.median} (${v.to_reference_checked.min}-${v.to_reference_checked.max}) with checks, ${v.to_reference_unchecked.median} without; checks ${(100 * v.checks_share_of_ingest_cpu.median).toFixed(1)}% of ingest; against the reference with its checks ${v.to_verifying_reference.median}`);
  }
}

if (process.argv[2] === '--child') {
  runChild(process.argv[3], process.argv[4] === 'true', Number(process.argv[5]), Number(process.argv[6])).catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
else main();
