#!/usr/bin/env node
'use strict';
/**
 * Cost of a region-scoped view instance (imports/core/analytics/region-scope.js): after N
 * reports (100k by default, `--total=N`) on a mesh profile (`--profile=large`), for one region
 * (the busiest by default, `--region=X`):
 *   - the first scoped snapshot of `stats` (creates the region store: catch-up from
 *     store.byObserver, then the view), wall and CPU ms;
 *   - each further view's first scoped snapshot (its instance catches up on the region store);
 *   - a second snapshot of each (the steady cost, as the whole-store snapshot);
 *   - memory: what the `regionScopes` part of the memory account says, and the heap after GC
 *     with and without the scopes;
 *   - ingest CPU per report with every view scoped for that region, against none.
 *   node --expose-gc benchmarks/region-scope.js [--total=100000] [--profile=large] [--region=SEA]
 * Writes benchmarks/results/latest/region-scope.json (not tracked) with the load average.
 */
const os = require('os');
const { createSimulator } = require('../imports/core/simulate');
const { parseObserverMessage } = require('../imports/core/observer-message');
const { createEngine } = require('../imports/core/engine');
const { writeResult } = require('./lib/results');

const arg = (name, fallback) => {
  const found = process.argv.find((a) => a.startsWith(`--${name}=`));
  return found ? found.slice(name.length + 3) : fallback;
};
const TOTAL = Number(arg('total', 100000));
const PROFILE = arg('profile', 'large');
const MORE = Number(arg('more', 20000));

function gc() {
  if (global.gc) { global.gc(); global.gc(); }
}

function heapMB() {
  gc();
  return process.memoryUsage().heapUsed / 1048576;
}

function timed(run) {
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  const value = run();
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  const used = process.cpuUsage(cpu);
  return { value, wallMs: round(wallMs), cpuMs: round((used.user + used.system) / 1000) };
}

const round = (x) => Math.round(x * 100) / 100;

function* reports(simulator, count) {
  for (const message of simulator.messages(count)) {
    const { report, error } = parseObserverMessage(message.topic, JSON.stringify(message.payload), Date.parse(message.payload.timestamp));
    if (!error) yield report;
  }
}

function paramsFor(name, store) {
  if (name === 'node') return { pubKey: store.nodes.keys().next().value };
  if (name === 'channelMessages') return { channel: store.byChannel.keys().next().value };
  return {};
}

function main() {
  const simulator = createSimulator({ seed: 2026, profile: PROFILE });
  const engine = createEngine({ channels: simulator.channels.map((c) => ({ name: c.name, key: c.key })), regionScope: { maxInstances: 64 } });
  const heardByRegion = new Map();
  for (const report of reports(simulator, TOTAL)) {
    engine.ingest(report);
    heardByRegion.set(report.region, (heardByRegion.get(report.region) || 0) + 1);
  }
  const region = arg('region', Array.from(heardByRegion).sort((a, b) => b[1] - a[1])[0][0]);
  const now = engine.store.lastTime;
  const heapBefore = heapMB();
  const accountBefore = engine.store.memory.total;

  const first = timed(() => engine.snapshot('stats', { region }, now));
  const scope = engine.regionScopes.regions.get(region);
  const storeOnly = engine.store.memory.parts.get('regionScopes').bytes;
  const views = {};
  for (const [name, view] of engine.views) {
    if (!view.scopedByRegion) continue;
    const params = paramsFor(name, engine.store);
    const created = name === 'stats' ? first : timed(() => view.snapshot({ ...params, region }, now));
    const again = timed(() => view.snapshot({ ...params, region }, now));
    const whole = timed(() => view.snapshot(params, now));
    const entry = scope.entries.get(name);
    views[name] = { firstMs: created.wallMs, firstCpuMs: created.cpuMs, againMs: again.wallMs, wholeStoreMs: whole.wallMs, instanceBytes: Math.round(entry.account.total) };
  }
  const heapAfter = heapMB();
  const charged = engine.store.memory.parts.get('regionScopes').bytes;
  const regionTransmissions = scope.store.size;
  const storeTransmissions = engine.store.size;

  // Ingest cost with every view scoped for this region, against the same engine with none.
  // Each timed stretch runs the views' held updates (store.js viewBatch) before it ends.
  const withScopes = timed(() => { for (const report of reports(simulator, MORE)) engine.ingest(report); engine.store.flushViews(); });
  for (const name of Array.from(scope.entries.keys())) engine.regionScopes.dropEntry(scope, scope.entries.get(name));
  const withoutScopes = timed(() => { for (const report of reports(simulator, MORE)) engine.ingest(report); engine.store.flushViews(); });

  const result = {
    at: new Date().toISOString(),
    command: `node --expose-gc benchmarks/region-scope.js --total=${TOTAL} --profile=${PROFILE}`,
    machine: { cpus: os.cpus().length, model: os.cpus()[0] && os.cpus()[0].model, node: process.version },
    loadAverage: os.loadavg().map(round),
    profile: PROFILE,
    reports: TOTAL,
    storeTransmissions,
    region,
    regionReports: heardByRegion.get(region),
    regionTransmissions,
    catchUpObservations: engine.regionScopes.counters.catchUpObservations,
    firstStatsSnapshot: { wallMs: first.wallMs, cpuMs: first.cpuMs, transmissions: first.value.transmissions, observations: first.value.observations },
    regionStoreBytes: Math.round(storeOnly),
    chargedBytesAllViews: Math.round(charged),
    mainAccountBytes: Math.round(accountBefore),
    heapMBBefore: round(heapBefore),
    heapMBAfterAllViews: round(heapAfter),
    views,
    ingestCpuUsPerReport: { withEveryViewScoped: round((withScopes.cpuMs * 1000) / MORE), withoutScopes: round((withoutScopes.cpuMs * 1000) / MORE) },
  };
  writeResult('region-scope', result);
  console.log(JSON.stringify(result, null, 2));
}

main();
