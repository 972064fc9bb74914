#!/usr/bin/env node
'use strict';
/**
 * Scaling on loopback: `npm run demo:two-instances`.
 * Two MeshPulse instances (production bundle) share one MQTT broker (embedded aedes) and one
 * MongoDB. Both take the full feed, so both end with the same views; both write behind to the
 * same collections, and the content-hash ids make those writes idempotent: each transmission
 * is stored once. Writes benchmarks/results/latest/two-instances.json (`npm run bench:publish`
 * copies it into the tracked benchmarks/results/).
 */
const net = require('net');
const mqtt = require('mqtt');
const { MongoClient } = require('mongodb');
const { ensureBundle, startServer, MeteorUnavailableError } = require('./lib/app');
const { writeResult } = require('./lib/results');
const { startMongo } = require('../tests/helpers/mongo-server');
const { createSimulator } = require('../imports/core/simulate');

const REPORTS = Number(process.env.TWO_INSTANCES_REPORTS || 3000);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function startBroker() {
  const { Aedes } = await import('aedes');
  const broker = await Aedes.createBroker();
  const server = net.createServer(broker.handle);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `mqtt://127.0.0.1:${server.address().port}`, stop: () => new Promise((resolve) => { server.close(); broker.close(resolve); }) };
}

async function getJson(url) {
  const response = await fetch(url);
  return response.json();
}

async function runTwoInstances({ log = console.log } = {}) {
  const bundle = await ensureBundle({ log });
  const mongo = await startMongo();
  const mongoUrl = mongo.url.replace('/?', `/${mongo.dbName}?`);
  const broker = await startBroker();
  const servers = [];
  try {
    const sim = createSimulator({ seed: 42 });
    const settings = {
      sources: { simulator: { enabled: false }, mqtt: [{ url: broker.url }] },
      channels: sim.channels.map((c) => ({ name: c.name, key: c.key })),
      persistence: { enabled: true, reloadOnStart: false },
    };
    for (const cpu of [0, 1]) servers.push(await startServer({ bundle, cpu, settings, mongoUrl }));
    log(`two instances up: ${servers.map((s) => s.url).join(', ')}; broker ${broker.url}`);
    await sleep(1500); // MQTT subscriptions settle
    const publisher = await mqtt.connectAsync(broker.url);
    for (const message of sim.messages(REPORTS)) {
      await publisher.publishAsync(message.topic, JSON.stringify(message.payload));
    }
    await publisher.endAsync();
    // Wait until both instances have ingested everything and flushed their writes.
    let healths = [];
    for (let i = 0; i < 120; i++) {
      healths = await Promise.all(servers.map((s) => getJson(`${s.url}/api/health`)));
      const done = healths.every((h) => h.ingest.submitted >= REPORTS && h.ingest.queue.depth === 0 && h.persistence.pending === 0);
      if (done) break;
      await sleep(500);
    }
    const stats = await Promise.all(servers.map((s) => getJson(`${s.url}/api/views/stats`)));
    const client = await MongoClient.connect(mongo.url);
    const db = client.db(mongo.dbName);
    const storedTransmissions = await db.collection('transmissions').countDocuments({});
    const storedObservations = await db.collection('observations').countDocuments({});
    await client.close();
    const result = {
      benchmark: 'two-instances',
      date: new Date().toISOString(),
      command: 'npm run demo:two-instances',
      meteor: bundle.meteorVersion,
      reports_published: REPORTS,
      instances: stats.map((s, i) => ({ url: servers[i].url, transmissions: s.transmissions, observations: s.observations, nodes: s.nodes, written: healths[i].persistence.written, writes: healths[i].persistence.writtenByCollection })),
      mongodb: { transmissions: storedTransmissions, observations: storedObservations },
      same_views: stats[0].transmissions === stats[1].transmissions && stats[0].observations === stats[1].observations && stats[0].nodes === stats[1].nodes,
      stored_once: storedTransmissions === stats[0].transmissions && storedObservations === stats[0].observations,
    };
    return result;
  } finally {
    for (const server of servers) await server.stop();
    await broker.stop();
    await mongo.stop();
  }
}

if (require.main === module) {
  runTwoInstances().then((result) => {
    console.log(JSON.stringify(result, null, 2));
    writeResult('two-instances', result, { quick: false });
    if (!result.same_views || !result.stored_once) process.exit(1);
  }).catch((err) => {
    console.error(err instanceof MeteorUnavailableError ? `demo:two-instances: ${err.message}` : `demo:two-instances failed: ${err.message}`);
    process.exit(1);
  });
}

module.exports = { runTwoInstances };
