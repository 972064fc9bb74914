#!/usr/bin/env node
'use strict';
/**
 * MQTT-path benchmark: `npm run bench:mqtt` (`-- --quick` for a run under two minutes).
 *
 * A real mosquitto (tests/helpers/mosquitto.js, the broker settings README "Ingest" documents:
 * max_queued_messages 0, max_inflight_messages 1000, persistence on) and a publisher process
 * (this file with --publisher, mqtt.js, simulator traffic serialised before the clock starts)
 * share core 0; MeshPulse (imports/ingest/mqtt.js -> pipeline -> engine, this process) runs on
 * core 1 (`taskset`, when there are two cores). Parts:
 *   burst_qos0, burst_qos1   N messages published as fast as the publisher can; the broker
 *                            holds what MeshPulse has not taken yet. msgs/s = N / (last
 *                            ingested - first published): MeshPulse's sustained intake.
 *   burst_qos1_persistence   the same with write-behind to MongoDB (MONGO_URL, else the tests'
 *                            mongo-java-server): ingest rate, and the rate once every write landed.
 *   restart                  persistent session (QoS 1) at a steady rate while the broker is
 *                            restarted twice: distinct reports lost (target 0), reports
 *                            ingested twice (target 0) and re-deliveries the source skipped.
 * Each part: loss %, event-loop delay p50/p99/max, MeshPulse CPU, broker drops from $SYS.
 * Writes benchmarks/results/latest/mqtt[-quick].json and MQTT.md there (ignored by git, through
 * lib/results.js); `npm run bench:publish -- mqtt` copies the JSON into benchmarks/results/ and
 * renders benchmarks/MQTT.md from it (render.js).
 */
const { fork, execFileSync } = require('child_process');
const os = require('os');
const path = require('path');
const { monitorEventLoopDelay } = require('perf_hooks');

if (process.argv.includes('--publisher')) {
  runPublisher();
} else if (require.main === module) {
  main().catch((err) => {
    console.error(`bench:mqtt failed: ${err.stack || err.message}`);
    process.exit(1);
  });
}

// --- publisher process ----------------------------------------------------------------------

/** Generates simulator traffic on request, then publishes it (full speed or at a rate), retrying failed QoS 1 sends. */
function runPublisher() {
  const mqtt = require('mqtt');
  const { createSimulator } = require('../imports/core/simulate');
  let messages = [];
  process.on('message', async (command) => {
    if (command.cmd === 'generate') {
      const sim = createSimulator({ seed: command.seed });
      messages = [];
      while (messages.length < command.count) {
        for (const m of sim.messages(Math.min(50000, command.count - messages.length))) messages.push([m.topic, Buffer.from(JSON.stringify(m.payload))]);
      }
      process.send({ ready: messages.length });
    } else if (command.cmd === 'publish') {
      const client = await mqtt.connectAsync(command.url, { clientId: `bench-pub-${process.pid}-${Date.now()}`, clean: false, reconnectPeriod: 100 });
      client.stream.setMaxListeners(0); // one 'drain' listener per publish waiting on a full socket
      const startedAt = Date.now();
      const window = 2000; // QoS 1 messages awaiting their PUBACK at once
      let sent = 0;
      let acked = 0;
      let retried = 0;
      const retry = [];
      const send = (message) => new Promise((resolve) => client.publish(message[0], message[1], { qos: command.qos }, (err) => {
        if (err) {
          retried++;
          retry.push(message);
        } else acked++;
        resolve();
      }));
      const inFlight = new Set();
      const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
      while (sent < messages.length || retry.length > 0 || inFlight.size > 0) {
        if (command.rate) {
          const due = Math.min(messages.length, Math.floor(((Date.now() - startedAt) / 1000) * command.rate));
          if (sent >= due && retry.length === 0) {
            await sleep(5);
            continue;
          }
        }
        const next = retry.length > 0 ? retry.shift() : sent < messages.length ? messages[sent++] : null;
        if (!next) {
          await Promise.race(inFlight);
          continue;
        }
        const done = send(next).then(() => inFlight.delete(done));
        inFlight.add(done);
        if (inFlight.size >= window) await Promise.race(inFlight);
        if (!client.connected) await sleep(20);
      }
      const publishedMs = Date.now() - startedAt;
      await client.endAsync(true);
      process.send({ done: true, startedAt, publishedMs, acked, retried, count: messages.length });
    } else if (command.cmd === 'exit') {
      process.exit(0);
    }
  });
}

// --- MeshPulse side -------------------------------------------------------------------------

const quick = process.argv.includes('--quick');
// --only=backlog_qos1,burst_qos0 runs just those parts (and writes mqtt-only.json, no report);
// --messages=N sets the burst and backlog size, --persistence-messages=N the persistence part's.
const argument = (name) => {
  const found = process.argv.find((arg) => arg.startsWith(`--${name}=`));
  return found ? found.slice(name.length + 3) : null;
};
const only = argument('only') ? new Set(argument('only').split(',')) : null;
const wanted = (part) => !only || only.has(part);
const SIZES = quick
  ? { burst: 200000, persistence: 50000, restart: 30000, restartRate: 5000 }
  : { burst: 1000000, persistence: 200000, restart: 100000, restartRate: 10000 };
if (argument('messages')) SIZES.burst = Number(argument('messages'));
if (argument('persistence-messages')) SIZES.persistence = Number(argument('persistence-messages'));
// The engine-only ceiling ingests the burst's own messages (--engine-messages=N for fewer, 0 = skip).
SIZES.engineOnly = argument('engine-messages') !== null ? Number(argument('engine-messages')) : SIZES.burst;
/** The publisher's messages for `seed`: the same chunks, so the same stream as the burst parts. */
function simulatorMessages(seed, count) {
  const { createSimulator } = require('../imports/core/simulate');
  const sim = createSimulator({ seed });
  const messages = [];
  while (messages.length < count) {
    for (const m of sim.messages(Math.min(50000, count - messages.length))) messages.push([m.topic, Buffer.from(JSON.stringify(m.payload))]);
  }
  return messages;
}

/**
 * parse + engine.ingest in this process, no MQTT: the ceiling the MQTT path is measured against.
 * The same messages as the burst and backlog parts (seed 2026, same count, same order) into a
 * fresh engine with every view, so the ratio compares like with like (the engine's cost per
 * report grows with what it holds: a 30k-message engine-only run against a 200k-message part
 * flattered the engine).
 */
function engineOnly(count) {
  const { createEngine } = require('../imports/core/engine');
  const { createSimulator } = require('../imports/core/simulate');
  const { parseObserverMessage } = require('../imports/core/observer-message');
  const messages = simulatorMessages(2026, count);
  const engine = createEngine({ channels: createSimulator({ seed: 2026 }).channels.map((c) => ({ name: c.name, key: c.key })), store: { memoryBudgetBytes: 4 * 1024 ** 3 } });
  const started = process.hrtime.bigint();
  const cpuBefore = process.cpuUsage();
  for (const [topic, payload] of messages) engine.ingest(parseObserverMessage(topic, payload, Date.now()).report);
  engine.store.flushViews(); // the views' held updates (store.js viewBatch), timed with the rest
  const cpu = process.cpuUsage(cpuBefore);
  return {
    messages: count,
    perSecond: Math.round(count / (Number(process.hrtime.bigint() - started) / 1e9)),
    // Per CPU-second: comparable with the parts' ingested_per_cpu_s whatever else runs beside.
    perCpuSecond: Math.round(count / ((cpu.user + cpu.system) / 1e6)),
  };
}

const BROKER = { maxQueuedMessages: 0, maxInflightMessages: 1000, persistence: true, sysInterval: 1 };

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (value, digits = 0) => (value === null || value === undefined ? null : Math.round(value * 10 ** digits) / 10 ** digits);

function pin(pid, cpu) {
  if (os.cpus().length < 2) return false;
  try {
    execFileSync('taskset', ['-cp', String(cpu), String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Pin every thread of the process listening on 127.0.0.1:`port` (the tests' Java MongoDB) to `cpu`. */
function pinListener(port, cpu) {
  if (os.cpus().length < 2 || !port) return false;
  try {
    const listing = execFileSync('ss', ['-H', '-ltnp', `sport = :${port}`], { encoding: 'utf8' });
    const match = /pid=(\d+)/.exec(listing);
    if (!match) return false;
    execFileSync('taskset', ['-a', '-cp', String(cpu), match[1]], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** A forked publisher; request(command) resolves with its next reply. */
function startPublisher() {
  const child = fork(__filename, ['--publisher'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  pin(child.pid, 0);
  const request = (command) => new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`publisher exited (${code})`)));
    child.send(command);
  });
  return { child, request, stop: () => child.connected && child.send({ cmd: 'exit' }) };
}

async function waitFor(predicate, what, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/**
 * One part: fresh engine + pipeline (+ persistence) + MQTT source, the publisher sends
 * `count` messages; resolves with the figures.
 */
async function runPart({ name, broker, publisher, count, qos, session = 'clean', rate = 0, mongo = null, during = null, keysOf = null, backlog = false }) {
  const { createEngine } = require('../imports/core/engine');
  const { createPipeline } = require('../imports/ingest/pipeline');
  const { createMqttSources } = require('../imports/ingest/mqtt');
  const { createSimulator } = require('../imports/core/simulate');
  const channels = createSimulator({ seed: 2026 }).channels.map((c) => ({ name: c.name, key: c.key }));
  const engine = createEngine({ channels, store: { memoryBudgetBytes: 4 * 1024 ** 3 } });
  let persistence = null;
  let mongoClient = null;
  if (mongo) {
    const { MongoClient } = require('mongodb');
    const { createPersistence, COLLECTION_NAMES } = require('../imports/core/persistence');
    mongoClient = await MongoClient.connect(mongo.url, { maxPoolSize: 20, serverSelectionTimeoutMS: 60000, socketTimeoutMS: 0 });
    const db = mongoClient.db(`${mongo.dbName}_${name}`);
    persistence = createPersistence({ collections: Object.fromEntries(COLLECTION_NAMES.map((c) => [c, db.collection(c)])), store: engine.store, maxPendingWrites: 2000000 });
    await persistence.ensureIndexes();
  }
  const distinct = keysOf ? new Set() : null;
  let lastIngestAt = 0;
  const pipeline = createPipeline({
    engine,
    persistence,
    onIngest: (result, report) => {
      lastIngestAt = Date.now();
      if (distinct) distinct.add(`${report.observerId}|${report.observerTime}|${report.raw}`);
    },
  });
  const brokerEntry = { url: broker.url, qos, session, clientId: session === 'persistent' ? `bench-${name}` : null };
  const connectSources = () => createMqttSources({ brokers: [brokerEntry], pipeline, reconnect: { minMs: 100, maxMs: 1000 } });
  let sources = connectSources();
  await waitFor(() => sources.stats()[0].subscribed && sources.stats()[0].broker.sys !== 'waiting', 'subscription and $SYS', 20000);
  let backlogPublished = null;
  if (backlog) {
    // The session exists; MeshPulse goes away, the broker queues everything, MeshPulse comes back.
    await sources.stop();
    backlogPublished = await publisher.request({ cmd: 'publish', url: broker.url, qos, rate });
    sources = connectSources();
  }

  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const cpuBefore = process.cpuUsage();
  const wallBefore = Date.now();
  let peakDepth = 0;
  const depthSampler = setInterval(() => { peakDepth = Math.max(peakDepth, pipeline.queue.stats().depth); }, 100);
  const intakeStartedAt = Date.now();
  const published = backlog ? Promise.resolve({ ...backlogPublished, startedAt: intakeStartedAt }) : publisher.request({ cmd: 'publish', url: broker.url, qos, rate });
  const duringDone = during ? during() : Promise.resolve();
  const pub = await published;
  await duringDone;
  const expected = keysOf ? keysOf.size : count;
  const seen = () => (distinct ? distinct.size : pipeline.stats().accepted);
  const settleMs = Math.max(60000, count / 5); // generous: a deadline only so a broken run ends
  try {
    await waitFor(() => seen() >= expected, `${expected} reports`, settleMs);
  } catch (err) {
    // Ingest stopped short: wait for the pipeline to go quiet, then count what is missing.
    let last = -1;
    while (last !== pipeline.stats().accepted) {
      last = pipeline.stats().accepted;
      await sleep(2000);
    }
  }
  await pipeline.drain();
  const ingestedAt = lastIngestAt;
  const cpu = process.cpuUsage(cpuBefore);
  const wallIngest = (ingestedAt - pub.startedAt) / 1000;
  let writesLandedS = null;
  let persisted = null;
  if (persistence) {
    await persistence.flush(600000);
    writesLandedS = (Date.now() - pub.startedAt) / 1000;
    persisted = persistence.stats();
  }
  clearInterval(depthSampler);
  loop.disable();
  // One more $SYS period so the broker's drop counter covers the whole run.
  await sleep(1500);
  const stats = sources.stats()[0];
  await sources.stop();
  if (persistence && persistence.close) await persistence.close();
  if (mongoClient) await mongoClient.close();
  const accepted = pipeline.stats().accepted;
  const received = distinct ? distinct.size : accepted;
  const ms = (ns) => round(ns / 1e6, 2);
  const result = {
    name,
    qos,
    session,
    offered_rate_per_s: backlog ? 'backlog queued while away' : rate || 'full speed',
    messages: expected,
    publisher_per_s: round(count / (pub.publishedMs / 1000)),
    ingested_per_s: round(received / wallIngest),
    received_distinct: received,
    lost: expected - received,
    loss_pct: round(((expected - received) / expected) * 100, 3),
    duplicated: accepted - received, // reports ingested more than once
    redelivered: stats.redelivered, // identical messages the source's redelivery window skipped
    rejected: pipeline.stats().rejected,
    event_loop_delay_ms: { p50: ms(loop.percentile(50)), p99: ms(loop.percentile(99)), max: ms(loop.max) },
    meshpulse_cpu_pct: round(((cpu.user + cpu.system) / 1000 / (Date.now() - wallBefore)) * 100, 1),
    // Per CPU-second of MeshPulse's process: what one core sustains, whatever else runs beside it.
    ingested_per_cpu_s: round(received / ((cpu.user + cpu.system) / 1e6)),
    peak_queue_depth: peakDepth,
    backpressure_pauses: stats.backpressurePauses,
    reconnects: stats.reconnects,
    broker_dropped: stats.broker.droppedSinceStart,
    broker_version: stats.broker.version,
    publisher_retried: pub.retried,
  };
  if (persistence) {
    result.persisted_per_s = round(received / writesLandedS);
    result.writes = { written: persisted.written, failed: persisted.failed, overflowed: persisted.overflowed };
  }
  return result;
}

function renderMqttReport(result) {
  const { fmt } = require('./lib/report');
  const verdict = (ok) => (ok ? 'met' : '**missed**');
  const p = result.parts;
  const lines = ['# MQTT path benchmark', ''];
  lines.push(`Generated by \`benchmarks/render.js\` from \`benchmarks/results/${result.quick ? 'mqtt-quick' : 'mqtt'}.json\`, written by \`${result.command}\` on ${result.date}.`);
  lines.push(`Machine: ${result.machine.cpus} cores (${result.machine.cpu}), ${result.machine.memoryGiB} GiB, Node ${result.machine.node}; broker ${result.broker.version} with ${result.broker.settings}; MongoDB: ${result.mongo}. Pinning: ${result.pinning}. Load average at the end: ${result.load_average.join(', ')}.`);
  lines.push('Traffic: the seeded simulator, one MQTT message per observer report. MeshPulse = imports/ingest/mqtt.js + pipeline + engine (every view), in one Node process.', '');
  lines.push('| figure | measured | target | |', '|---|---|---|---|');
  lines.push(`| MeshPulse intake from a broker backlog (persistent session, QoS 1, no persistence) | ${fmt(p.backlog_qos1.ingested_per_s)} msgs/s (${fmt(p.backlog_qos1.messages)} messages, loss ${p.backlog_qos1.loss_pct}%) | ≥ 30,000 | ${verdict(p.backlog_qos1.ingested_per_s >= 30000 && p.backlog_qos1.lost === 0)} |`);
  const path = result.mqtt_path;
  if (path && path.engine_only_per_cpu_s) {
    lines.push(`| the same, per MeshPulse CPU-second (one core's worth) | ${fmt(path.mqtt_path_per_cpu_s)} msgs | ≥ 30,000 | ${verdict(path.mqtt_path_per_cpu_s >= 30000)} |`);
    lines.push(`| … the engine alone on the same ${fmt(path.engine_only_messages)} messages (parse + ingest, no MQTT, same process, same run) | ${fmt(path.engine_only_per_cpu_s)} msgs per CPU-second (${fmt(result.engine_only_per_s)} msgs/s) | ceiling | |`);
    lines.push(`| MQTT path / engine alone, per CPU-second | ${path.ratio} | | |`);
  } else {
    lines.push(`| … the same engine without MQTT (parse + ingest, same process, same run) | ${fmt(result.engine_only_per_s)} msgs/s | ceiling | |`);
  }
  lines.push(`| live burst, QoS 0 (publisher and broker share core 0) | ${fmt(p.burst_qos0.ingested_per_s)} msgs/s (publisher ${fmt(p.burst_qos0.publisher_per_s)}/s; loss ${p.burst_qos0.loss_pct}%) | 0 lost | ${verdict(p.burst_qos0.lost === 0)} |`);
  lines.push(`| live burst, QoS 1 | ${fmt(p.burst_qos1.ingested_per_s)} msgs/s (publisher ${fmt(p.burst_qos1.publisher_per_s)}/s; loss ${p.burst_qos1.loss_pct}%) | 0 lost | ${verdict(p.burst_qos1.lost === 0)} |`);
  lines.push(`| … with write-behind persistence to MongoDB, QoS 1 | ${fmt(p.burst_qos1_persistence.ingested_per_s)} msgs/s into the engine; ${fmt(p.burst_qos1_persistence.persisted_per_s)} msgs/s until every write landed (loss ${p.burst_qos1_persistence.loss_pct}%) | reported beside it | |`);
  lines.push(`| lost through two broker restarts, persistent session, QoS 1 | ${fmt(p.restart.lost)} of ${fmt(p.restart.messages)} | 0 | ${verdict(p.restart.lost === 0)} |`);
  lines.push(`| … ingested twice through the restarts | ${fmt(p.restart.duplicated)} (${fmt(p.restart.redelivered)} re-deliveries skipped by the source) | 0 | ${verdict(p.restart.duplicated === 0)} |`);
  lines.push('', '## Parts', '');
  lines.push('| part | messages | offered | publisher msgs/s | MeshPulse msgs/s | lost | ingested twice | re-deliveries skipped | loop delay p50 / p99 / max (ms) | MeshPulse CPU | peak queue | back-pressure pauses | broker drops ($SYS) | reconnects |');
  lines.push('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const part of Object.values(p)) {
    const e = part.event_loop_delay_ms;
    lines.push(`| ${part.name} | ${fmt(part.messages)} | ${fmt(part.offered_rate_per_s)} | ${fmt(part.publisher_per_s)} | ${fmt(part.ingested_per_s)} | ${fmt(part.lost)} | ${fmt(part.duplicated)} | ${fmt(part.redelivered)} | ${e.p50} / ${e.p99} / ${e.max} | ${part.meshpulse_cpu_pct}% | ${fmt(part.peak_queue_depth)} | ${fmt(part.backpressure_pauses)} | ${fmt(part.broker_dropped)} | ${fmt(part.reconnects)} |`);
  }
  lines.push('', '"MeshPulse msgs/s" = distinct reports ingested / (last ingested − first published; for the backlog part, − reconnect). In the live bursts the publisher and the broker share one core, so they can be the limit; the backlog part has the broker send a queue it already holds, which leaves MeshPulse\'s own intake. "Re-deliveries skipped" are QoS 1 messages the broker sent again (at least once), byte for byte, which the MQTT source\'s redelivery window (last 100,000 message identities per broker) did not ingest a second time; "ingested twice" is what got past it. Event-loop delay is MeshPulse\'s, sampled every 10 ms during the part.');
  if (result.quick) lines.push('', `Quick run: ${fmt(p.burst_qos0.messages)}-message bursts; the full run (\`npm run bench:mqtt\`) uses 1M.`);
  lines.push('');
  return lines.join('\n');
}

async function main() {
  const { startMosquitto, mosquittoMissing } = require('../tests/helpers/mosquitto');
  const { startMongo } = require('../tests/helpers/mongo-server');
  const missing = await mosquittoMissing();
  if (missing) {
    console.error(`bench:mqtt: ${missing}`);
    process.exit(2);
  }
  const startedAt = Date.now();
  const loadAtStart = os.loadavg().map((v) => round(v, 2));
  const pinned = pin(process.pid, 1);
  const broker = await startMosquitto(BROKER);
  const brokerPinned = pin(broker.pid(), 0);
  const publisher = startPublisher();
  let mongo = null;
  let engineOnlyPerS = null;
  let engineOnlyPerCpuS = null;
  // Started from this (core 1) process, the Java MongoDB would share MeshPulse's core.
  let mongoPinned = null;
  const parts = {};
  try {
    console.log(`mosquitto at ${broker.url}; generating ${SIZES.burst} messages in the publisher...`);
    const generated = publisher.request({ cmd: 'generate', seed: 2026, count: SIZES.burst });
    if (SIZES.engineOnly > 0) {
      const engineOnlyRates = engineOnly(SIZES.engineOnly);
      engineOnlyPerS = engineOnlyRates.perSecond;
      engineOnlyPerCpuS = engineOnlyRates.perCpuSecond;
      console.log(`engine only (parse + ingest, no MQTT, ${SIZES.engineOnly} messages): ${engineOnlyPerS}/s, ${engineOnlyPerCpuS} per CPU-second`);
    }
    await generated;
    for (const qos of [0, 1]) {
      const name = `burst_qos${qos}`;
      if (!wanted(name)) continue;
      console.log(`${name}: ${SIZES.burst} messages...`);
      parts[name] = await runPart({ name, broker, publisher, count: SIZES.burst, qos });
      console.log(parts[name]);
    }
    if (wanted('backlog_qos1')) {
      console.log(`backlog_qos1: ${SIZES.burst} messages queued by the broker while MeshPulse is away...`);
      parts.backlog_qos1 = await runPart({ name: 'backlog_qos1', broker, publisher, count: SIZES.burst, qos: 1, session: 'persistent', backlog: true });
      console.log(parts.backlog_qos1);
    }
    if (wanted('backlog_qos1_persistence')) {
      // The same backlog drained with write-behind to MongoDB: the persistence figure beside it.
      mongo = mongo || await startMongo();
      mongoPinned = pinListener(mongo.port, 0);
      console.log(`backlog_qos1_persistence: ${SIZES.burst} messages queued while away, with persistence...`);
      parts.backlog_qos1_persistence = await runPart({ name: 'backlog_qos1_persistence', broker, publisher, count: SIZES.burst, qos: 1, session: 'persistent', backlog: true, mongo });
      console.log(parts.backlog_qos1_persistence);
    }
    if (wanted('burst_qos1_persistence')) {
      mongo = mongo || await startMongo();
      mongoPinned = pinListener(mongo.port, 0);
      console.log(`MongoDB: ${process.env.MONGO_URL ? 'MONGO_URL' : 'mongo-java-server'}; burst_qos1_persistence: ${SIZES.persistence} messages...`);
      if (SIZES.persistence !== SIZES.burst) await publisher.request({ cmd: 'generate', seed: 2027, count: SIZES.persistence });
      parts.burst_qos1_persistence = await runPart({ name: 'burst_qos1_persistence', broker, publisher, count: SIZES.persistence, qos: 1, mongo });
      console.log(parts.burst_qos1_persistence);
    }
    if (!only) {
      console.log(`restart: ${SIZES.restart} messages at ${SIZES.restartRate}/s, broker restarted twice...`);
      await publisher.request({ cmd: 'generate', seed: 2028, count: SIZES.restart });
      const { createSimulator } = require('../imports/core/simulate');
      const keys = new Set(createSimulator({ seed: 2028 }).messages(SIZES.restart).map((m) => `${m.topic.split('/')[2]}|${Date.parse(m.payload.timestamp)}|${m.payload.raw}`));
      const streamS = SIZES.restart / SIZES.restartRate;
      parts.restart = await runPart({
        name: 'restart', broker, publisher, count: SIZES.restart, qos: 1, session: 'persistent', rate: SIZES.restartRate, keysOf: keys,
        during: async () => {
          for (const at of [1 / 3, 2 / 3]) {
            await sleep((streamS * 1000) / 3);
            await broker.restart();
            pin(broker.pid(), 0);
            console.log(`  broker restarted at ~${Math.round(at * 100)}% of the stream`);
          }
        },
      });
      console.log(parts.restart);
    }
  } finally {
    publisher.stop();
    await broker.stop();
    if (mongo) await mongo.stop();
  }

  // Each part's intake per MeshPulse CPU-second against the engine alone on the same messages.
  for (const part of Object.values(parts)) part.vs_engine_only_per_cpu_s = engineOnlyPerCpuS ? round(part.ingested_per_cpu_s / engineOnlyPerCpuS, 3) : null;
  // The MQTT path's own figure: the backlog part (MeshPulse's intake, not the publisher's pace).
  const pathPart = parts.backlog_qos1 || Object.values(parts).find((part) => !part.persisted_per_s) || null;
  const mqttPath = pathPart && {
    part: pathPart.name,
    messages: pathPart.messages,
    mqtt_path_per_cpu_s: pathPart.ingested_per_cpu_s,
    engine_only_per_cpu_s: engineOnlyPerCpuS,
    engine_only_messages: SIZES.engineOnly,
    ratio: pathPart.vs_engine_only_per_cpu_s,
    mqtt_path_per_s: pathPart.ingested_per_s,
    engine_only_per_s: engineOnlyPerS,
  };
  if (mqttPath) console.log(`MQTT path ${mqttPath.mqtt_path_per_cpu_s} msgs per CPU-second (${mqttPath.part}) vs engine alone ${mqttPath.engine_only_per_cpu_s}: ratio ${mqttPath.ratio}`);
  const brokerRecord = {
    version: Object.values(parts)[0] ? Object.values(parts)[0].broker_version : null,
    settings: 'max_queued_messages 0, max_inflight_messages 1000, persistence true, sys_interval 1',
    // What mosquitto.conf held (tests/helpers/mosquitto.js), read back from the file written.
    config: broker.settings,
  };
  const { writeResult } = require('./lib/results');
  const common = {
    date: new Date().toISOString(),
    duration_s: Math.round((Date.now() - startedAt) / 1000),
    machine: { cpus: os.cpus().length, cpu: os.cpus()[0].model, memoryGiB: Math.round(os.totalmem() / 1024 ** 3), node: process.version },
    broker: brokerRecord,
    pinning: pinned && brokerPinned ? 'MeshPulse on core 1; broker, publisher and mongo-java-server on core 0 (taskset)' : 'not pinned (taskset or a second core missing)',
    load_average_at_start: loadAtStart,
    load_average: os.loadavg().map((v) => round(v, 2)),
    niceness: os.getPriority(),
    engine_only_messages: SIZES.engineOnly,
    engine_only_per_s: engineOnlyPerS,
    engine_only_per_cpu_s: engineOnlyPerCpuS,
    mqtt_path: mqttPath,
  };
  if (only) {
    writeResult('mqtt-only', { benchmark: 'mqtt-only', quick: false, command: `npm run bench:mqtt -- ${process.argv.slice(2).join(' ')}`, ...common, mongo_pinned_to_core_0: mongoPinned, parts });
    return;
  }
  const result = {
    benchmark: 'mqtt',
    quick,
    date: new Date().toISOString(),
    command: `npm run bench:mqtt${quick ? ' -- --quick' : ''}`,
    duration_s: Math.round((Date.now() - startedAt) / 1000),
    machine: { cpus: os.cpus().length, cpu: os.cpus()[0].model, memoryGiB: Math.round(os.totalmem() / 1024 ** 3), node: process.version },
    broker: brokerRecord,
    mongo: process.env.MONGO_URL ? 'MONGO_URL' : 'mongo-java-server (in-memory backend, via the mongodb 6.x driver)',
    pinning: pinned && brokerPinned ? 'MeshPulse on core 1; broker, publisher and mongo-java-server on core 0 (taskset)' : 'not pinned (taskset or a second core missing)',
    load_average_at_start: loadAtStart,
    load_average: os.loadavg().map((v) => round(v, 2)),
    niceness: os.getPriority(),
    engine_only_messages: SIZES.engineOnly,
    engine_only_per_s: engineOnlyPerS,
    engine_only_per_cpu_s: engineOnlyPerCpuS,
    mqtt_path: mqttPath,
    mongo_pinned_to_core_0: mongoPinned,
    headline: {
      intake_per_s_from_backlog_qos1: parts.backlog_qos1.ingested_per_s,
      intake_per_cpu_s_from_backlog_qos1: parts.backlog_qos1.ingested_per_cpu_s,
      engine_only_per_s: engineOnlyPerS,
      engine_only_per_cpu_s: engineOnlyPerCpuS,
      mqtt_path_vs_engine_only_per_cpu_s: mqttPath ? mqttPath.ratio : null,
      ingest_per_s_qos0: parts.burst_qos0.ingested_per_s,
      ingest_per_s_qos1: parts.burst_qos1.ingested_per_s,
      ingest_per_s_qos1_with_persistence: parts.burst_qos1_persistence.ingested_per_s,
      persisted_per_s_qos1: parts.burst_qos1_persistence.persisted_per_s,
      lost_through_restarts: parts.restart.lost,
      duplicated_through_restarts: parts.restart.duplicated,
      redelivered_skipped_through_restarts: parts.restart.redelivered,
      loss_pct_qos0: parts.burst_qos0.loss_pct,
      loss_pct_qos1: parts.burst_qos1.loss_pct,
    },
    parts,
  };
  writeResult('mqtt', result, { report: 'MQTT.md', render: renderMqttReport });
  console.log(`bench:mqtt done in ${Math.round((Date.now() - startedAt) / 1000)} s`);
}

module.exports = { renderMqttReport };
