'use strict';
/**
 * Write-behind persistence of the packet store to MongoDB, and the start-up reload from it.
 *
 *   const persistence = createPersistence({ collections, store: engine.store, log });
 *   await persistence.ensureIndexes();
 *   await persistence.loadInto(engine);             // before live ingest starts
 *   persistence.recordIngest(result, report);       // after each store.ingest(); never blocks or throws
 *   await persistence.flush();                      // everything recorded so far is written
 *
 * `collections` are driver collection handles: `db.collection(name)` from the `mongodb` package
 * under Node, or `Collection.rawCollection()` under Meteor (same API). Nothing here imports
 * Meteor or the driver; only bulkWrite, find, findOne, estimatedDocumentCount, deleteMany,
 * indexes, createIndex and dropIndex are used.
 *
 * Documents (every write is keyed on a deterministic _id, so re-delivery and retries are idempotent:
 * a duplicate-key error means the document is already there, and counts as written):
 *   transmissions  { _id: hash, hash, raw, time, at, ingestOrder, routeType, payloadType, payloadVersion,
 *                    hashSize, hopCount, size, srcHash?, destHash?, channelHash?, advertPubKey? }
 *   observations   { _id: `${hash}:${observerId}:${reported time}`, hash, observerId, time, at,
 *                    ingestOrder, snr, rssi, score, direction, first?: true, raw? }
 *   nodes          { _id: pubKey, pubKey, name, role, lat, lon, firstSeen, lastSeen, lastSeenAt, lastAdvert, adverts }
 *   observers      { _id: id, id, name, region, firstSeen, lastSeen, lastSeenAt, reports }
 *   droppedPackets { receivedAt, reason, message, raw (<= 600 chars), source, observerId }
 * `time`, `firstSeen`, `lastSeen` are milliseconds like the store's; `at`, `lastSeenAt` are the same
 * instants as Dates, for TTL indexes. `ingestOrder` numbers observations in ingest order across
 * restarts, so that a reload replays them in exactly the order the store first saw them.
 *
 * An observation keeps its own `raw` only when the path it heard differs from the transmission's:
 * the transmission's raw plus that observation's raw are all a replay needs (the store takes only
 * the path from a duplicate report), and most observations repeat the transmission's path, so
 * this costs nothing for them and avoids re-encoding path bytes (TRACE packets put SNRs there).
 * The creating observation (`first`) carries the transmission's raw as well, so a reload reads
 * the observations alone; for creating observations stored without it (earlier versions) the
 * reload reads the transmission documents alongside, from the first such observation on.
 *
 * Directory entries (nodes, observers) change on almost every report; they are written
 * coalesced: a dirty entry is queued once and written with its state at write time.
 */
const { createQueue, SampleWindow } = require('./queue');
const { checkText, INPUT_LIMITS } = require('./input-limits');
const { rawHex } = require('./store');
const { resolveLog } = require('./log');
const { readObservationDocument } = require('./bson-observation');

const DAY_MS = 24 * 3600 * 1000;
const COLLECTION_NAMES = ['transmissions', 'observations', 'nodes', 'observers', 'droppedPackets'];

/** Every option of createPersistence(), its default, and what it means. */
const PERSISTENCE_DEFAULTS = Object.freeze({
  // Most write operations in one bulkWrite per collection.
  batchSize: 500,
  // Writes waiting to be sent before the oldest is dropped (counted as overflowed). In-flight
  // batches (queue.maxConcurrency x batchSize) come on top of this bound.
  maxPendingWrites: 200000,
  // Extra queue knobs (imports/core/queue.js); mode, batchSize, maxLength and the callbacks are ours.
  queue: Object.freeze({ maxConcurrency: 4, maxWaitMs: 50, overflow: 'drop-oldest' }),
  // First retry delay after a failed bulkWrite; doubled per attempt up to maxRetryBackoffMs.
  retryBackoffMs: 250,
  maxRetryBackoffMs: 30000,
  // Errors that do not look like an outage (network, failover) are retried this often, then the
  // batch is counted as failed. Outage errors are retried until they stop or close() gives up.
  maxRetriesOnOtherErrors: 2,
  // flush() rejects after this long.
  flushTimeoutMs: 30000,
  // Raw input kept per dropped packet.
  droppedRawChars: 600,
  // Days kept per collection by applyRetention() and the TTL indexes; null keeps forever.
  retentionDays: Object.freeze({ transmissions: 30, observations: 30, droppedPackets: 7, nodes: null, observers: null }),
});

/** Driver error names that mean "MongoDB is unreachable or failing over": retry until it is back. */
const OUTAGE_ERROR_NAMES = new Set([
  'MongoNetworkError', 'MongoNetworkTimeoutError', 'MongoServerSelectionError', 'MongoNotConnectedError',
  'MongoTopologyClosedError', 'MongoPoolClearedError', 'MongoServerClosedError', 'MongoWriteConcernError',
]);
/** Server codes (not primary, shutting down, interrupted…) and socket errnos of the same kind. */
const OUTAGE_ERROR_CODES = new Set([
  6, 7, 89, 91, 189, 262, 9001, 10107, 11600, 11602, 13435, 13436,
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN',
]);
const OUTAGE_ERROR_LABELS = ['RetryableWriteError', 'ResetPool', 'NetworkError', 'TransientTransactionError'];
const DUPLICATE_KEY = 11000;
// createIndex codes for "an index with this name or key exists with other options".
const INDEX_CONFLICT_CODES = new Set([85, 86]);

/** True when the error (or the driver error it wraps) means the server is unreachable for now. */
function isOutageError(err) {
  let current = err;
  for (let depth = 0; current && depth < 4; depth++) {
    if (OUTAGE_ERROR_NAMES.has(current.name) || OUTAGE_ERROR_CODES.has(current.code)) return true;
    if (typeof current.hasErrorLabel === 'function' && OUTAGE_ERROR_LABELS.some((label) => current.hasErrorLabel(label))) return true;
    // MongoBulkWriteError keeps the driver error it wraps in errorResponse.
    current = current.errorResponse instanceof Error ? current.errorResponse : current.cause;
  }
  return false;
}

function describeError(err) {
  return { name: (err && err.name) || 'Error', message: (err && err.message) || String(err), code: err && err.code !== undefined ? err.code : null, at: new Date() };
}

function truncate(value, max) {
  if (value === null || value === undefined) return null;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > max ? text.slice(0, max) : text;
}

function mergeOptions(options) {
  const merged = { ...PERSISTENCE_DEFAULTS, ...options };
  merged.queue = { ...PERSISTENCE_DEFAULTS.queue, ...(options.queue || {}) };
  merged.retentionDays = { ...PERSISTENCE_DEFAULTS.retentionDays, ...(options.retentionDays || {}) };
  return merged;
}

// ---- Document builders ----------------------------------------------------------------

function transmissionDocument(tx, ingestOrder, raw) {
  const doc = {
    _id: tx.hash,
    hash: tx.hash,
    raw,
    time: tx.time,
    at: new Date(tx.time),
    ingestOrder,
    routeType: tx.routeType,
    payloadType: tx.payloadType,
    payloadVersion: tx.payloadVersion,
    hashSize: tx.hashSize,
    hopCount: tx.hopCount,
    size: tx.size,
  };
  // Only the fields a packet type has, to keep documents small.
  if (tx.srcHash) doc.srcHash = tx.srcHash;
  if (tx.destHash) doc.destHash = tx.destHash;
  if (tx.channelHash) doc.channelHash = tx.channelHash;
  if (tx.advert) doc.advertPubKey = tx.advert.pubKey;
  return doc;
}

/** `createdRaw`: the transmission's raw hex when this observation created it, else null. */
function observationDocument(result, report, ingestOrder, createdRaw) {
  const { tx, observation, isNew } = result;
  const observerId = observation.observer.id;
  // Keyed on the observer's own timestamp when it sent one: the same report received by two
  // MeshPulse instances (or re-delivered by the broker) maps to one document. Otherwise the
  // time it was received (not the store's clamped time).
  let reportedTime = observation.time;
  if (report && Number.isFinite(report.observerTime)) reportedTime = report.observerTime;
  else if (report && Number.isFinite(report.time)) reportedTime = report.time;
  const doc = {
    _id: `${tx.hash}:${observerId}:${reportedTime}`,
    hash: tx.hash,
    observerId,
    time: observation.time,
    at: new Date(observation.time),
    ingestOrder,
    snr: observation.snr,
    rssi: observation.rssi,
    score: observation.score,
    direction: observation.direction,
  };
  if (isNew) doc.first = true;
  // The creating observation carries the transmission's raw, so a reload reads this collection
  // alone (documents written before it did come with their transmission document's raw).
  if (createdRaw) doc.raw = createdRaw;
  // The store shares tx.path when this observer heard the same path.
  else if (observation.path !== tx.path && report && typeof report.raw === 'string') doc.raw = report.raw.toLowerCase();
  return doc;
}

function nodeUpdate(entry) {
  return {
    updateOne: {
      filter: { _id: entry.pubKey },
      update: {
        $setOnInsert: { pubKey: entry.pubKey },
        $set: { name: entry.name ?? null, role: entry.role ?? null, lat: entry.lat ?? null, lon: entry.lon ?? null },
        $min: { firstSeen: entry.firstSeen },
        $max: { lastSeen: entry.lastSeen, lastSeenAt: new Date(entry.lastSeen), lastAdvert: entry.lastAdvert ?? 0, adverts: entry.adverts ?? 0 },
      },
      upsert: true,
    },
  };
}

function observerUpdate(entry) {
  return {
    updateOne: {
      filter: { _id: entry.id },
      update: {
        $setOnInsert: { id: entry.id },
        $set: { name: entry.name ?? entry.id, region: entry.region ?? null },
        $min: { firstSeen: entry.firstSeen },
        $max: { lastSeen: entry.lastSeen, lastSeenAt: new Date(entry.lastSeen), reports: entry.reports ?? 0 },
      },
      upsert: true,
    },
  };
}

/** A node entry from an advert alone, for when no store was given to read the directory from. */
function nodeFromAdvert(tx) {
  const { advert } = tx;
  return { pubKey: advert.pubKey, name: advert.name, role: advert.role, lat: advert.lat, lon: advert.lon, firstSeen: tx.time, lastSeen: tx.time, lastAdvert: advert.timestamp, adverts: 1 };
}

// ---- Directory restore: PacketStore.restoreNode / restoreObserver validate and add; merge here --------

/** A finite number, or null: stored documents are input too (hand-edited, older versions). */
function finite(value) {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function shortText(value, max) {
  return typeof value === 'string' && value.length > 0 && checkText(value, max) ? value : null;
}

/** { firstSeen, lastSeen } over the observer documents' finite times (NaN when there are none). */
function observedSpan(observerDocs) {
  let firstSeen = Infinity;
  let lastSeen = -Infinity;
  for (const doc of observerDocs) {
    const first = doc ? finite(doc.firstSeen) : null;
    const last = doc ? finite(doc.lastSeen) : null;
    if (first !== null && first < firstSeen) firstSeen = first;
    if (last !== null && last > lastSeen) lastSeen = last;
  }
  return Number.isFinite(firstSeen) && Number.isFinite(lastSeen) ? { firstSeen, lastSeen } : { firstSeen: NaN, lastSeen: NaN };
}

/** After replay: the persisted directory knows what the replayed window may not (older adverts, hops). */
function mergeNode(store, node, doc) {
  const firstSeen = finite(doc.firstSeen);
  const lastSeen = finite(doc.lastSeen);
  if (firstSeen !== null && firstSeen < node.firstSeen) node.firstSeen = firstSeen;
  if (lastSeen !== null && lastSeen > node.lastSeen && lastSeen <= store.now() + INPUT_LIMITS.futureToleranceMs) node.lastSeen = lastSeen;
  const adverts = finite(doc.adverts);
  if (adverts !== null && adverts > node.adverts) node.adverts = adverts;
  const lastAdvert = finite(doc.lastAdvert) || 0;
  // The same clock window as live adverts: a stored far-future timestamp must not pin the node.
  if (lastAdvert >= node.lastAdvert && lastAdvert * 1000 <= store.now() + store.options.advertClockWindowMs) {
    node.lastAdvert = lastAdvert;
    const name = shortText(doc.name, INPUT_LIMITS.observerNameLength);
    if (name) store.directory.renameNode(node, name);
    const role = shortText(doc.role, 16);
    if (role) node.role = role;
    const lat = finite(doc.lat);
    const lon = finite(doc.lon);
    if (lat !== null && lon !== null && Math.abs(lat) <= 90 && Math.abs(lon) <= 180) {
      node.lat = lat;
      node.lon = lon;
    }
  }
}

function mergeObserver(observer, doc) {
  const firstSeen = finite(doc.firstSeen);
  const lastSeen = finite(doc.lastSeen);
  const reports = finite(doc.reports);
  if (firstSeen !== null && firstSeen < observer.firstSeen) observer.firstSeen = firstSeen;
  if (lastSeen !== null && lastSeen > observer.lastSeen) observer.lastSeen = lastSeen;
  if (reports !== null && reports > observer.reports) observer.reports = reports;
  // Name and region only while the observer is idle: a stored one's bytes are charged as they are.
  if (observer.stored > 0) return;
  const name = shortText(doc.name, INPUT_LIMITS.observerNameLength);
  if (name) observer.name = name;
  const region = shortText(doc.region, INPUT_LIMITS.regionLength);
  if (region) observer.region = region;
}

/**
 * Reads a driver cursor one server batch at a time, with the next batch already requested
 * while the caller works on the current one (the server and the replay run in parallel).
 */
class BatchReader {
  constructor(cursor) {
    this.cursor = cursor;
    this.batch = [];
    this.index = 0;
    this.done = false;
    this.pending = this.fetch();
  }

  async fetch() {
    if (!(await this.cursor.hasNext())) return null;
    return this.cursor.readBufferedDocuments();
  }

  /** The rest of the current batch, or the next one; null at the end. */
  async nextBatch() {
    if (this.index < this.batch.length) {
      const rest = this.index === 0 ? this.batch : this.batch.slice(this.index);
      this.batch = [];
      this.index = 0;
      return rest;
    }
    if (this.done) return null;
    const batch = await this.pending;
    if (!batch) {
      this.done = true;
      this.pending = null;
      return null;
    }
    this.pending = this.fetch();
    return batch;
  }

  /** The next document without consuming it; null at the end. */
  async peek() {
    while (this.index >= this.batch.length) {
      const batch = await this.nextBatch();
      if (!batch) return null;
      this.batch = batch;
      this.index = 0;
    }
    return this.batch[this.index];
  }

  /** Consume the document peek() returned. */
  take() {
    this.index++;
  }

  async close() {
    // Let an outstanding getMore settle before closing the cursor under it.
    if (this.pending) await this.pending.catch(() => null);
    await this.cursor.close();
  }
}

/**
 * Where the replay's time windows end (loadInto's `windowed: true`), as fractions of the stored
 * time span. The first window is small so the replay starts while the server still gathers the
 * rest; the next window is requested while the current one replays. Off by default: against the
 * tests' in-memory server (no range index: every window is a full scan) one sorted query was
 * faster (200k transmissions: 24.6 s against 29.2 s, waiting 10.6 s against 16.2 s).
 */
const REPLAY_WINDOW_FRACTIONS = Object.freeze([1 / 32, 1 / 8, 1 / 4, 1 / 2, 3 / 4]);

/**
 * Window boundaries (milliseconds) between `from` and `to`: the first window is open below and
 * the last above, so a wrong estimate of the span costs speed, never documents.
 */
function replayWindows(from, to) {
  if (!Number.isFinite(from) || !Number.isFinite(to) || to <= from) return [];
  const bounds = REPLAY_WINDOW_FRACTIONS.map((fraction) => Math.floor(from + (to - from) * fraction));
  return bounds.filter((bound, index) => bound > from && (index === 0 || bound > bounds[index - 1]));
}

/**
 * BatchReader's interface over several queries, one per time window, in order: the same sort
 * within each, and windows never overlap, so the concatenation is in sort order. `open(filter)`
 * returns a driver cursor for one window's extra filter on `time` (null: no window, everything).
 */
class WindowedReader {
  constructor(open, bounds) {
    this.open = open;
    this.filters = [];
    for (let i = 0; i <= bounds.length; i++) {
      const time = {};
      if (i > 0) time.$gte = bounds[i - 1];
      if (i < bounds.length) time.$lt = bounds[i];
      this.filters.push(bounds.length > 0 ? time : null);
    }
    this.next = 0;
    this.current = this.openNext();
    this.ahead = this.openNext();
  }

  openNext() {
    return this.next < this.filters.length ? new BatchReader(this.open(this.filters[this.next++])) : null;
  }

  async nextBatch() {
    while (this.current) {
      const batch = await this.current.nextBatch();
      if (batch) return batch;
      await this.current.close();
      this.current = this.ahead;
      this.ahead = this.openNext();
    }
    return null;
  }

  async peek() {
    while (this.current) {
      const doc = await this.current.peek();
      if (doc) return doc;
      await this.current.close();
      this.current = this.ahead;
      this.ahead = this.openNext();
    }
    return null;
  }

  take() {
    this.current.take();
  }

  async close() {
    await Promise.all([this.current, this.ahead].filter(Boolean).map((reader) => reader.close()));
    this.current = null;
    this.ahead = null;
  }
}

/**
 * @param {object} options see PERSISTENCE_DEFAULTS, plus:
 * @param {object} options.collections  { transmissions, observations, nodes, observers, droppedPackets } driver collections
 * @param {object} [options.store]      the engine's PacketStore: node entries (and nodes refreshed by hops) are read from it
 * @param {object} [options.log]        { info, warn, error }; silent by default
 */
function createPersistence(options = {}) {
  const { collections } = options;
  for (const name of COLLECTION_NAMES) {
    if (!collections || !collections[name] || typeof collections[name].bulkWrite !== 'function') {
      throw new TypeError(`createPersistence: collections.${name} must be a MongoDB collection (with bulkWrite)`);
    }
  }
  const settings = mergeOptions(options);
  const log = resolveLog(options.log);
  let store = options.store || null;

  const counters = { recorded: 0, written: 0, retried: 0, failed: 0, bulkWrites: 0, internalErrors: 0 };
  const writtenByCollection = Object.fromEntries(COLLECTION_NAMES.map((name) => [name, 0]));
  const batchLatencyMs = new SampleWindow(1024);
  let lastError = null;
  let outageSince = null; // set while bulkWrites fail with outage errors
  let overflowedSinceLastWrite = 0;
  let stopping = false; // close() gave up waiting: retry loops stop
  const sleepers = new Set();

  // Wall clock in microseconds, then +1 per observation: stays ahead of any earlier run's numbers.
  let nextIngestOrder = Date.now() * 1000;

  // Dirty directory entries with a write queued and not yet started: id -> entry to write.
  const dirty = { nodes: new Map(), observers: new Map() };

  const queue = createQueue(writeBatch, {
    ...settings.queue,
    mode: 'batch',
    batchSize: settings.batchSize,
    maxLength: settings.maxPendingWrites,
    retries: 0, // we retry inside writeBatch, per collection, with our own policy
    onOverflow(task, reason) {
      if (task.directory) dirty[task.collection].delete(task.id);
      overflowedSinceLastWrite++;
      if (overflowedSinceLastWrite === 1) log.warn(`persistence: write buffer full, dropping writes (${reason}); maxPendingWrites is ${settings.maxPendingWrites}`);
    },
    onError(err) {
      // writeBatch handles its own failures; this is a bug guard.
      counters.internalErrors++;
      lastError = describeError(err);
      log.error(`persistence: write batch crashed: ${err && err.stack}`);
    },
  });

  function sleep(ms) {
    return new Promise((resolve) => {
      const sleeper = { resolve, timer: setTimeout(() => { sleepers.delete(sleeper); resolve(); }, ms) };
      sleepers.add(sleeper);
    });
  }

  function enqueue(task) {
    try {
      return queue.push(task, task.directory ? `${task.collection}:${task.id}` : undefined);
    } catch (err) {
      // overflow 'throw' or a closed queue: recordIngest must not throw
      return false;
    }
  }

  /** Queue a write of a directory entry unless one is already waiting (it will read the newest state). */
  function markDirty(collection, id, entry) {
    const pending = dirty[collection];
    if (pending.has(id)) {
      pending.set(id, entry);
      return true;
    }
    pending.set(id, entry);
    if (enqueue({ collection, id, directory: true })) return true;
    pending.delete(id);
    return false;
  }

  /** The queue's batch handler: one bulkWrite per collection present in the batch, in parallel. */
  async function writeBatch(tasks) {
    const opsByCollection = new Map();
    for (const task of tasks) {
      let op = task.op;
      if (task.directory) {
        const entry = dirty[task.collection].get(task.id);
        dirty[task.collection].delete(task.id); // later changes queue a new write
        if (!entry) continue;
        op = task.collection === 'nodes' ? nodeUpdate(entry) : observerUpdate(entry);
      }
      if (!opsByCollection.has(task.collection)) opsByCollection.set(task.collection, []);
      opsByCollection.get(task.collection).push(op);
    }
    await Promise.all(Array.from(opsByCollection, ([name, ops]) => writeWithRetry(name, ops)));
  }

  function noteWritten(name, count) {
    counters.written += count;
    writtenByCollection[name] += count;
    if (outageSince !== null) {
      log.info(`persistence: MongoDB writes resumed after ${Math.round((Date.now() - outageSince) / 1000)} s${overflowedSinceLastWrite ? `; ${overflowedSinceLastWrite} writes were dropped meanwhile` : ''}`);
      outageSince = null;
    }
    overflowedSinceLastWrite = 0;
  }

  async function writeWithRetry(name, ops) {
    for (let attempt = 0; ; attempt++) {
      const startedAt = performance.now();
      counters.bulkWrites++;
      try {
        await collections[name].bulkWrite(ops, { ordered: false });
        batchLatencyMs.add(performance.now() - startedAt);
        noteWritten(name, ops.length);
        return;
      } catch (err) {
        const writeErrors = Array.isArray(err && err.writeErrors) ? err.writeErrors : [];
        if (writeErrors.length > 0 && !isOutageError(err)) {
          // Per-document errors: duplicate keys are re-deliveries (the document is there);
          // anything else will not get better by retrying.
          const failedOps = writeErrors.filter((writeError) => writeError.code !== DUPLICATE_KEY).length;
          batchLatencyMs.add(performance.now() - startedAt);
          noteWritten(name, ops.length - failedOps);
          if (failedOps > 0) {
            counters.failed += failedOps;
            lastError = describeError(writeErrors.find((writeError) => writeError.code !== DUPLICATE_KEY) || err);
            log.error(`persistence: ${failedOps} of ${ops.length} ${name} writes failed: ${lastError.message}`);
          }
          return;
        }
        lastError = describeError(err);
        const outage = isOutageError(err);
        if (stopping || (!outage && attempt >= settings.maxRetriesOnOtherErrors)) {
          counters.failed += ops.length;
          log.error(`persistence: gave up on ${ops.length} ${name} writes after ${attempt + 1} attempts: ${lastError.message}`);
          return;
        }
        if (outage && outageSince === null) {
          outageSince = Date.now();
          log.warn(`persistence: MongoDB unreachable (${lastError.message}); buffering up to ${settings.maxPendingWrites} writes and retrying`);
        } else if (!outage) {
          log.warn(`persistence: ${name} bulkWrite failed (${lastError.message}); retrying`);
        }
        counters.retried++;
        await sleep(Math.min(settings.maxRetryBackoffMs, settings.retryBackoffMs * 2 ** Math.min(attempt, 20)));
      }
    }
  }

  /**
   * Record what `store.ingest(report)` returned. Queues the writes and returns at once: true when
   * they were accepted, false when the result carries nothing to write or the buffer refused it.
   */
  function recordIngest(result, report) {
    if (!result || result.error || !result.tx) return false;
    try {
      const { tx, observation, isNew } = result;
      let accepted = true;
      counters.recorded++;
      if (observation) {
        const ingestOrder = ++nextIngestOrder;
        // Plain inserts on deterministic _ids: a re-delivered one fails with a duplicate key,
        // which counts as written (the first copy is kept, like $setOnInsert, at a third of the cost).
        const createdRaw = isNew ? rawHex(tx) : null;
        if (isNew) accepted = enqueue({ collection: 'transmissions', op: { insertOne: { document: transmissionDocument(tx, ingestOrder, createdRaw) } } }) && accepted;
        accepted = enqueue({ collection: 'observations', op: { insertOne: { document: observationDocument(result, report, ingestOrder, createdRaw) } } }) && accepted;
        markDirty('observers', observation.observer.id, observation.observer);
        // Hops refresh the lastSeen of the node they resolve to (PacketStore.touchHop).
        if (store) {
          for (const hop of observation.path) {
            const node = store.uniqueNodeFor(hop);
            if (node) markDirty('nodes', node.pubKey, node);
          }
        }
      } else if (store && report && store.observers.has(report.observerId)) {
        // Over the per-transmission observation cap: not stored, but the observer was still heard.
        markDirty('observers', report.observerId, store.observers.get(report.observerId));
      }
      if (isNew && tx.advert) {
        const entry = (store && store.nodes.get(tx.advert.pubKey)) || nodeFromAdvert(tx);
        markDirty('nodes', entry.pubKey, entry);
      }
      return accepted;
    } catch (err) {
      counters.internalErrors++;
      lastError = describeError(err);
      log.error(`persistence: recordIngest failed: ${err && err.stack}`);
      return false;
    }
  }

  /**
   * Record a report the pipeline refused. `error`: { reason, message, time?, source?, raw? }
   * (the pipeline's drop entry); `report` may be null when the input never became one.
   */
  function recordDropped(report, error = {}) {
    try {
      const receivedAt = Number.isFinite(error.time) ? new Date(error.time) : new Date();
      const doc = {
        receivedAt,
        reason: error.reason || 'unknown',
        message: truncate(error.message || error.reason || null, settings.droppedRawChars),
        raw: truncate(error.raw ?? (report && report.raw), settings.droppedRawChars),
        source: error.source ?? null,
        observerId: (report && typeof report.observerId === 'string') ? report.observerId : null,
      };
      return enqueue({ collection: 'droppedPackets', op: { insertOne: { document: doc } } });
    } catch (err) {
      counters.internalErrors++;
      lastError = describeError(err);
      return false;
    }
  }

  /** Resolves when every write recorded before this call is written (or failed); rejects after `timeoutMs`. */
  function flush(timeoutMs = settings.flushTimeoutMs) {
    let timer;
    const timeout = new Promise((resolve, reject) => {
      timer = setTimeout(() => {
        const { depth, runningTasks } = queue.stats();
        reject(new Error(`persistence: flush timed out after ${timeoutMs} ms with ${depth + runningTasks} writes pending${lastError ? `; last error: ${lastError.message}` : ''}`));
      }, timeoutMs);
    });
    return Promise.race([queue.flush(), timeout]).finally(() => clearTimeout(timer));
  }

  /**
   * Refuse further writes, wait up to `timeoutMs` for pending ones, then stop retrying (what is
   * still pending counts as failed). Resolves with stats().
   */
  async function close(timeoutMs = settings.flushTimeoutMs) {
    const closing = queue.close();
    try {
      await flush(timeoutMs);
    } catch (err) {
      log.warn(err.message);
    }
    stopping = true;
    for (const sleeper of sleepers) {
      clearTimeout(sleeper.timer);
      sleeper.resolve();
    }
    sleepers.clear();
    await closing;
    return stats();
  }

  function stats() {
    const queueStats = queue.stats();
    return {
      pending: queueStats.depth + queueStats.runningTasks,
      inFlightBatches: queueStats.inFlight,
      recorded: counters.recorded,
      queued: queueStats.pushed,
      written: counters.written,
      writtenByCollection: { ...writtenByCollection },
      bulkWrites: counters.bulkWrites,
      retried: counters.retried,
      failed: counters.failed,
      overflowed: queueStats.overflowed,
      internalErrors: counters.internalErrors,
      outage: outageSince !== null,
      lastError,
      batchLatencyMs: batchLatencyMs.summary(),
    };
  }

  // ---- Indexes and retention -----------------------------------------------------------

  /** The collection's indexes; none when the collection does not exist yet. */
  async function listIndexes(name) {
    try {
      return await collections[name].indexes();
    } catch (err) {
      if (err.code === 26 || /ns does not exist|not found/i.test(err.message)) return []; // NamespaceNotFound
      throw err;
    }
  }

  /**
   * Create an index, or rebuild it when one on the same key exists with other options (retention
   * changed, TTL switched on or off). Compared here because some servers keep the old index silently.
   */
  async function ensureIndex(name, key, indexOptions = {}) {
    const collection = collections[name];
    const keyText = JSON.stringify(key);
    const existing = (await listIndexes(name)).find((index) => JSON.stringify(index.key) === keyText);
    if (existing) {
      const same = Boolean(existing.unique) === Boolean(indexOptions.unique) && existing.expireAfterSeconds === indexOptions.expireAfterSeconds;
      if (same) return existing.name;
      log.info(`persistence: rebuilding index ${name}.${existing.name} with ${JSON.stringify(indexOptions)}`);
      await collection.dropIndex(existing.name);
    }
    try {
      return await collection.createIndex(key, indexOptions);
    } catch (err) {
      // Another process created it meanwhile with other options.
      if (!INDEX_CONFLICT_CODES.has(err.code)) throw err;
      const indexName = Object.entries(key).map(([field, direction]) => `${field}_${direction}`).join('_');
      await collection.dropIndex(indexName);
      return collection.createIndex(key, indexOptions);
    }
  }

  /** A TTL index on a Date field when retention is set, else a plain one; falls back to plain where TTL is refused. */
  async function ensureRetentionIndex(name, field) {
    const days = settings.retentionDays[name];
    if (days === null || days === undefined) return ensureIndex(name, { [field]: 1 });
    try {
      return await ensureIndex(name, { [field]: 1 }, { expireAfterSeconds: Math.round(days * 86400) });
    } catch (err) {
      log.warn(`persistence: no TTL index on ${name}.${field} (${err.message}); applyRetention() still deletes old documents`);
      return ensureIndex(name, { [field]: 1 });
    }
  }

  async function ensureIndexes() {
    await Promise.all([
      ensureIndex('transmissions', { hash: 1 }, { unique: true }),
      // time + ingestOrder: replay order and retention; size makes the reload's newest-first walk index-only.
      ensureIndex('transmissions', { time: 1, ingestOrder: 1, size: 1 }),
      ensureRetentionIndex('transmissions', 'at'),
      ensureIndex('observations', { hash: 1 }),
      ensureIndex('observations', { time: 1, ingestOrder: 1 }),
      ensureRetentionIndex('observations', 'at'),
      ensureIndex('nodes', { pubKey: 1 }, { unique: true }),
      ensureIndex('nodes', { firstSeen: 1 }),
      ensureRetentionIndex('nodes', 'lastSeenAt'),
      ensureIndex('observers', { id: 1 }, { unique: true }),
      ensureRetentionIndex('observers', 'lastSeenAt'),
      ensureRetentionIndex('droppedPackets', 'receivedAt'),
    ]);
  }

  /**
   * Delete what is older than `retentionDays` per collection, now (TTL indexes do the same on
   * the server's schedule, where they work). Resolves with { collection: deletedCount }.
   */
  async function applyRetention(now = Date.now()) {
    const filters = {
      transmissions: (cutoff) => ({ time: { $lt: cutoff } }),
      observations: (cutoff) => ({ time: { $lt: cutoff } }),
      nodes: (cutoff) => ({ lastSeen: { $lt: cutoff } }),
      observers: (cutoff) => ({ lastSeen: { $lt: cutoff } }),
      droppedPackets: (cutoff) => ({ receivedAt: { $lt: new Date(cutoff) } }),
    };
    const deleted = {};
    for (const name of COLLECTION_NAMES) {
      const days = settings.retentionDays[name];
      if (days === null || days === undefined) continue;
      const result = await collections[name].deleteMany(filters[name](now - days * DAY_MS));
      deleted[name] = result.deletedCount;
    }
    return deleted;
  }

  // ---- Reload ---------------------------------------------------------------------------

  /**
   * Where replay must start so the store ends up holding what it held before the restart:
   * walk transmissions newest first, adding a lower bound of each one's store bytes (the store
   * can only have held fewer), and stop once the budget or maxTransmissions is exceeded.
   * Starting there, or earlier, the store's own eviction during replay lands on the same window.
   * Returns { time, ingestOrder, count } of the oldest transmission to replay ({ all: true }
   * when everything fits), or null when there is none.
   */
  async function findReplayStart(storeOptions, memoryBudget) {
    const sizes = storeOptions.estimatedBytes;
    const maxTransmissions = storeOptions.maxTransmissions || Infinity;
    // A stored transmission costs at least itself, its raw hex, one observation and two index entries.
    const lowerBound = (size) => sizes.transmission + 2 * size + sizes.observation + 2 * sizes.indexEntry;
    const total = await collections.transmissions.estimatedDocumentCount();
    if (total === 0) return null;
    // Even at the largest packet size everything fits: no need to walk.
    if (total <= maxTransmissions && total * lowerBound(255) <= memoryBudget) return { all: true, count: total };

    const cursor = collections.transmissions
      .find({}, { projection: { _id: 0, time: 1, ingestOrder: 1, size: 1 } })
      .sort({ time: -1, ingestOrder: -1 })
      .batchSize(20000);
    let bytes = 0;
    let count = 0;
    let start = null;
    try {
      for await (const doc of cursor) {
        const cost = lowerBound(doc.size || 0);
        if (count > 0 && (bytes + cost > memoryBudget || count >= maxTransmissions)) break;
        bytes += cost;
        count++;
        start = doc;
      }
    } finally {
      await cursor.close();
    }
    return start ? { all: false, time: start.time, ingestOrder: start.ingestOrder, count } : null;
  }

  /**
   * Start-up reload: rebuild `engine.store` (and so every view) as it was before the restart, by
   * replaying persisted observations oldest first, in their original order. Call it before live
   * ingest starts. Resolves with what was replayed.
   * @param {object} engine  from createEngine(); its store must be empty
   * @param {object} [loadOptions] { memoryBudget (bytes, default the store's), batchSize (10000), progressEvery (50000), log,
   *   verifyAdverts (false: adverts we stored passed their signature check when they arrived),
   *   windowed (false: one sorted query; true: read in time windows, see REPLAY_WINDOW_FRACTIONS) }
   */
  async function loadInto(engine, loadOptions = {}) {
    const target = engine.store;
    if (!store) store = target;
    const loadLog = loadOptions.log ? resolveLog(loadOptions.log) : log;
    const batchSize = loadOptions.batchSize || 10000;
    const progressEvery = loadOptions.progressEvery || 50000;
    const memoryBudget = loadOptions.memoryBudget || target.options.memoryBudgetBytes;
    const startedAt = Date.now();
    // ingestMs: time spent in the engine (decode, store, views); the rest of `ms` is reading MongoDB,
    // of which waitMs is waiting for a batch the server had not sent yet. replayCpuMs: this
    // process's CPU time while replaying batches (the engine, plus reading only for documents
    // of earlier versions), which a busy machine does not inflate the way it does wall time;
    // readCpuMs: this process's CPU time decoding the observation documents' BSON (reading).
    const summary = { transmissions: 0, observations: 0, skipped: 0, rejected: 0, rejectReasons: {}, badDocuments: 0, missingRaw: 0, rawLookups: 0, nodes: 0, observers: 0, lastIngestOrder: 0, ingestMs: 0, waitMs: 0, replayCpuMs: 0, readCpuMs: 0, ms: 0 };

    // The directory is small (one entry per node/observer). Entries join the store when the
    // replay reaches their firstSeen, as they first joined it live, so hop resolution matches.
    const nodeDocs = await collections.nodes.find({}).sort({ firstSeen: 1 }).toArray();
    const observerDocs = await collections.observers.find({}).sort({ firstSeen: 1 }).toArray();
    const observerDocsById = new Map(observerDocs.map((doc) => [doc.id || doc._id, doc]));
    let nextNode = 0;
    let nextObserver = 0;
    const restoreDirectoryUntil = (time) => {
      for (; nextNode < nodeDocs.length && !(nodeDocs[nextNode].firstSeen > time); nextNode++) {
        const doc = nodeDocs[nextNode];
        if (!target.restoreNode(doc)) summary.badDocuments++;
      }
      for (; nextObserver < observerDocs.length && !(observerDocs[nextObserver].firstSeen > time); nextObserver++) {
        const doc = observerDocs[nextObserver];
        if (!target.restoreObserver(doc)) summary.badDocuments++;
      }
    };

    const start = await findReplayStart(target.options, memoryBudget);
    if (start) {
      loadLog.info(`persistence: reloading up to ${start.count} transmissions${start.all ? '' : ` from ${new Date(start.time).toISOString()}`}`);
      const span = observedSpan(observerDocs);
      // Every stored advert passed its Ed25519 check before we wrote it, and the directory we
      // restore from the same database is trusted as well: verifying again would cost a
      // signature check per advert. Every other input check still runs.
      const verifyAdverts = target.decodeOptions.verifyAdverts;
      // 'trusted' marks replayed adverts as verified without the check, as they were when live.
      target.decodeOptions.verifyAdverts = loadOptions.verifyAdverts ?? (verifyAdverts ? 'trusted' : false);
      try {
        await replayFrom(start, target, { batchSize, progressEvery, summary, restoreDirectoryUntil, observerDocsById, span, windowed: loadOptions.windowed === true, log: loadLog, startedAt });
      } finally {
        target.decodeOptions.verifyAdverts = verifyAdverts;
      }
    }

    // New observations must sort after the replayed ones even if the wall clock stepped back.
    if (summary.lastIngestOrder >= nextIngestOrder) nextIngestOrder = summary.lastIngestOrder;
    // Entries the replay did not reach, then what only the persisted directory knows.
    restoreDirectoryUntil(Infinity);
    // Documents refused above (no key, wrong types) have no entry to merge into.
    for (const doc of nodeDocs) {
      const node = doc && target.nodes.get(doc.pubKey || doc._id);
      if (node) mergeNode(target, node, doc);
    }
    for (const doc of observerDocs) {
      const observer = doc && target.observers.get(doc.id || doc._id);
      if (observer) mergeObserver(observer, doc);
    }
    summary.nodes = nodeDocs.length;
    summary.observers = observerDocs.length;
    summary.ms = Date.now() - startedAt;
    loadLog.info(`persistence: reload done: ${summary.transmissions} transmissions, ${summary.observations} observations, ${summary.nodes} nodes, ${summary.observers} observers in ${(summary.ms / 1000).toFixed(1)} s (store holds ${target.size})`);
    return summary;
  }

  /**
   * Observations, not transmissions, drive the replay: a transmission is still heard after newer
   * ones arrive, and the store's time order must see every report where it was. Transmissions
   * (for their raw) are read alongside, in the same order their creating observations come in,
   * so no per-batch lookup is needed. Both read one batch (and one time window) ahead of the replay.
   */
  async function replayFrom(start, target, context) {
    const { batchSize, progressEvery, summary, restoreDirectoryUntil, observerDocsById, span, log: loadLog, startedAt } = context;
    const since = start.all ? {} : { $gte: start.time };
    const filterFor = (window) => (window || !start.all ? { time: { ...since, ...window } } : {});
    // The directory's first and last sightings span the stored reports (an estimate is enough).
    const bounds = context.windowed ? replayWindows(start.all ? span.firstSeen : start.time, span.lastSeen) : [];
    // No UTF-8 validation of every string read (hex, ids, names): faster to decode, and a bad
    // byte becomes U+FFFD, which the store's input checks then see like any other text.
    const readOptions = { enableUtf8Validation: false };
    // Observation documents come as BSON bytes (`raw: true`) and are read by
    // readObservationDocument, which takes the ten fields a replay needs and skips the rest: the
    // driver's generic decoder built a whole object per document and was most of the reading CPU.
    // No projection: _id and at cost little to skip here, and the in-memory test server spent
    // more building projected copies than it saved in bytes (Java CPU 0.58 s against 1.0 s per
    // 100k documents).
    const observations = new WindowedReader((window) => collections.observations
      .find(filterFor(window), { raw: true })
      .sort({ time: 1, ingestOrder: 1 })
      .batchSize(batchSize), bounds);
    // Transmission documents are read only for creating observations written without their raw
    // (by earlier versions), from the first such observation on.
    let transmissions = null;
    const transmissionsFrom = (from) => {
      const floor = { $gte: Math.max(from, start.all ? -Infinity : start.time) };
      return new WindowedReader((window) => collections.transmissions
        .find({ time: { ...floor, ...window } }, { ...readOptions, projection: { raw: 1, time: 1, ingestOrder: 1 } })
        .sort({ time: 1, ingestOrder: 1 })
        .batchSize(batchSize), context.windowed ? replayWindows(floor.$gte, span.lastSeen) : []);
    };
    const inWindow = (doc) => start.all || doc.time > start.time || doc.ingestOrder >= start.ingestOrder;
    const isLater = (a, b) => a.time > b.time || (a.time === b.time && a.ingestOrder > b.ingestOrder);

    /** The observation fields of each BSON document of a batch; a malformed one is counted and left out. */
    function readDocuments(chunk) {
      const docs = [];
      for (const bytes of chunk) {
        try {
          docs.push(readObservationDocument(bytes));
        } catch (err) {
          summary.badDocuments++;
        }
      }
      return docs;
    }

    /** `promise`, timing how long it keeps the replay waiting (into summary.waitMs). */
    async function waited(promise) {
      const waitStarted = process.hrtime.bigint();
      const value = await promise;
      summary.waitMs += Number(process.hrtime.bigint() - waitStarted) / 1e6;
      return value;
    }

    /** The raw of the transmission `doc` creates: next in the transmissions stream, else looked up. */
    async function rawCreatedBy(doc) {
      if (!transmissions) transmissions = transmissionsFrom(doc.time);
      for (let tx = await waited(transmissions.peek()); tx && !isLater(tx, doc); tx = await waited(transmissions.peek())) {
        transmissions.take();
        if (tx._id === doc.hash) return tx.raw; // a transmission document: raw is hex
        // A transmission whose creating observation was never written: nothing to replay it with.
      }
      // Its document is older than its creating observation (heard again after eviction): rare.
      summary.rawLookups++;
      const tx = await collections.transmissions.findOne({ _id: doc.hash }, { projection: { raw: 1 } });
      return tx ? tx.raw : null; // a transmission document: raw is hex
    }

    let nextProgress = progressEvery;
    try {
      for (let chunk = await waited(observations.nextBatch()); chunk; chunk = await waited(observations.nextBatch())) {
        // Decode the batch first, timed as reading (readCpuMs): the replay below is the engine alone.
        const readCpuBefore = process.cpuUsage();
        const docs = readDocuments(chunk);
        const readCpu = process.cpuUsage(readCpuBefore);
        summary.readCpuMs += (readCpu.user + readCpu.system) / 1000;
        // CPU time of this process per batch: on a busy machine wall time says little.
        const cpuBefore = process.cpuUsage();
        for (const doc of docs) {
          const creates = doc.first === true && inWindow(doc);
          // A later observation of a transmission that is not (or no longer) in the window.
          if (!creates && !target.byHash.has(doc.hash)) {
            summary.skipped++;
            continue;
          }
          const raw = doc.raw || (creates ? await rawCreatedBy(doc) : rawHex(target.byHash.get(doc.hash)));
          if (!raw) {
            summary.missingRaw++;
            continue;
          }
          // A time of the wrong type is refused by ingest (bad_time); it must not restore the whole directory first.
          if (typeof doc.time === 'number') restoreDirectoryUntil(doc.time);
          const observer = observerDocsById.get(doc.observerId);
          const ingestStarted = process.hrtime.bigint();
          const result = target.ingest({
            raw,
            observerId: doc.observerId,
            observerName: observer ? observer.name : undefined,
            region: observer ? observer.region : undefined,
            snr: doc.snr ?? undefined,
            rssi: doc.rssi ?? undefined,
            score: doc.score ?? undefined,
            direction: doc.direction || undefined,
            time: doc.time,
          });
          summary.ingestMs += Number(process.hrtime.bigint() - ingestStarted) / 1e6;
          if (result.error) {
            // A document outside today's input limits (SNR 1e308, a forged advert...): skipped
            // and counted by reason; the rest loads.
            summary.rejected++;
            summary.rejectReasons[result.error.reason] = (summary.rejectReasons[result.error.reason] || 0) + 1;
            continue;
          }
          summary.observations++;
          if (result.isNew) summary.transmissions++;
          if (doc.ingestOrder > summary.lastIngestOrder) summary.lastIngestOrder = doc.ingestOrder;
        }
        const cpu = process.cpuUsage(cpuBefore);
        summary.replayCpuMs += (cpu.user + cpu.system) / 1000;
        if (summary.transmissions >= nextProgress) {
          loadLog.info(`persistence: reloaded ${summary.transmissions} transmissions, ${summary.observations} observations in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
          nextProgress = (Math.floor(summary.transmissions / progressEvery) + 1) * progressEvery;
        }
      }
    } finally {
      await Promise.all([observations.close(), transmissions && transmissions.close()]);
    }
  }

  return {
    recordIngest,
    recordDropped,
    flush,
    close,
    stats,
    ensureIndexes,
    applyRetention,
    loadInto,
    /** Use this store's directory for node writes (loadInto() sets it when none was given). */
    attachStore(newStore) { store = newStore; },
  };
}

module.exports = { createPersistence, PERSISTENCE_DEFAULTS, COLLECTION_NAMES, isOutageError, replayWindows };
