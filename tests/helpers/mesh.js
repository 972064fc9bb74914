'use strict';
/**
 * Test fixtures for the engine: observer reports from the simulator (or, until it exists,
 * from the real fixture capture with made-up observers), and a harness that checks a view
 * against a brute-force recomputation after random inserts and evictions.
 */
const fs = require('fs');
const path = require('path');
const assert = require('node:assert/strict');
const { parseObserverMessage } = require('../../imports/core/observer-message');
const { createEngine } = require('../../imports/core/engine');
const { createPrng } = require('../../imports/core/prng');

const FIXTURE_PATH = path.resolve(__dirname, '../../../shared/fixtures/meshcore-real-packets.ndjson');

/** The real-packet fixture's lines as objects (another ndjson file of that shape: `file`), or null when absent. */
function loadFixture(file = FIXTURE_PATH) {
  if (!fs.existsSync(file)) return null;
  return fs.readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
}

/** A seeded uniform [0, 1) generator (the simulator's PRNG), so random test sequences repeat. */
function seededRandom(seed) {
  return createPrng(seed).float;
}

function loadSimulator() {
  try {
    return require('../../imports/core/simulate');
  } catch (err) {
    if (err.code === 'MODULE_NOT_FOUND' && /simulate/.test(err.message)) return null;
    throw err;
  }
}

/**
 * `count` observer reports, in arrival order, each with a `time`.
 * Channels used by the simulator are returned too, so the engine can decrypt them.
 */
const simulatedCache = new Map();

function simulatedReports({ seed = 1, count = 2000, profile = 'default', simulator = {} } = {}) {
  const cacheKey = `${profile}/${seed}/${count}/${JSON.stringify(simulator)}`;
  if (!simulatedCache.has(cacheKey)) simulatedCache.set(cacheKey, generateReports({ seed, count, profile, simulator }));
  const { reports, channels } = simulatedCache.get(cacheKey);
  // Fresh report objects per caller: the store keeps references to what it ingests.
  return { reports: reports.map((report) => ({ ...report })), channels };
}

function generateReports({ seed, count, profile, simulator = {} }) {
  const simulate = loadSimulator();
  if (simulate) {
    const sim = simulate.createSimulator({ ...simulator, seed, profile });
    const reports = [];
    for (const message of sim.messages(count)) {
      const time = Date.parse(message.payload.timestamp);
      const { report, error } = parseObserverMessage(message.topic, JSON.stringify(message.payload), time);
      if (error) throw new Error(`simulator produced a bad message: ${error.message}`);
      reports.push(report);
    }
    return { reports, channels: sim.channels.map((c) => ({ name: c.name, key: c.key })) };
  }
  const fixture = loadFixture();
  if (!fixture) throw new Error('neither the simulator nor ../shared/fixtures is available');
  const random = seededRandom(seed);
  const reports = [];
  let time = Date.UTC(2026, 2, 29, 12);
  while (reports.length < count) {
    const line = fixture[Math.floor(random() * fixture.length)];
    const heardBy = 1 + Math.floor(random() * 3);
    time += Math.floor(random() * 20000);
    for (let i = 0; i < heardBy && reports.length < count; i++) {
      const observer = Math.floor(random() * 5);
      reports.push({
        raw: line.raw_hex, observerId: `obs${observer}`, observerName: `Observer ${observer}`, region: observer < 3 ? 'SFO' : 'SJC',
        snr: Math.round((random() * 35 - 20) * 4) / 4, rssi: -40 - Math.floor(random() * 85), score: random(), direction: 'rx', time: time + i * 150,
      });
    }
  }
  const names = ['#wardriving', '#test', '#bot'];
  return { reports, channels: [{ name: 'Public', key: '8b3387e9c5cdea6ac9e5edbaa115cd72' }, ...names] };
}

/** Walk two JSON-like values and compare, numbers within a relative tolerance (float sums). */
function assertClose(actual, expected, where = '$') {
  if (typeof expected === 'number' && typeof actual === 'number') {
    const scale = Math.max(1, Math.abs(expected));
    if (!(Math.abs(actual - expected) <= 1e-6 * scale) && !(Number.isNaN(actual) && Number.isNaN(expected))) {
      assert.fail(`${where}: ${actual} != ${expected}`);
    }
    return;
  }
  if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual), `${where}: expected an array`);
    assert.equal(actual.length, expected.length, `${where}: length`);
    expected.forEach((item, i) => assertClose(actual[i], item, `${where}[${i}]`));
    return;
  }
  if (expected && typeof expected === 'object') {
    assert.ok(actual && typeof actual === 'object', `${where}: expected an object, got ${actual}`);
    assert.deepEqual(Object.keys(actual).sort(), Object.keys(expected).sort(), `${where}: keys`);
    for (const key of Object.keys(expected)) assertClose(actual[key], expected[key], `${where}.${key}`);
    return;
  }
  assert.deepEqual(actual, expected, where);
}

/**
 * Ingest reports in random-sized chunks with random evictions in between, and after each
 * chunk compare `view.snapshot(params, now)` with `bruteForce(store, params, now)` for every
 * params in `paramsList` (a list, or a function (store) -> list, for params that depend on
 * the data, like a node's public key). Returns the engine for further checks.
 */
function checkAgainstBruteForce(options) {
  const engine = checkProfile(options);
  // The same check on the large public-mesh profile (5,200 nodes, 1/2/3-byte hashes with
  // colliding prefixes, paths as long as real ones), sized for CI; and on that mesh as it was
  // before its calibration to real traffic, a harsher case kept for that reason: paths of 5
  // hops on average, 40% of hop hashes 2 or 3 bytes long.
  if (options.largeProfile !== false && loadSimulator()) {
    const count = Math.min(options.count || 3000, 1500);
    checkProfile({ ...options, profile: 'large', count, checks: 3 });
    checkProfile({ ...options, profile: 'large', simulator: loadSimulator().LARGE_UNCALIBRATED, count, checks: 3 });
  }
  return engine;
}

function checkProfile({ view, bruteForce, paramsList = [{}], seed = 7, count = 3000, checks = 8, store = {}, project = (snapshot) => snapshot, profile = 'default', simulator = {}, prepare = null }) {
  const { reports, channels } = simulatedReports({ seed, count, profile, simulator });
  const engine = createEngine({ channels, views: [view], store });
  if (prepare !== null) prepare(engine); // e.g. shrink a bounded cache, so that what is past it is tested
  const instance = engine.view(view);
  const random = seededRandom(seed * 31 + 1);
  let next = 0;
  for (let check = 0; check < checks; check++) {
    const chunk = Math.ceil((reports.length / checks) * (0.5 + random()));
    for (let i = 0; i < chunk && next < reports.length; i++) engine.ingest(reports[next++]);
    const evictions = Math.floor(random() * engine.store.size * 0.3);
    for (let i = 0; i < evictions; i++) engine.store.evictOldest();
    const now = (engine.store.fifo.last() || { time: Date.now() }).time + Math.floor(random() * 3600e3);
    const list = typeof paramsList === 'function' ? paramsList(engine.store) : paramsList;
    for (const params of list) {
      assertClose(project(instance.snapshot(params, now)), bruteForce(engine.store, instance.normalizeParams(params), now), `${view}(${JSON.stringify(params)}) ${profile}${Object.keys(simulator).length > 0 ? ` ${JSON.stringify(simulator)}` : ''} check ${check}`);
    }
  }
  return engine;
}

/**
 * Does a transmission name `key`? An address key `@xx` (a src / dest hash) when its src or dest
 * hash is xx; a public key when it is the advert's; a hop prefix when a hop of any observed path is it.
 */
function namesKey(tx, key) {
  if (key.startsWith('@')) return tx.srcHash === key.slice(1) || tx.destHash === key.slice(1);
  return (tx.advert !== null && tx.advert.pubKey === key) || tx.observations.some((o) => o.path.includes(key));
}

/** The observations of `tx` that name `key`: all of them for its advert and address keys, else those whose path shows it. */
function observationsNaming(tx, key) {
  const isStatic = key.startsWith('@') ? namesKey(tx, key) : tx.advert !== null && tx.advert.pubKey === key;
  return isStatic ? tx.observations : tx.observations.filter((o) => o.path.includes(key));
}

/**
 * The keys a node's figures sum, from the definition (node-tracker.js): its public key and its
 * address key (`@` and its first byte: the src / dest hash of packets from or to it), and, for a
 * repeater only (only repeaters relay), its 1-, 2- and 3-byte prefixes as hops.
 */
function nodeKeysOf(store, pubKey) {
  const node = store.nodes.get(pubKey);
  const address = `@${pubKey.slice(0, 2)}`;
  return node && node.role === 'repeater' ? [pubKey, pubKey.slice(0, 2), pubKey.slice(0, 4), pubKey.slice(0, 6), address] : [pubKey, address];
}

/**
 * A node's packets by the per-key definition of node-tracker.js: for each of its keys
 * (nodeKeysOf) the stored transmissions naming it, concatenated (a transmission naming two of
 * its keys appears twice).
 */
function packetsOfNodeByKey(store, pubKey) {
  const all = store.transmissions();
  return nodeKeysOf(store, pubKey).flatMap((key) => all.filter((tx) => namesKey(tx, key)));
}

/** The observations a node's figures sum: per key, those naming it (see observationsNaming). */
function observationsOfNodeByKey(store, pubKey) {
  const all = store.transmissions();
  return nodeKeysOf(store, pubKey).flatMap((key) => all.filter((tx) => namesKey(tx, key)).flatMap((tx) => observationsNaming(tx, key)));
}

/** What a hop prefix names, from the definition: the known repeaters whose key starts with it. */
function bruteResolve(store, hop) {
  const all = Array.from(store.nodes.values()).filter((node) => node.pubKey.startsWith(hop));
  const matches = all.filter((node) => node.role === 'repeater').sort((a, b) => (a.pubKey < b.pubKey ? -1 : 1));
  const brief = (node) => ({ pubKey: node.pubKey, name: node.name, role: node.role });
  return {
    node: matches.length === 1 ? brief(matches[0]) : null,
    candidates: matches.length > 1 ? matches.slice(0, 10).map(brief) : [],
    candidateCount: matches.length,
    otherMatches: all.length - matches.length,
  };
}

/** The simulated world (its nodes and their signing keys) for a seed and profile: the simulator's own. */
function simulatedWorld({ seed = 1, profile = 'default', simulator = {} } = {}) {
  const { resolveOptions } = require('../../imports/core/simulate/profiles');
  const { buildWorld } = require('../../imports/core/simulate/world');
  return buildWorld(resolveOptions({ ...simulator, seed, profile }));
}

const CHURN_KINDS = ['same', 'moved', 'renamed', 're-roled', 'removed'];

/**
 * Change one known node the way a live mesh does, through ingest where it can: `kind` 'same' (a
 * re-advert with the same identity, as nearly every advert is), 'moved', 'renamed', 're-roled'
 * (repeater <-> companion): an advert signed with the node's own key (from `world`, the
 * simulator's), newer than its last, heard at zero hops by the observer of `heard` (a report) at
 * its time; 'removed': the node leaves the directory (as an age-out does). Returns the node's key.
 */
function churnNode(engine, world, kind, random, heard) {
  const { advertAppData, advertSigner, signAdvert, packetHex, ROUTE, ROLE_IDS } = require('../../imports/core/simulate/packets');
  const known = Array.from(engine.store.nodes.values());
  const node = known[Math.floor(random() * known.length)];
  if (kind === 'removed') {
    engine.store.directory.removeNode(node);
    return node.pubKey;
  }
  const index = world.nodes.findIndex((candidate) => candidate.pubKey === node.pubKey);
  const { privateKey, publicKey } = world.secrets[index];
  let { name, role, lat, lon } = node;
  if (kind === 'moved') {
    lat = (typeof lat === 'number' && lat !== 0 ? lat : world.nodes[index].lat) + 0.05 + random() * 0.4;
    lon = (typeof lon === 'number' && lon !== 0 ? lon : world.nodes[index].lon) - 0.05 - random() * 0.4;
  }
  if (kind === 'renamed') name = `${name} ${Math.floor(random() * 1000)}`;
  if (kind === 're-roled') role = role === 'repeater' ? 'companion' : 'repeater';
  const placed = typeof lat === 'number' && (lat !== 0 || lon !== 0);
  const appData = advertAppData(ROLE_IDS[role], name, placed ? lat : null, placed ? lon : null);
  const payload = signAdvert(advertSigner({ privateKey, publicKey }, appData), node.lastAdvert + 1);
  const result = engine.ingest({ raw: packetHex({ routeType: ROUTE.FLOOD, payloadType: 4, pathLength: 0, payload }), observerId: heard.observerId, region: heard.region, snr: 5, rssi: -90, time: heard.time });
  assert.equal(result.error, undefined, JSON.stringify(result.error));
  return node.pubKey;
}

/**
 * Node churn through a stream: the first half of `reports` ingested, then every 20 reports
 * beforeChange(step), one known node changed (churnNode, the kinds of CHURN_KINDS in turn),
 * afterChange(kind, step, key), and the next 20 reports ingested.
 */
function churnThrough({ engine, world, reports, random, beforeChange = () => {}, afterChange }) {
  for (let i = 0; i < reports.length >> 1; i++) engine.ingest(reports[i]);
  for (let i = reports.length >> 1, step = 0; i < reports.length; i += 20, step++) {
    const kind = CHURN_KINDS[step % CHURN_KINDS.length];
    beforeChange(step);
    const key = churnNode(engine, world, kind, random, reports[i]);
    afterChange(kind, step, key);
    for (let k = i; k < i + 20 && k < reports.length; k++) engine.ingest(reports[k]);
  }
}

module.exports = {
  simulatedWorld,
  churnNode,
  churnThrough,
  CHURN_KINDS,
  bruteResolve,
  namesKey,
  nodeKeysOf,
  observationsNaming,
  observationsOfNodeByKey,
  packetsOfNodeByKey, simulatedReports, checkAgainstBruteForce, assertClose, seededRandom, loadFixture, FIXTURE_PATH };
