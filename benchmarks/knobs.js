#!/usr/bin/env node
'use strict';
/**
 * Queue and publish knobs: `npm run bench:knobs` (`-- --quick`).
 *
 * 1. Meteor's METEOR_ASYNC_QUEUE_BATCH_SIZE / METEOR_ASYNC_QUEUE_MAX_CONCURRENT: read by
 *    Meteor 3.1.1+'s AsynchronousQueue. The study looks for the names in the built bundle's
 *    Meteor packages: absent means the variables cannot change anything on this release, and
 *    the report says so instead of timing a no-op.
 * 2. The app's own ingest queue (settings.queue.batchSize / maxConcurrency), under a heavy
 *    feed (the simulator at 3,000 reports/s) with 5 dashboard subscribers: reports accepted
 *    per second, queue wait p99, server CPU, update delay p99.
 * 3. The publish tick (settings.publish.intervalMs 100 / 250 / 1000) at 50 packets/s with the
 *    same subscribers: update delay, updates delivered, server CPU.
 * Each variant is its own server (core 0); the subscribers run on core 1.
 */
const fs = require('fs');
const path = require('path');
const { runStudy, sleep } = require('./lib/study');
const { createClientPool, measureWindow } = require('./lib/client-pool');
const { websocketCompressionEnv, DEFAULT_PRESET } = require('../imports/core/compression');
const { dashboardSubscriptions } = require('../tests/artillery/processor');

const CLIENTS = 20;
const round = (value, digits = 2) => (value === null || value === undefined || !Number.isFinite(value) ? null : Math.round(value * 10 ** digits) / 10 ** digits);

/** Which files of the bundle's Meteor packages mention the variable names. */
function asyncQueueSupport(bundle) {
  const dir = path.join(bundle.dir, 'bundle', 'programs', 'server', 'packages');
  const names = ['METEOR_ASYNC_QUEUE_BATCH_SIZE', 'METEOR_ASYNC_QUEUE_MAX_CONCURRENT'];
  const found = {};
  for (const name of names) found[name] = [];
  for (const file of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
    if (!file.endsWith('.js')) continue;
    const text = fs.readFileSync(path.join(dir, file), 'utf8');
    for (const name of names) if (text.includes(name)) found[name].push(file);
  }
  const supported = names.every((name) => found[name].length > 0);
  return {
    meteor: bundle.meteorVersion,
    searched: 'bundle/programs/server/packages/*.js',
    found,
    supported,
    note: supported
      ? 'The bundle reads the variables: their effect can be measured on this release.'
      : `${bundle.meteorVersion}'s packages never read these variables (they arrived with Meteor 3.1.1's AsynchronousQueue), so setting them has no effect here; the app's own queue knobs below are what can be tuned.`,
  };
}

async function measureVariant(study, { label, settings, windowS, clients = CLIENTS }) {
  const bundle = await study.bundle();
  const compression = websocketCompressionEnv(DEFAULT_PRESET, bundle.meteorVersion);
  const server = await study.startServer({ settings, env: compression === undefined ? {} : { SERVER_WEBSOCKET_COMPRESSION: compression } });
  await sleep(8000);
  const pool = createClientPool({ url: server.wsUrl, subscriptions: dashboardSubscriptions({ vars: {} }), perMessageDeflate: true });
  try {
    const grown = await pool.grow(clients);
    await sleep(2000);
    const before = await fetch(`${server.url}/api/health`).then((r) => r.json());
    const m = await measureWindow(pool, server.pid, windowS);
    const after = await fetch(`${server.url}/api/health`).then((r) => r.json());
    const accepted = after.ingest.accepted - before.ingest.accepted;
    const queue = after.ingest.queue;
    const result = {
      label,
      settings,
      clients,
      connect_failures: grown.failures,
      offered_per_s: settings.sources.simulator.ratePerSecond,
      accepted_per_s: round(accepted / m.elapsed_s, 1),
      rejected: after.ingest.rejected - before.ingest.rejected,
      queue_depth_end: queue.depth,
      queue_wait_p99_ms: round(queue.waitMs && queue.waitMs.p99, 2),
      queue_run_p99_ms: round(queue.runMs && queue.runMs.p99, 2),
      queue_overflowed: queue.overflowed,
      server_cpu_pct: round(m.server_cpu_pct, 1),
      delay_p50_ms: m.delay.p50,
      delay_p95_ms: m.delay.p95,
      delay_p99_ms: m.delay.p99,
      updates_per_s: round(m.updates / m.elapsed_s, 1),
      cpu_us_per_update: m.updates ? round((m.server_cpu_s * 1e6) / m.updates, 1) : null,
      wire_bytes_per_s: Math.round((m.messages.small.wire_bytes + m.messages.large.wire_bytes) / m.elapsed_s),
      publish_snapshot_p99_ms: after.publish.snapshotMs ? round(after.publish.snapshotMs.p99, 2) : null,
      client_lag_p99_ms: round(m.lagP99Ms, 1),
    };
    study.log(`${label}: accepted ${result.accepted_per_s}/s, queue wait p99 ${result.queue_wait_p99_ms} ms, CPU ${result.server_cpu_pct}%, delay p99 ${result.delay_p99_ms} ms, ${result.updates_per_s} updates/s`);
    return result;
  } finally {
    await pool.close();
    await server.stop();
  }
}

runStudy('knobs', async (study) => {
  const bundle = await study.bundle();
  const windowS = study.quick ? 12 : 30;
  const heavyRate = 3000;
  const queueClients = 5;
  const asyncQueue = asyncQueueSupport(bundle);
  study.log(asyncQueue.note);
  const queueVariants = [
    { batchSize: 16, maxConcurrency: 1 },
    { batchSize: 128, maxConcurrency: 16 },
    { batchSize: 1024, maxConcurrency: 4 },
  ];
  const queue = [];
  for (const knobs of queueVariants) {
    queue.push(await measureVariant(study, {
      label: `queue batchSize ${knobs.batchSize}, maxConcurrency ${knobs.maxConcurrency}`,
      settings: { sources: { simulator: { enabled: true, ratePerSecond: heavyRate } }, queue: knobs },
      windowS,
      clients: queueClients,
    }));
  }
  const publish = [];
  for (const intervalMs of [100, 250, 1000]) {
    publish.push(await measureVariant(study, {
      label: `publish.intervalMs ${intervalMs}`,
      settings: { sources: { simulator: { enabled: true, ratePerSecond: 50 } }, publish: { intervalMs } },
      windowS,
    }));
  }
  return {
    settings: { clients: CLIENTS, queue_clients: queueClients, window_s: windowS, heavy_ingest_per_s: heavyRate, dashboard: dashboardSubscriptions({ vars: {} }), websocket_compression: DEFAULT_PRESET },
    meteor_async_queue: asyncQueue,
    queue,
    publish,
  };
});
