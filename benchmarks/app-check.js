#!/usr/bin/env node
'use strict';
/**
 * The real app (Meteor) fed by its own simulator, checked from outside: does it keep pace with
 * the mesh it is given, and how old are its method answers?
 *
 *   node benchmarks/app-check.js [--profile=default|large] [--rate=1000] [--checks=4] [--every=30]
 *                                [--age-rate=50] [--age-calls=15]
 *
 * Part 1 starts the app with MESHPULSE_SIM_PROFILE=<profile> and MESHPULSE_SIM_RATE=<rate> and
 * every `--every` seconds reads view.stats, view.observers and view.nodes over DDP: stored
 * transmissions and observations, observers and regions known, nodes known. Part 2 (skipped with
 * --age-calls=0) starts it again at `--age-rate` reports/s and calls each view of the home and
 * study dashboards every 2 s, `--age-calls` times, recording each answer's data age (arrival -
 * newestPacketAt). Persistence is off in both. Prints one JSON document; writes nothing in the
 * checkout. Needs Meteor (`$METEOR_BIN` or `meteor`) like tests/e2e.
 */
const { startApp } = require('../tests/helpers/meteor-app');
const { DdpClient } = require('../tests/helpers/ddp-client');

const argValue = (name, fallback) => {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  return arg ? arg.slice(name.length + 3) : fallback;
};
const profile = argValue('profile', 'large');
const rate = Number(argValue('rate', '1000'));
const checks = Number(argValue('checks', '4'));
const everyS = Number(argValue('every', '30'));
const ageRate = Number(argValue('age-rate', '50'));
const ageCalls = Number(argValue('age-calls', '15'));
const AGE_VIEWS = ['view.stats', 'view.nodes', 'view.rf', 'view.topology', 'view.channels', 'view.packets'];
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function withApp(env, settings, work) {
  const app = await startApp({ settings: { persistence: { enabled: false }, ...settings }, env });
  const client = await DdpClient.connect(`${app.url.replace('http', 'ws')}/websocket`);
  try {
    return await work(client, app);
  } finally {
    client.close();
    await app.stop();
  }
}

async function keepsPace() {
  return withApp({ MESHPULSE_SIM_PROFILE: profile, MESHPULSE_SIM_RATE: String(rate) }, {}, async (client) => {
    const started = Date.now();
    const samples = [];
    for (let i = 1; i <= checks; i++) {
      await sleep(started + i * everyS * 1000 - Date.now());
      const stats = await client.call('view.stats', [{}]);
      const observers = await client.call('view.observers', [{}]);
      const nodes = await client.call('view.nodes', [{ limit: 1 }]);
      const list = observers.observers || [];
      samples.push({
        seconds: Math.round((Date.now() - started) / 1000),
        transmissions: stats.transmissions,
        observations: stats.observations,
        observers: list.length,
        regions: new Set(list.map((o) => o.region)).size,
        nodes: nodes.total,
      });
      console.error(`[app-check] ${JSON.stringify(samples[samples.length - 1])}`);
    }
    return samples;
  });
}

async function answerAges() {
  return withApp({ MESHPULSE_SIM_PROFILE: profile }, { sources: { simulator: { ratePerSecond: ageRate } } }, async (client) => {
    await sleep(15000);
    const ages = Object.fromEntries(AGE_VIEWS.map((name) => [name, []]));
    for (let i = 0; i < ageCalls; i++) {
      for (const name of AGE_VIEWS) {
        const answer = await client.call(name, [name === 'view.packets' ? { limit: 16 } : {}]);
        ages[name].push(Date.now() - answer.newestPacketAt);
      }
      await sleep(2000);
    }
    const figures = {};
    for (const [name, list] of Object.entries(ages)) {
      const sorted = list.slice().sort((a, b) => a - b);
      figures[name] = { calls: sorted.length, p50_ms: sorted[sorted.length >> 1], max_ms: sorted[sorted.length - 1] };
    }
    return figures;
  });
}

(async () => {
  const result = { profile, rate_per_s: rate, date: new Date().toISOString() };
  if (checks > 0) result.keeps_pace = await keepsPace();
  if (ageCalls > 0) result.method_answer_age = { rate_per_s: ageRate, every_ms: 2000, views: await answerAges() };
  console.log(JSON.stringify(result, null, 2));
})().catch((err) => {
  console.error(`app-check failed: ${err.stack || err}`);
  process.exit(1);
});
