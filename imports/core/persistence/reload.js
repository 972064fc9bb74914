'use strict';
/**
 * The start-up reload: the store refilled from MongoDB with what it held before the restart,
 * by replaying the stored observations through the engine in their first ingest order (so
 * every view and the directory end up as they were). The summary separates the engine's time
 * from reading.
 */
const { rawHex } = require('../store');
const { resolveLog } = require('../log');
const { readObservationDocument } = require('../bson-observation');
const { observedSpan, mergeNode, mergeObserver } = require('./documents');
const { WindowedReader, replayWindows } = require('./readers');

/** `collections`: the driver collections (persistence.js); `log`: the default log of loadInto. */
function createReload({ collections, log }) {
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

  return { loadInto };
}

module.exports = { createReload };
