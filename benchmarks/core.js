#!/usr/bin/env node
'use strict';
/**
 * Core engine benchmark: `npm run bench:core` (one million packets) or `-- --quick` (100k).
 *
 * Measures, on the simulator's traffic, in one process on one core:
 *   decode_only_per_s   decodePacket alone over the same reports
 *   ingest_per_s        decode + dedup + store + every view, over the whole run
 *   ingest_flatness     ingest rate of the last 100k reports / the first 100k's
 *   bytes_per_packet    heap growth after GC with everything stored, per ingested report
 *                       (also per stored transmission, for readers who count those)
 *   views.<name>        snapshot latency p50/p99 at 28k reports and at 1M (or 100k with --quick)
 * Rates are computed from this process's CPU time (user + system), not wall time: the machine
 * is shared and noisy, and CPU time is what "packets per second on one core" means. Wall-clock
 * rates are recorded alongside.
 * Writes benchmarks/results/core.json (or core-quick.json) and benchmarks/CORE.md.
 * "Packet" here means one observer report (one MQTT message), the unit of ingest.
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const { createSimulator } = require('../imports/core/simulate');
const { parseObserverMessage } = require('../imports/core/observer-message');
const { decodePacket } = require('../imports/core/decode');
const { MeshCorePacketDecoder } = require('@michaelhart/meshcore-decoder');
const { createEngine } = require('../imports/core/engine');
const { percentile, renderCoreReport } = require('./lib/report');

const quick = process.argv.includes('--quick');
const TOTAL = quick ? 100000 : 1000000;
const SMALL = 28000;
const CHUNK = 100000;
const SNAPSHOT_RUNS = quick ? 100 : 200;

/** CPU seconds (user + system) of this process since `since` (a process.cpuUsage() value). */
function cpuSeconds(since) {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1e6;
}

function gc() {
  if (global.gc) { global.gc(); global.gc(); }
}

function heapUsed() {
  gc();
  return process.memoryUsage().heapUsed;
}

function generateReports(count, seed) {
  const sim = createSimulator({ seed });
  const reports = [];
  for (const message of sim.messages(count)) {
    const time = Date.parse(message.payload.timestamp);
    const { report, error } = parseObserverMessage(message.topic, JSON.stringify(message.payload), time);
    if (error) throw new Error(error.message);
    reports.push(report);
  }
  return { reports, channels: sim.channels.map((c) => ({ name: c.name, key: c.key })) };
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

function measureSnapshots(engine, now) {
  const results = {};
  for (const name of engine.views.keys()) {
    const samples = [];
    const cpuSamples = [];
    let paramsList;
    try {
      paramsList = paramsFor(name, engine);
    } catch (err) {
      paramsList = [{}];
    }
    // Start each view from a collected heap, so one view's garbage is not charged to the next.
    gc();
    for (let run = 0; run < SNAPSHOT_RUNS; run++) {
      for (const params of paramsList) {
        const cpuStarted = process.cpuUsage();
        const started = process.hrtime.bigint();
        const snapshot = engine.snapshot(name, params, now);
        samples.push(Number(process.hrtime.bigint() - started) / 1e6);
        // CPU time of this process over the call: unlike wall time, not inflated when another
        // process takes the core (it still includes our own GC).
        const cpu = process.cpuUsage(cpuStarted);
        cpuSamples.push((cpu.user + cpu.system) / 1000);
        if (run === 0 && snapshot === undefined) throw new Error(`${name} returned nothing`);
      }
    }
    samples.sort((a, b) => a - b);
    cpuSamples.sort((a, b) => a - b);
    results[name] = { p50: percentile(samples, 50), p99: percentile(samples, 99), cpuP50: percentile(cpuSamples, 50), cpuP99: percentile(cpuSamples, 99), samples: samples.length, params: paramsList.map((p) => Object.keys(p).join('+') || 'default') };
  }
  return results;
}

function main() {
  const started = Date.now();
  console.log(`generating ${TOTAL} simulated observer reports...`);
  const generated = generateReports(TOTAL, 2026);
  let reports = generated.reports;
  const { channels } = generated;
  const reportCount = reports.length;

  // Decode alone, over the first 200k reports (enough for a steady rate).
  const decodeSample = reports.slice(0, Math.min(200000, reports.length));
  for (let i = 0; i < 20000; i++) decodePacket(decodeSample[i].raw.toLowerCase()); // warm-up
  let cpu0 = process.cpuUsage();
  for (const report of decodeSample) decodePacket(report.raw.toLowerCase());
  const decodeOnlyPerS = decodeSample.length / cpuSeconds(cpu0);
  console.log(`decode only: ${Math.round(decodeOnlyPerS)}/s`);
  // For context: the reference decoder (@michaelhart/meshcore-decoder) on the same packets.
  const referenceSample = decodeSample.slice(0, 50000);
  cpu0 = process.cpuUsage();
  for (const report of referenceSample) MeshCorePacketDecoder.decode(report.raw);
  const referenceDecodePerS = referenceSample.length / cpuSeconds(cpu0);
  console.log(`reference library decode only: ${Math.round(referenceDecodePerS)}/s`);

  let engine = createEngine({ channels, store: { memoryBudgetBytes: 64 * 1024 ** 3 } });
  const chunkRates = [];
  let snapshotsSmall = null;
  // Ingest CPU time is summed only while ingesting, so the 28k snapshot pause is in no rate.
  let ingestCpu = 0;
  let ingestCpuAtChunkStart = 0;
  let wallNs = 0n;
  let resumedCpu = process.cpuUsage();
  let resumedWall = process.hrtime.bigint();
  for (let i = 0; i < reports.length; i++) {
    engine.ingest(reports[i]);
    const done = i + 1;
    if (done === SMALL || done % CHUNK === 0) {
      ingestCpu += cpuSeconds(resumedCpu);
      wallNs += process.hrtime.bigint() - resumedWall;
      if (done % CHUNK === 0) {
        chunkRates.push(CHUNK / (ingestCpu - ingestCpuAtChunkStart));
        ingestCpuAtChunkStart = ingestCpu;
        process.stdout.write(`  ${done} ingested, chunk rate ${Math.round(chunkRates[chunkRates.length - 1])}/s, heap ${Math.round(process.memoryUsage().heapUsed / 1048576)} MB\n`);
      }
      if (done === SMALL) snapshotsSmall = measureSnapshots(engine, reports[i].time);
      resumedCpu = process.cpuUsage();
      resumedWall = process.hrtime.bigint();
    }
  }
  const ingestPerS = reportCount / ingestCpu;
  const ingestWallPerS = reportCount / (Number(wallNs) / 1e9);
  const lastTime = reports[reports.length - 1].time;
  const snapshotsLarge = measureSnapshots(engine, lastTime);
  // Memory: what the engine alone retains. The pre-generated reports share numbers and strings
  // with the store (times, SNRs, ids), so they are released first; then the engine is measured
  // against the heap with it released too (no baseline taken before generation can see those).
  reports = null;
  const stats = engine.store.stats();
  const heapWithEngine = heapUsed();
  engine = null;
  const bytesPerPacket = (heapWithEngine - heapUsed()) / reportCount;
  const bytesPerTransmission = bytesPerPacket * reportCount / stats.transmissions;
  console.log(`ingest: ${Math.round(ingestPerS)}/s; ${Math.round(bytesPerPacket)} bytes/packet, ${Math.round(bytesPerTransmission)} bytes/transmission`);

  const largeLabel = quick ? '100k' : '1m';
  const views = {};
  for (const name of Object.keys(snapshotsLarge)) {
    views[name] = {
      p50_ms_28k: round(snapshotsSmall[name].p50), p99_ms_28k: round(snapshotsSmall[name].p99),
      [`p50_ms_${largeLabel}`]: round(snapshotsLarge[name].p50), [`p99_ms_${largeLabel}`]: round(snapshotsLarge[name].p99),
      cpu_p99_ms_28k: round(snapshotsSmall[name].cpuP99), [`cpu_p99_ms_${largeLabel}`]: round(snapshotsLarge[name].cpuP99),
      samples: snapshotsLarge[name].samples,
      params: snapshotsLarge[name].params,
    };
  }
  const result = {
    benchmark: 'core',
    quick,
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, cpu: os.cpus()[0].model, memoryGiB: Math.round(os.totalmem() / 1024 ** 3), node: process.version, platform: `${os.platform()} ${os.release()}` },
    command: `npm run bench:core${quick ? ' -- --quick' : ''}`,
    packets: reportCount,
    transmissions: stats.transmissions,
    observations: stats.observations,
    decode_only_per_s: Math.round(decodeOnlyPerS),
    reference_library_decode_only_per_s: Math.round(referenceDecodePerS),
    ingest_per_s: Math.round(ingestPerS),
    ingest_wall_per_s: Math.round(ingestWallPerS),
    rate_basis: 'process CPU time (user+system); wall-clock ingest rate in ingest_wall_per_s',
    load_average: os.loadavg().map((v) => Math.round(v * 100) / 100),
    ingest_to_decode_ratio: round(ingestPerS / decodeOnlyPerS, 3),
    ingest_flatness: round(chunkRates[chunkRates.length - 1] / chunkRates[0], 3),
    chunk_rates_per_s: chunkRates.map(Math.round),
    bytes_per_packet: Math.round(bytesPerPacket),
    bytes_per_transmission: Math.round(bytesPerTransmission),
    store_estimated_bytes: stats.estimatedBytes,
    views,
    duration_s: Math.round((Date.now() - started) / 1000),
  };
  const outDir = path.join(__dirname, 'results');
  fs.mkdirSync(outDir, { recursive: true });
  const file = path.join(outDir, quick ? 'core-quick.json' : 'core.json');
  fs.writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  fs.writeFileSync(path.join(__dirname, 'CORE.md'), renderCoreReport(result, quick ? null : readIfExists(path.join(outDir, 'core-quick.json'))));
  console.log(`wrote ${path.relative(process.cwd(), file)} and benchmarks/CORE.md`);
}

function readIfExists(file) {
  try { return JSON.parse(fs.readFileSync(file, 'utf8')); } catch (err) { return null; }
}

function round(value, digits = 3) {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

main();
