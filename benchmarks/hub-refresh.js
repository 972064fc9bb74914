#!/usr/bin/env node
'use strict';
/**
 * What one publish-hub refresh of each dashboard view costs the server, whatever the number of
 * subscribers: `node benchmarks/hub-refresh.js [--reports=N] [--rounds=R]`.
 *
 * Why: with few users the reactive path's server CPU is mostly this fixed work (a snapshot of
 * each subscribed view, then splitLargeFields for the diff), paid once per refresh for all
 * subscribers, while the method path pays per call. This isolates it, so a change to a view's
 * snapshot or to the chunker (imports/core/field-chunks.js) can be measured on its own.
 *
 * How: the default-mesh simulator feeds an engine N reports (default 30,000); then, per view,
 * 100 refreshes, each after 12 more reports (about a quarter-second of traffic at 50 packets/s,
 * so caches see realistic change), each refresh timed as snapshot, and split with the hub's
 * own options (CHUNK_DEFAULTS, KEYED_LISTS). The whole set is repeated R times (default 5),
 * alternating views; medians are reported with their spread. One process, pin it with taskset.
 * Writes benchmarks/results/latest/hub-refresh.json, or `--out=FILE` (development and tests).
 */
const { createSimulator } = require('../imports/core/simulate');
const { parseObserverMessage } = require('../imports/core/observer-message');
const { createEngine } = require('../imports/core/engine');
const { splitLargeFields, CHUNK_DEFAULTS, KEYED_LISTS } = require('../imports/core/field-chunks');
const fs = require('fs');
const { writeResult, writeResultFile } = require('./lib/results');
const { median } = require('./lib/report');

const argValue = (name) => (process.argv.find((arg) => arg.startsWith(`--${name}=`)) || '').slice(name.length + 3) || null;
const REPORTS = Number(argValue('reports') || 30000);
const ROUNDS = Number(argValue('rounds') || 5);
const OUT = argValue('out');
if (!(Number.isInteger(REPORTS) && REPORTS >= 1000)) throw new Error(`--reports must be an integer of at least 1000, not ${argValue('reports')}`);
if (!(Number.isInteger(ROUNDS) && ROUNDS >= 1)) throw new Error(`--rounds must be a positive integer, not ${argValue('rounds')}`);
const REFRESHES = 100;
const REPORTS_BETWEEN = 12;
// The home dashboard's views (tests/artillery/processor.js DASHBOARD_VIEWS) and their refreshes
// per second at the hub's defaults (publish.viewIntervalMs; 250 ms otherwise) under steady traffic.
const VIEWS = { stats: 4, nodes: 1, rf: 1, topology: 1, channels: 4 };

const round3 = (value) => Math.round(value * 1000) / 1000;

function main() {
  const sim = createSimulator({ seed: 7, profile: 'default' });
  const engine = createEngine({ channels: sim.channels.map((c) => ({ name: c.name, key: c.key })) });
  let now = 0;
  const feed = (count) => {
    for (const message of sim.messages(count)) {
      now = Date.parse(message.payload.timestamp);
      const { report } = parseObserverMessage(message.topic, JSON.stringify(message.payload), now);
      if (report) engine.ingest(report);
    }
    engine.store.flushViews(); // the views' held updates (store.js viewBatch): not the snapshot's time
  };
  feed(REPORTS);
  const samples = Object.fromEntries(Object.keys(VIEWS).map((name) => [name, { snapshotMs: [], splitMs: [], bytes: 0 }]));
  for (let round = 0; round < ROUNDS + 1; round++) { // round 0 warms the JIT and the caches up
    for (const name of Object.keys(VIEWS)) {
      const view = engine.views.get(name);
      const params = view.normalizeParams ? view.normalizeParams({}) : {};
      const options = { ...CHUNK_DEFAULTS, keyed: KEYED_LISTS[name] || null };
      let snapshotNs = 0n;
      let splitNs = 0n;
      for (let i = 0; i < REFRESHES; i++) {
        feed(REPORTS_BETWEEN);
        const started = process.hrtime.bigint();
        const snapshot = view.snapshot(params, now);
        const snapped = process.hrtime.bigint();
        splitLargeFields(snapshot, options);
        splitNs += process.hrtime.bigint() - snapped;
        snapshotNs += snapped - started;
        if (i === 0) samples[name].bytes = JSON.stringify(snapshot).length;
      }
      if (round === 0) continue;
      samples[name].snapshotMs.push(Number(snapshotNs) / 1e6 / REFRESHES);
      samples[name].splitMs.push(Number(splitNs) / 1e6 / REFRESHES);
    }
  }
  const views = {};
  let perSecond = 0;
  for (const [name, rate] of Object.entries(VIEWS)) {
    const s = samples[name];
    const snapshotMs = median(s.snapshotMs);
    const splitMs = median(s.splitMs);
    perSecond += rate * (snapshotMs + splitMs);
    views[name] = {
      document_bytes: s.bytes,
      snapshot_ms_median: round3(snapshotMs),
      split_ms_median: round3(splitMs),
      split_ms_spread: { min: round3(Math.min(...s.splitMs)), max: round3(Math.max(...s.splitMs)) },
      refreshes_per_s: rate,
    };
  }
  const result = {
    benchmark: 'hub-refresh',
    quick: false,
    date: new Date().toISOString(),
    command: `node benchmarks/hub-refresh.js ${process.argv.slice(2).join(' ')}`.trim(),
    node: process.version,
    settings: { reports: REPORTS, rounds: ROUNDS, refreshes_per_round: REFRESHES, reports_between_refreshes: REPORTS_BETWEEN, mesh: 'default' },
    views,
    // Per second of steady traffic, for the home dashboard: the fixed part of the reactive path.
    dashboard_refresh_ms_per_s: round3(perSecond),
  };
  for (const [name, v] of Object.entries(views)) console.log(`${name.padEnd(9)} ${String(v.document_bytes).padStart(6)} B  snapshot ${v.snapshot_ms_median} ms  split ${v.split_ms_median} ms (${v.split_ms_spread.min}-${v.split_ms_spread.max})`);
  console.log(`home dashboard: ${result.dashboard_refresh_ms_per_s} ms of refresh work per second`);
  if (OUT) writeResultFile(OUT, result);
  else writeResult('hub-refresh', result);
}

main();
