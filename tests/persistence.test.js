'use strict';
// Write-behind persistence (imports/core/persistence.js) against a real MongoDB wire server:
// mongo-java-server from tests/helpers/mongo-server.js, or MONGO_URL. Outages are simulated by
// wrapping collections (and once by stopping the server); checks wait for conditions, never
// for elapsed time.
const test = require('node:test');
const assert = require('node:assert/strict');
const { MongoClient, MongoNetworkError, Binary, Long, Int32 } = require('mongodb');
const { startMongo } = require('./helpers/mongo-server');
const { simulatedReports } = require('./helpers/mesh');
const { createEngine } = require('../imports/core/engine');
const { createPersistence, COLLECTION_NAMES, isOutageError, replayWindows } = require('../imports/core/persistence');
const { VIEWS_BY_NAME } = require('../imports/core/analytics');
const { rawHex } = require('../imports/core/store');

const DAY_MS = 24 * 3600 * 1000;

let mongo = null;
let client = null;
let skipReason = null;
let databaseCount = 0;
const databases = [];

test.before(async () => {
  try {
    mongo = await startMongo();
    client = new MongoClient(mongo.url, { serverSelectionTimeoutMS: 5000 });
    await client.connect();
  } catch (err) {
    skipReason = `no MongoDB for the persistence tests: ${err.message.split('\n')[0]}`;
    console.log(skipReason);
  }
});

test.after(async () => {
  // Leave nothing behind on a borrowed server.
  if (client && mongo.external) for (const db of databases) await db.dropDatabase();
  if (client) await client.close();
  if (mongo) await mongo.stop();
});

/** A fresh database per test, with every collection wrapped so bulkWrites can be counted and made to fail. */
function freshCollections() {
  const db = client.db(`${mongo.dbName}_${++databaseCount}`);
  databases.push(db);
  const control = { bulkWrites: [], failing: false, failuresSeen: 0 };
  const raw = {};
  const wrapped = {};
  for (const name of COLLECTION_NAMES) {
    raw[name] = db.collection(name);
    wrapped[name] = new Proxy(raw[name], {
      get(target, prop) {
        if (prop === 'bulkWrite') {
          return async (ops, options) => {
            control.bulkWrites.push({ name, count: ops.length, ordered: options && options.ordered });
            if (control.failing) {
              control.failuresSeen++;
              throw new MongoNetworkError('simulated outage: connection refused');
            }
            return target.bulkWrite(ops, options);
          };
        }
        const value = target[prop];
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }
  return { db, raw, collections: wrapped, control };
}

/** Resolves once `condition()` is true; the deadline only turns a hang into a failure, it measures nothing. */
async function until(condition, what = 'condition', deadlineMs = 120000) {
  const giveUpAt = Date.now() + deadlineMs;
  while (!condition()) {
    if (Date.now() > giveUpAt) throw new Error(`still waiting for ${what} after ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function capturingLog() {
  const lines = [];
  const push = (level) => (message) => lines.push(`${level}: ${message}`);
  return { lines, info: push('info'), warn: push('warn'), error: push('error') };
}

const FAST_RETRY = { retryBackoffMs: 2, maxRetryBackoffMs: 10 };

function ingestAll(engine, persistence, reports) {
  let accepted = 0;
  for (const report of reports) {
    const result = engine.ingest(report);
    if (!result.error && persistence.recordIngest(result, report)) accepted++;
  }
  return accepted;
}

/** Observation documents the store should have produced: one per distinct (hash, observer, reported time). */
function expectedObservationIds(reports) {
  const ids = new Set();
  const check = createEngine({ channels: [], views: [] });
  for (const report of reports) {
    const result = check.ingest(report);
    if (!result.error && result.observation) ids.add(`${result.tx.hash}:${report.observerId}:${report.time}`);
  }
  return ids;
}

function skipIfNoMongo(t) {
  if (!skipReason) return false;
  t.skip(skipReason);
  return true;
}

test('N ingests become a few unordered bulkWrites, one document per transmission and observation', async (t) => {
  if (skipIfNoMongo(t)) return;
  const { raw, collections, control } = freshCollections();
  const { reports, channels } = simulatedReports({ seed: 3, count: 2000 });
  const engine = createEngine({ channels });
  const persistence = createPersistence({ collections, store: engine.store, batchSize: 500 });
  await persistence.ensureIndexes();

  const accepted = ingestAll(engine, persistence, reports);
  await persistence.flush();
  const stats = persistence.stats();

  assert.equal(accepted, reports.length);
  assert.equal(await raw.transmissions.countDocuments(), engine.store.size);
  assert.equal(await raw.observations.countDocuments(), expectedObservationIds(reports).size);
  assert.equal(await raw.observers.countDocuments(), engine.store.observers.size);
  assert.equal(await raw.nodes.countDocuments(), engine.store.nodes.size);
  // ~2 writes per report plus directory upserts, in batches of up to 500 per collection.
  const writes = stats.written;
  assert.ok(writes > reports.length, `written ${writes}`);
  assert.ok(control.bulkWrites.length <= Math.ceil(writes / 500) * 4 + 8, `${control.bulkWrites.length} bulkWrites for ${writes} writes`);
  assert.ok(control.bulkWrites.every((call) => call.ordered === false));
  assert.equal(stats.pending, 0);
  assert.equal(stats.failed, 0);
  assert.equal(stats.overflowed, 0);
  assert.equal(stats.bulkWrites, control.bulkWrites.length);
  assert.ok(stats.batchLatencyMs.count > 0);

  const tx = engine.store.transmissions()[0];
  const doc = await raw.transmissions.findOne({ _id: tx.hash });
  assert.equal(doc.hash, tx.hash);
  assert.equal(doc.raw, rawHex(tx));
  assert.equal(doc.time, tx.time);
  assert.equal(doc.payloadType, tx.payloadType);
  assert.ok(doc.at instanceof Date);
  await persistence.close();
});

test('re-delivery is idempotent: same report twice, or the same writes from a second process', async (t) => {
  if (skipIfNoMongo(t)) return;
  const { raw, collections } = freshCollections();
  const { reports, channels } = simulatedReports({ seed: 4, count: 50 });
  const engine = createEngine({ channels });
  const persistence = createPersistence({ collections, store: engine.store });
  await persistence.ensureIndexes();

  const report = reports[0];
  persistence.recordIngest(engine.ingest(report), report);
  persistence.recordIngest(engine.ingest({ ...report }), report);
  await persistence.flush();
  assert.equal(await raw.transmissions.countDocuments(), 1);
  assert.equal(await raw.observations.countDocuments(), 1);

  // A second process replaying the same reports (e.g. after a crash before acknowledging).
  const engine2 = createEngine({ channels });
  const persistence2 = createPersistence({ collections, store: engine2.store });
  persistence2.recordIngest(engine2.ingest(report), report);
  await persistence2.flush();
  assert.equal(await raw.transmissions.countDocuments(), 1);
  assert.equal(await raw.observations.countDocuments(), 1);
  assert.equal(persistence.stats().failed + persistence2.stats().failed, 0);
  await persistence.close();
  await persistence2.close();
});

test('two instances receiving the same feed at different times store each observation once', async (t) => {
  if (skipIfNoMongo(t)) return;
  const { raw, collections } = freshCollections();
  const { reports, channels } = simulatedReports({ seed: 6, count: 300 });
  // What each instance's MQTT client builds: its own receive time, the observer's own timestamp.
  const instances = [0, 137].map((delayMs) => {
    const engine = createEngine({ channels });
    const persistence = createPersistence({ collections, store: engine.store });
    return { engine, persistence, delayMs };
  });
  await instances[0].persistence.ensureIndexes();
  for (const report of reports) {
    for (const { engine, persistence, delayMs } of instances) {
      const received = { ...report, observerTime: report.time, time: report.time + delayMs };
      persistence.recordIngest(engine.ingest(received), received);
    }
  }
  for (const { persistence } of instances) await persistence.flush();
  assert.equal(await raw.transmissions.countDocuments(), instances[0].engine.store.size);
  assert.equal(await raw.observations.countDocuments(), instances[0].engine.store.observationCount);
  for (const { persistence } of instances) await persistence.close();
});

test('a duplicate-key MongoBulkWriteError counts as written, other write errors as failed', async (t) => {
  if (skipIfNoMongo(t)) return;
  const { collections } = freshCollections();
  let answer = null;
  const fake = (name) => ({
    ...collections[name],
    bulkWrite: async (ops) => {
      const err = new Error('E11000 duplicate key error');
      Object.defineProperty(err, 'name', { value: 'MongoBulkWriteError' });
      err.code = answer === 'duplicates' ? 11000 : 121;
      err.writeErrors = ops.map((op, index) => ({ index, code: index === 0 && answer === 'mixed' ? 121 : 11000, errmsg: 'x' }));
      throw err;
    },
  });
  const wrapped = Object.fromEntries(COLLECTION_NAMES.map((name) => [name, fake(name)]));
  const persistence = createPersistence({ collections: wrapped, ...FAST_RETRY });

  answer = 'duplicates';
  persistence.recordDropped({ raw: 'aa', observerId: 'o' }, { reason: 'not_hex', message: 'bad' });
  persistence.recordDropped({ raw: 'bb', observerId: 'o' }, { reason: 'not_hex', message: 'bad' });
  await persistence.flush();
  assert.deepEqual([persistence.stats().written, persistence.stats().failed, persistence.stats().retried], [2, 0, 0]);

  answer = 'mixed';
  persistence.recordDropped({ raw: 'cc', observerId: 'o' }, { reason: 'not_hex', message: 'bad' });
  persistence.recordDropped({ raw: 'dd', observerId: 'o' }, { reason: 'not_hex', message: 'bad' });
  await persistence.flush();
  const stats = persistence.stats();
  assert.deepEqual([stats.written, stats.failed, stats.retried], [3, 1, 0]);
  assert.equal(stats.lastError.code, 121);
  await persistence.close();
});

test('outage errors are recognised through the bulk-write wrapper', () => {
  assert.equal(isOutageError(new MongoNetworkError('down')), true);
  const wrapped = new Error('bulk failed');
  wrapped.errorResponse = new MongoNetworkError('down');
  assert.equal(isOutageError(wrapped), true);
  assert.equal(isOutageError(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' })), true);
  assert.equal(isOutageError(Object.assign(new Error('validation'), { code: 121 })), false);
});

/**
 * Snapshots of every view, with the parameters a view requires taken from the data. With
 * `fresh`, each view is a new instance built from what the store holds now (no evictions in
 * its history): the ground truth for that window.
 */
function allSnapshots(engine, now, { fresh = false } = {}) {
  const store = engine.store;
  const snapshot = (name, params) => {
    if (!fresh) return engine.snapshot(name, params, now);
    const instance = VIEWS_BY_NAME.get(name).create(store);
    store.fifo.forEachOldest((tx) => {
      for (const observation of tx.observations) instance.apply(tx, observation, store);
    });
    return instance.snapshot(params, now);
  };
  const nodeKeys = Array.from(store.nodes.keys()).sort().slice(0, 5);
  const channelNames = new Set();
  store.fifo.forEachOldest((tx) => { if (tx.message && tx.message.channel) channelNames.add(tx.message.channel); });
  const someHash = store.size ? store.transmissions()[Math.floor(store.size / 2)].hash : '00';
  const paramsFor = {
    node: nodeKeys.map((pubKey) => ({ pubKey })),
    channelMessages: Array.from(channelNames).sort().map((channel) => ({ channel, limit: 200 })),
    packets: [{}, { limit: 500 }, { hash: someHash }],
  };
  const out = {};
  for (const name of engine.views.keys()) {
    for (const params of paramsFor[name] || [{}]) {
      const key = `${name}${JSON.stringify(params)}`;
      try {
        out[key] = snapshot(name, params);
      } catch (err) {
        out[key] = { threw: err.message };
      }
    }
  }
  return out;
}

async function persistAndReload({ seed, count, store = {}, t }) {
  const { raw, collections } = freshCollections();
  const { reports, channels } = simulatedReports({ seed, count });
  const before = createEngine({ channels, store });
  const persistence = createPersistence({ collections, store: before.store });
  await persistence.ensureIndexes();
  ingestAll(before, persistence, reports);
  await persistence.flush();
  await persistence.close();

  const after = createEngine({ channels, store });
  const log = capturingLog();
  const reloader = createPersistence({ collections, log });
  const summary = await reloader.loadInto(after, { batchSize: 700, progressEvery: 500 });
  t.diagnostic(`reloaded ${JSON.stringify(summary)}`);
  return { before, after, summary, log, raw, reloader };
}

/**
 * The reloaded engine must show what the engine before the restart showed. With `fromWindow`
 * (the store evicted), both sides' views are rebuilt over their final windows: replay evicts
 * along another path than the live store did, and a view whose eviction drifts (a view bug,
 * reported as a diagnostic) must not fail the persistence test.
 */
function assertSameViews(before, after, { fromWindow = false, t = null } = {}) {
  const now = before.store.fifo.last().time + 60 * 1000;
  const expected = allSnapshots(before, now, { fresh: fromWindow });
  const actual = allSnapshots(after, now, { fresh: fromWindow });
  if (fromWindow && t) {
    for (const [label, engine, rebuilt] of [['before the restart', before, expected], ['after the reload', after, actual]]) {
      const incremental = allSnapshots(engine, now);
      for (const key of Object.keys(rebuilt)) {
        try {
          assert.deepEqual(incremental[key], rebuilt[key]);
        } catch {
          t.diagnostic(`view ${key} ${label}: incremental state differs from a rebuild over the same window (eviction drift in the view)`);
        }
      }
    }
  }
  assert.deepEqual(Object.keys(actual), Object.keys(expected));
  for (const key of Object.keys(expected)) assert.deepEqual(actual[key], expected[key], `view ${key} differs after reload`);
  assert.equal(after.store.size, before.store.size);
  assert.equal(after.store.observationCount, before.store.observationCount);
  assert.deepEqual(after.store.transmissions().map((tx) => tx.hash), before.store.transmissions().map((tx) => tx.hash));
}

test('reload after a restart rebuilds every view exactly', async (t) => {
  if (skipIfNoMongo(t)) return;
  const { before, after, summary, log } = await persistAndReload({ seed: 5, count: 3000, t });
  assert.equal(summary.transmissions, before.store.size);
  assert.equal(summary.skipped + summary.missingRaw + summary.rejected, 0);
  assertSameViews(before, after);
  assert.ok(log.lines.some((line) => /reloaded \d+ transmissions/.test(line)), 'progress is logged');
  assert.ok(log.lines.some((line) => /reload done/.test(line)));
});

test('reload skips and counts documents outside the input limits; everything else loads and every view works', async (t) => {
  if (skipIfNoMongo(t)) return;
  const { raw, collections } = freshCollections();
  const { reports, channels } = simulatedReports({ seed: 6, count: 1500 });
  const before = createEngine({ channels });
  const persistence = createPersistence({ collections, store: before.store });
  await persistence.ensureIndexes();
  ingestAll(before, persistence, reports);
  await persistence.flush();
  await persistence.close();
  // Poison the database the way a hand edit, an older version or a hostile feed could.
  const observation = await raw.observations.findOne({});
  const time = observation.time + 1;
  await raw.observations.insertMany([
    { ...observation, _id: 'poison-snr-high', snr: 1e308, time, ingestOrder: 1e9 },
    { ...observation, _id: 'poison-snr-low', snr: -1e308, time, ingestOrder: 1e9 + 1 },
    { ...observation, _id: 'poison-rssi', rssi: 'loud', time, ingestOrder: 1e9 + 2 },
  ]);
  await raw.nodes.insertMany([{ _id: 'not-a-key', pubKey: 'zz', name: 'ghost' }, { _id: 'numeric-key', pubKey: 12345, name: 'also no key', firstSeen: 5 }]);
  await raw.observers.insertOne({ _id: 'obs-poison', name: { $where: 'x' }, region: 'R'.repeat(900000).slice(0, 1000), firstSeen: time });

  const after = createEngine({ channels });
  const summary = await createPersistence({ collections, log: capturingLog() }).loadInto(after, { batchSize: 500 });
  t.diagnostic(`reloaded ${JSON.stringify(summary)}`);
  assert.equal(summary.rejected, 3, 'the three poisoned observations are skipped');
  assert.ok(summary.rejectReasons.bad_snr === 2 && summary.rejectReasons.bad_rssi === 1, JSON.stringify(summary.rejectReasons));
  assert.equal(summary.badDocuments, 3, 'two node documents without a valid key and one observer with an object name');
  assert.equal(after.store.size, before.store.size, 'every good transmission loads');
  assert.equal(after.store.observationCount, before.store.observationCount, 'every good observation loads');
  const now = before.store.fifo.last().time + 60 * 1000;
  const expected = allSnapshots(before, now);
  const actual = allSnapshots(after, now);
  for (const key of Object.keys(expected)) assert.deepEqual(actual[key], expected[key], `view ${key} after a poisoned reload`);
});

test('two restarts in a row: ingest, restart, ingest more, restart: same as never restarting', async (t) => {
  if (skipIfNoMongo(t)) return;
  const { collections } = freshCollections();
  const { reports, channels } = simulatedReports({ seed: 12, count: 2400 });
  const half = reports.length / 2;

  const first = createEngine({ channels });
  const firstPersistence = createPersistence({ collections, store: first.store });
  ingestAll(first, firstPersistence, reports.slice(0, half));
  await firstPersistence.close();

  // One persistence object both reloads and then records: loadInto() attaches the store.
  const second = createEngine({ channels });
  const secondPersistence = createPersistence({ collections });
  await secondPersistence.loadInto(second);
  ingestAll(second, secondPersistence, reports.slice(half));
  await secondPersistence.close();

  const third = createEngine({ channels });
  await createPersistence({ collections }).loadInto(third);
  const neverRestarted = createEngine({ channels });
  for (const report of reports) neverRestarted.ingest(report);
  assertSameViews(neverRestarted, third);
});

test('reload with a store that evicted before the restart lands on the same window', async (t) => {
  if (skipIfNoMongo(t)) return;
  const store = { memoryBudgetBytes: 250 * 1024 };
  const { before, after, summary } = await persistAndReload({ seed: 6, count: 4000, store, t });
  assert.ok(before.store.counters.evicted > 0, 'the store evicted before the restart');
  t.diagnostic(`before: ${before.store.size} transmissions held, ${before.store.counters.evicted} evicted; the replay evicted ${after.store.counters.evicted}`);
  // Replay starts early enough and lets the store evict down to the same window.
  assert.ok(summary.transmissions >= before.store.size);
  assertSameViews(before, after, { fromWindow: true, t });
});

test('replay windows: inside the span, increasing, none for an empty or unknown span', () => {
  const bounds = replayWindows(1000, 1000 + 64000);
  assert.ok(bounds.length >= 3, JSON.stringify(bounds));
  for (let i = 0; i < bounds.length; i++) {
    assert.ok(bounds[i] > 1000 && bounds[i] < 65000, `bound ${bounds[i]} inside the span`);
    if (i > 0) assert.ok(bounds[i] > bounds[i - 1], 'strictly increasing');
  }
  assert.ok(bounds[0] - 1000 < (65000 - 1000) / 16, 'the first window is small: the replay starts early');
  assert.deepEqual(replayWindows(5, 5), []);
  assert.deepEqual(replayWindows(9, 5), []);
  assert.deepEqual(replayWindows(NaN, 5), []);
  const tiny = replayWindows(0, 3);
  assert.deepEqual(tiny, [...new Set(tiny)].sort((a, b) => a - b), 'a tiny span keeps only distinct, increasing bounds');
});

test('reload in time windows (windowed: true): a wrong estimate of the span costs no document', async (t) => {
  if (skipIfNoMongo(t)) return;
  const { raw, collections } = freshCollections();
  const { reports, channels } = simulatedReports({ seed: 14, count: 2000 });
  const before = createEngine({ channels });
  const persistence = createPersistence({ collections, store: before.store });
  await persistence.ensureIndexes();
  ingestAll(before, persistence, reports);
  await persistence.close();
  // The observers' first and last sightings give the span the windows divide; squeeze it into
  // the middle of the stream so most reports fall in the open first and last windows.
  const times = (await raw.observations.find({}, { projection: { time: 1 } }).toArray()).map((doc) => doc.time).sort((a, b) => a - b);
  const middle = times[Math.floor(times.length / 2)];
  await raw.observers.updateMany({}, { $set: { firstSeen: middle, lastSeen: middle + 50 } });
  const finds = [];
  const counting = new Proxy(collections.observations, {
    get(target, prop) {
      if (prop === 'find') return (filter, options) => { finds.push(filter); return target.find(filter, options); };
      const value = target[prop];
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const after = createEngine({ channels });
  const summary = await createPersistence({ collections: { ...collections, observations: counting } }).loadInto(after, { batchSize: 300, windowed: true });
  assert.ok(finds.length > 2, `several windows were read: ${JSON.stringify(finds)}`);
  assert.equal(summary.skipped + summary.missingRaw + summary.rejected, 0);
  assert.equal(after.store.size, before.store.size);
  assert.equal(after.store.observationCount, before.store.observationCount);
  assert.deepEqual(after.store.transmissions().map((tx) => tx.hash), before.store.transmissions().map((tx) => tx.hash));
});

test('the creating observation carries the raw: reload reads observations alone, and still reads documents stored without it', async (t) => {
  if (skipIfNoMongo(t)) return;
  const { raw, collections } = freshCollections();
  const { reports, channels } = simulatedReports({ seed: 16, count: 2000 });
  const before = createEngine({ channels });
  const persistence = createPersistence({ collections, store: before.store });
  await persistence.ensureIndexes();
  ingestAll(before, persistence, reports);
  await persistence.close();
  const firsts = await raw.observations.find({ first: true }).toArray();
  assert.equal(firsts.length, before.store.size);
  for (const doc of firsts) assert.equal(doc.raw, rawHex(before.store.byHash.get(doc.hash)), 'the creating observation holds its transmission\'s raw');

  /** Reload into a fresh engine, counting the finds on transmissions. */
  async function reload() {
    const finds = [];
    const watched = new Proxy(collections.transmissions, {
      get(target, prop) {
        if (prop === 'find') return (filter, options) => { finds.push(filter); return target.find(filter, options); };
        const value = target[prop];
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const after = createEngine({ channels });
    const summary = await createPersistence({ collections: { ...collections, transmissions: watched } }).loadInto(after, { batchSize: 250 });
    assert.equal(summary.skipped + summary.missingRaw + summary.rejected, 0, JSON.stringify(summary));
    assertSameViews(before, after);
    return { finds, summary };
  }
  const current = await reload();
  assert.equal(current.finds.length, 0, 'no transmission document read');

  // Documents of an earlier version: the first half of the creating observations without raw.
  const times = firsts.map((doc) => doc.time).sort((a, b) => a - b);
  const cut = times[Math.floor(times.length / 2)];
  const unset = await raw.observations.updateMany({ first: true, time: { $lt: cut } }, { $unset: { raw: '' } });
  assert.ok(unset.modifiedCount > 0);
  const mixed = await reload();
  assert.ok(mixed.finds.length > 0, 'transmission documents read for the older creating observations');
});

test('reload reads the observation documents from their BSON bytes: a binary raw, int32/int64 numbers and extra fields load the same', async (t) => {
  if (skipIfNoMongo(t)) return;
  const { raw, collections } = freshCollections();
  const { reports, channels } = simulatedReports({ seed: 17, count: 1500 });
  const before = createEngine({ channels });
  const persistence = createPersistence({ collections, store: before.store });
  await persistence.ensureIndexes();
  ingestAll(before, persistence, reports);
  await persistence.close();
  // Another layout of the same data (another writer, a hand migration): raw as bytes, the
  // numbers as 64- and 32-bit integers where they are whole, and fields this version ignores.
  const docs = await raw.observations.find({}).toArray();
  const ops = docs.map((doc) => {
    const set = { extra: { nested: [1, 'two'] }, note: new Binary(Buffer.alloc(40, 1)) };
    if (typeof doc.raw === 'string') set.raw = new Binary(Buffer.from(doc.raw, 'hex'));
    set.time = Long.fromNumber(doc.time);
    if (Number.isInteger(doc.rssi)) set.rssi = new Int32(doc.rssi);
    return { updateOne: { filter: { _id: doc._id }, update: { $set: set } } };
  });
  await raw.observations.bulkWrite(ops);
  assert.ok(await raw.observations.findOne({ raw: { $type: 'binData' } }), 'raw is stored as binary now');
  const after = createEngine({ channels });
  const summary = await createPersistence({ collections }).loadInto(after, { batchSize: 300 });
  t.diagnostic(`reloaded ${JSON.stringify(summary)}`);
  assert.equal(summary.skipped + summary.missingRaw + summary.rejected + summary.badDocuments, 0, JSON.stringify(summary));
  assert.ok(summary.readCpuMs > 0, 'the BSON reading is timed apart from the engine');
  assertSameViews(before, after);
});

test('reload does not verify stored adverts again, and restores verification for live ingest', async (t) => {
  if (skipIfNoMongo(t)) return;
  const { collections } = freshCollections();
  const { reports, channels } = simulatedReports({ seed: 15, count: 1500 });
  const before = createEngine({ channels });
  const persistence = createPersistence({ collections, store: before.store });
  await persistence.ensureIndexes();
  ingestAll(before, persistence, reports);
  await persistence.close();
  const adverts = before.store.transmissions().filter((tx) => tx.advert !== null).length;
  assert.ok(adverts > 0, 'the traffic has adverts');

  /** A fresh engine whose decoder records the verifyAdverts value each advert decode reads. */
  function watchedEngine() {
    const engine = createEngine({ channels });
    const reads = [];
    let value = engine.store.decodeOptions.verifyAdverts;
    Object.defineProperty(engine.store.decodeOptions, 'verifyAdverts', {
      get() { reads.push(value); return value; },
      set(next) { value = next; },
      enumerable: true,
    });
    return { engine, reads };
  }
  const replayed = watchedEngine();
  assert.equal(replayed.engine.store.decodeOptions.verifyAdverts, true);
  replayed.reads.length = 0;
  await createPersistence({ collections }).loadInto(replayed.engine);
  assert.ok(replayed.reads.length >= adverts, `every stored advert was decoded (${replayed.reads.length} reads)`);
  // The first read is the reload saving the setting to restore it; every decode after it reads
  // 'trusted': no signature is checked, and replayed adverts read as verified, as they were live.
  assert.equal(replayed.reads[0], true);
  assert.ok(replayed.reads.slice(1).every((read) => read === 'trusted'), 'no advert signature checked during the replay');
  const replayedAdverts = replayed.engine.store.transmissions().filter((tx) => tx.advert !== null);
  assert.ok(replayedAdverts.length > 0 && replayedAdverts.every((tx) => tx.advert.signatureValid === true), 'replayed adverts read as verified');
  assert.equal(replayed.engine.store.decodeOptions.verifyAdverts, true, 'live ingest verifies again');
  assert.equal(replayed.engine.store.size, before.store.size);

  // Asked to, the reload verifies each advert (and the result is the same for adverts we signed).
  const verified = watchedEngine();
  verified.reads.length = 0;
  const summary = await createPersistence({ collections }).loadInto(verified.engine, { verifyAdverts: true });
  assert.ok(verified.reads.length >= adverts && verified.reads.every((read) => read === true));
  assert.equal(summary.rejected, 0);
  assert.equal(verified.engine.store.size, before.store.size);

  // A reload that fails half-way still restores verification.
  const failing = watchedEngine();
  const broken = new Proxy(collections.observations, {
    get(target, prop) {
      if (prop === 'find') return () => { throw new Error('simulated read failure'); };
      const value = target[prop];
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  await assert.rejects(createPersistence({ collections: { ...collections, observations: broken } }).loadInto(failing.engine), /simulated read failure/);
  assert.equal(failing.engine.store.decodeOptions.verifyAdverts, true);
});

test('an outage during ingest loses nothing: writes wait, are retried, and land afterwards', async (t) => {
  if (skipIfNoMongo(t)) return;
  const { raw, collections, control } = freshCollections();
  const { reports, channels } = simulatedReports({ seed: 7, count: 1500 });
  const engine = createEngine({ channels });
  const log = capturingLog();
  const persistence = createPersistence({ collections, store: engine.store, log, batchSize: 200, ...FAST_RETRY });
  await persistence.ensureIndexes();

  ingestAll(engine, persistence, reports.slice(0, 300));
  await persistence.flush();
  control.failing = true;
  // Ingest goes on while MongoDB is down; recordIngest neither throws nor blocks.
  const accepted = ingestAll(engine, persistence, reports.slice(300));
  assert.equal(accepted, reports.length - 300);
  await until(() => persistence.stats().retried >= 5, 'retries');
  const during = persistence.stats();
  assert.ok(during.pending > 0);
  assert.equal(during.outage, true);
  assert.equal(during.lastError.name, 'MongoNetworkError');
  await assert.rejects(persistence.flush(50), /flush timed out after 50 ms with \d+ writes pending/);

  control.failing = false;
  await persistence.flush();
  const stats = persistence.stats();
  assert.equal(stats.failed, 0);
  assert.equal(stats.overflowed, 0);
  assert.equal(stats.pending, 0);
  assert.equal(stats.outage, false);
  assert.equal(await raw.transmissions.countDocuments(), engine.store.size);
  assert.equal(await raw.observations.countDocuments(), expectedObservationIds(reports).size);
  assert.ok(log.lines.some((line) => /^warn: .*MongoDB unreachable/.test(line)));
  assert.ok(log.lines.some((line) => /^info: .*writes resumed/.test(line)));
  await persistence.close();
});

test('a real server stop and restart on the same port: the driver\'s errors are retried until it is back', async (t) => {
  if (skipIfNoMongo(t)) return;
  if (mongo.external) return t.skip('needs the test server (MONGO_URL is set)');
  let server = await startMongo();
  const port = server.port;
  const ownClient = new MongoClient(server.url, { serverSelectionTimeoutMS: 500 });
  try {
    await ownClient.connect();
    const db = ownClient.db(server.dbName);
    const collections = Object.fromEntries(COLLECTION_NAMES.map((name) => [name, db.collection(name)]));
    const { reports, channels } = simulatedReports({ seed: 11, count: 600 });
    const engine = createEngine({ channels });
    const persistence = createPersistence({ collections, store: engine.store, ...FAST_RETRY });

    await server.stop();
    ingestAll(engine, persistence, reports);
    await until(() => persistence.stats().retried >= 3, 'retries');
    assert.equal(persistence.stats().outage, true, `classified as an outage: ${JSON.stringify(persistence.stats().lastError)}`);

    server = await startMongo({ port }); // a new, empty in-memory server
    await persistence.flush();
    const stats = persistence.stats();
    assert.equal(stats.failed, 0);
    assert.equal(await collections.transmissions.countDocuments(), engine.store.size);
    assert.equal(await collections.observations.countDocuments(), expectedObservationIds(reports).size);
    await persistence.close();
  } finally {
    await ownClient.close();
    await server.stop();
  }
});

test('a full buffer drops the oldest writes and counts them; nothing else is lost', async (t) => {
  if (skipIfNoMongo(t)) return;
  const { raw, collections, control } = freshCollections();
  const { reports, channels } = simulatedReports({ seed: 8, count: 600 });
  const engine = createEngine({ channels });
  const log = capturingLog();
  const maxPendingWrites = 100;
  const persistence = createPersistence({ collections, store: engine.store, log, batchSize: 50, maxPendingWrites, queue: { maxConcurrency: 1 }, ...FAST_RETRY });

  control.failing = true;
  ingestAll(engine, persistence, reports);
  await until(() => control.failuresSeen > 0, 'a failed bulkWrite');
  const during = persistence.stats();
  assert.ok(during.overflowed > 0);
  assert.ok(during.pending <= maxPendingWrites + 50, `pending ${during.pending} within the bound plus one in-flight batch`);
  assert.ok(log.lines.some((line) => /^warn: .*write buffer full/.test(line)));

  control.failing = false;
  await persistence.flush();
  const stats = persistence.stats();
  const documents = (await Promise.all(COLLECTION_NAMES.map((name) => raw[name].countDocuments()))).reduce((a, b) => a + b, 0);
  assert.equal(stats.failed, 0);
  // Every queued write was either written (one document each: no re-deliveries here) or dropped and counted.
  assert.equal(stats.written, documents);
  assert.equal(stats.written + stats.overflowed, stats.queued);
  assert.ok(stats.queued > engine.store.size + engine.store.observationCount, 'transmissions, observations and directory writes were queued');
  await persistence.close();
});

test('close() gives up on writes that cannot be made and counts them as failed', async (t) => {
  if (skipIfNoMongo(t)) return;
  const { collections, control } = freshCollections();
  const { reports, channels } = simulatedReports({ seed: 9, count: 40 });
  const engine = createEngine({ channels });
  const persistence = createPersistence({ collections, store: engine.store, ...FAST_RETRY });
  control.failing = true;
  ingestAll(engine, persistence, reports);
  await until(() => persistence.stats().retried > 0, 'a retry');
  const stats = await persistence.close(20);
  assert.ok(stats.failed > 0);
  assert.equal(stats.pending, 0);
  assert.equal(persistence.recordIngest(engine.ingest(reports[0]), reports[0]), false, 'a closed persistence refuses writes');
});

test('retention deletes old documents per collection; dropped packets are kept short', async (t) => {
  if (skipIfNoMongo(t)) return;
  const { raw, collections } = freshCollections();
  const { reports, channels } = simulatedReports({ seed: 10, count: 400 });
  const now = Date.UTC(2026, 5, 1);
  const oldStart = now - 40 * DAY_MS;
  const recentStart = now - 1 * DAY_MS;
  const firstTime = reports[0].time;
  const shifted = reports.map((report, i) => ({ ...report, time: (i < 200 ? oldStart : recentStart) + (report.time - firstTime) }));

  const engine = createEngine({ channels });
  const persistence = createPersistence({ collections, store: engine.store, retentionDays: { transmissions: 30, observations: 30, droppedPackets: 7, nodes: 30, observers: null } });
  await persistence.ensureIndexes();
  ingestAll(engine, persistence, shifted);
  persistence.recordDropped(null, { reason: 'bad_json', message: 'x'.repeat(2000), raw: 'f'.repeat(5000), time: now - 10 * DAY_MS, source: 'mqtt:test' });
  persistence.recordDropped({ raw: 'zz', observerId: 'obs1' }, { reason: 'not_hex', message: 'input is not an even-length hex string', time: now - DAY_MS });
  await persistence.flush();

  const dropped = await raw.droppedPackets.find({}).sort({ receivedAt: 1 }).toArray();
  assert.equal(dropped.length, 2);
  assert.equal(dropped[0].raw.length, 600);
  assert.equal(dropped[0].source, 'mqtt:test');
  assert.ok(dropped[0].receivedAt instanceof Date);
  assert.deepEqual([dropped[1].reason, dropped[1].raw, dropped[1].observerId], ['not_hex', 'zz', 'obs1']);

  const cutoff = now - 30 * DAY_MS;
  const oldTransmissions = await raw.transmissions.countDocuments({ time: { $lt: cutoff } });
  const oldObservations = await raw.observations.countDocuments({ time: { $lt: cutoff } });
  assert.ok(oldTransmissions > 0 && oldObservations > 0);
  const totalObservers = await raw.observers.countDocuments();

  const deleted = await persistence.applyRetention(now);
  assert.equal(deleted.transmissions, oldTransmissions);
  assert.equal(deleted.observations, oldObservations);
  assert.equal(deleted.droppedPackets, 1);
  assert.equal(deleted.observers, undefined, 'observers are kept forever here');
  assert.equal(await raw.transmissions.countDocuments({ time: { $lt: cutoff } }), 0);
  assert.ok(await raw.transmissions.countDocuments() > 0);
  assert.equal(await raw.nodes.countDocuments({ lastSeen: { $lt: cutoff } }), 0);
  assert.equal(await raw.observers.countDocuments(), totalObservers);

  // Changing retention rebuilds the TTL indexes instead of failing.
  const again = createPersistence({ collections, retentionDays: { transmissions: 10, droppedPackets: null } });
  await again.ensureIndexes();
  const indexes = await raw.transmissions.indexes();
  assert.equal(indexes.find((index) => index.name === 'at_1').expireAfterSeconds, 10 * 86400);
  assert.ok(indexes.some((index) => index.name === 'hash_1' && index.unique));
  const droppedIndex = (await raw.droppedPackets.indexes()).find((index) => index.name === 'receivedAt_1');
  assert.equal(droppedIndex.expireAfterSeconds, undefined);
  await persistence.close();
  await again.close();
});
