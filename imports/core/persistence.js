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
 *
 * This file is the write-behind buffer and the object callers hold. Its parts, in
 * imports/core/persistence/: documents.js (the documents above, and the directory merged back
 * from them), indexes.js (indexes and retention), reload.js (the start-up reload) and
 * readers.js (reading ahead of the reload).
 */
const { createQueue, SampleWindow } = require('./queue');
const { rawHex } = require('./store');
const { resolveLog } = require('./log');
const {
  COLLECTION_NAMES, transmissionDocument, observationDocument, nodeUpdate, observerUpdate, nodeFromAdvert,
} = require('./persistence/documents');
const { replayWindows } = require('./persistence/readers');
const { createIndexes } = require('./persistence/indexes');
const { createReload } = require('./persistence/reload');

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

  const { ensureIndexes, applyRetention } = createIndexes({ collections, retentionDays: settings.retentionDays, log });
  const reload = createReload({ collections, log });

  /**
   * Refill `engine`'s store from the database (reload.js); resolves with its summary. Live
   * ingest starts after it.
   */
  async function loadInto(engine, loadOptions = {}) {
    if (!store) store = engine.store;
    const summary = await reload.loadInto(engine, loadOptions);
    // New observations must sort after the replayed ones even if the wall clock stepped back.
    if (summary.lastIngestOrder >= nextIngestOrder) nextIngestOrder = summary.lastIngestOrder;
    return summary;
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