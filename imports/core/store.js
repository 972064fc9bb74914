'use strict';
/**
 * The in-memory packet store: transmissions deduplicated by content hash, each with the
 * observations of every observer that heard it, plus the indexes and analytics views that
 * are kept up to date as packets arrive and leave.
 *
 * Shape of the data (see README "Packet store"; records in stored-records.js):
 *   transmission: the decoded packet's fields (imports/core/decode.js; header fields read from
 *     the raw bytes by getters) plus seq, time (first heard, ms), raw (latin1), observations[]
 *   observation: { observer, time, snr, rssi, score, direction, path }; the first one is the
 *     transmission itself (`tx.observations[0] === tx`)
 *     `observer` is the shared observer record; `path` is the hop list that observer heard,
 *     shared through the path interner with every packet that carries the same hops.
 *
 * Eviction is strictly oldest-first (by first-heard order), and every index is a SeqIndex of
 * seqs resolved through the FIFO (deque.js), so a transmission leaving the store is at the front
 * of every index that holds it: removal is O(1) per index and mirrors insertion exactly. Views
 * get `apply` for each observation and `evict` once per transmission, with all its observations.
 *
 * Nodes and observers form a directory that outlives packets (a silent node must still be
 * listed as silent): identity and first/last seen are kept there (directory.js, with its own
 * caps), while every count that the views show is derived from packets still in the store.
 *
 * Memory: one account (memory-account.js) for the store, its indexes and every view's state;
 * the budget evicts the oldest transmissions while the account's total is over it.
 * Input: every report is checked against input-limits.js before anything is stored, and an
 * advert changes a node only when its Ed25519 signature verifies and its timestamp is newer
 * than the node's last one and not beyond the clock window.
 */
const { decodePacket, createDecodeScratch } = require('./decode');
const { backend: ed25519Backend } = require('./ed25519');
const { SeqDeque, SeqIndex } = require('./deque');
const { HashIndex } = require('./hash-index');
const { checkReport, INPUT_ERRORS } = require('./input-limits');
const { MemoryAccount, BYTES, keyBytes } = require('./memory-account');
const { Directory, DIRECTORY_DEFAULTS, NODE_BYTES } = require('./directory');
const { StoredTransmission, StoredObservation, packSignal } = require('./stored-records');
const { PathInterner, samePath } = require('./path-interner');
const { FORWARDING_ROLE } = require('./hop-resolver');

const DEFAULTS = {
  // Memory budget for the store in bytes; the oldest transmissions are evicted above it.
  memoryBudgetBytes: 512 * 1024 * 1024,
  // Optional cap on stored transmissions (0 = no cap).
  maxTransmissions: 0,
  // Estimated bytes per stored item (V8 heap plus the indexes' array buffers), calibrated on
  // both simulated meshes against the heap after GC (see stored-records.js for the layout):
  //   transmission: its record, raw-string header, FIFO and hash-table slots (raw bytes added)
  //   observation:  a later observation's record and array slot (the first is charged too,
  //                 though it lives in the transmission: a reload's lower bound counts it)
  //   indexEntry:   4 bytes of seq offset and the buffers' growth room
  //   hop:          one hop of a path shared by the path interner
  //   advert / message / trace: the decoded content object (name or text length added)
  estimatedBytes: { transmission: 100, observation: 60, indexEntry: 6, hop: 8, advert: 340, message: 150, trace: 200 },
  // Upper bound on observations kept per transmission; a flood heard by hundreds of observers
  // must not make one transmission unbounded. Further observations are counted, not stored.
  maxObservationsPerTransmission: 64,
  // Check every advert's Ed25519 signature; a forged one is refused (bad_signature).
  verifyAdverts: true,
  // An advert whose timestamp is further than this ahead of its reception does not change the
  // node (a 0xFFFFFFFF timestamp would otherwise pin its name and position for ever).
  advertClockWindowMs: 24 * 3600 * 1000,
  // Directory caps (see directory.js): nodes, idle observers, age-out.
  directory: {},
  // View updates (an observation applied, a transmission evicted) held and run together: each
  // view takes the whole batch in turn, its state hot in the CPU's caches, instead of every view
  // taking each report (flushViews). Every read of a view runs what is held first, so answers
  // never lag. 0: each update runs at once (region-scoped stores: a view that throws there must
  // throw inside the feed that caused it).
  viewBatch: 2048,
};

// A held eviction, in the batch's observation slot.
const EVICTED = Object.freeze({ evicted: true });
// Over its budget, a batching store evicts down to this fraction below it, so that the next
// evictions wait for about that much new data instead of coming with every report.
const BUDGET_SLACK = 1 / 64;
// What the views may add for one held update, per unit of (1 + its hops): an observer, key or
// hop never seen before costs every view an entry (subpaths up to 8 runs per hop). Over 20k
// reports of each of bench:core's hostile streams (viewBatch 0, scratch), the views added 0.9 to
// 2.6 KB per unit on average, a single report up to 10 KB. Held updates run before they could add
// about HELD_BUDGET_SHARE of the budget at HELD_UNIT_BYTES a unit, so a batch of hostile reports
// cannot take memory far past the budget (2,048 held long paths added ~260 MB at a 16 MB budget).
const HELD_UNIT_BYTES = 4096;
const HELD_BUDGET_SHARE = 1 / 16;

/** Typed reasons for reports the store refuses, beyond input-limits.js and decode.js. */
const STORE_ERRORS = {
  ...INPUT_ERRORS,
  bad_signature: 'advert signature does not verify against its public key',
};

const PUBLIC_KEY_RE = /^[0-9a-f]{64}$/;
// A SeqDeque and its array, for an index key's first entry.
// A SeqIndex, its Int32Array and its Map entry, for an index key's first entry.
const DEQUE_BYTES = BYTES.object + 5 * BYTES.field + BYTES.typedArray + BYTES.mapEntry;
// The header of the observations array a transmission keeps from its third observation on.
const OBSERVATION_ARRAY_BYTES = BYTES.object + 3 * BYTES.field;

/**
 * A decrypted message with all its fields in the object (decode.js adds `channel` last, which
 * costs a separate 40-byte property array per message).
 */
function compactMessage(message) {
  return { timestamp: message.timestamp, textType: message.textType, sender: message.sender, text: message.text, channel: message.channel };
}

/** A report's direction; the common value as a literal, so that it packs (stored-records.js). */
function directionOf(report) {
  return !report.direction || report.direction === 'rx' ? 'rx' : report.direction;
}

/** A stored transmission's raw packet as lower-case hex. */
function rawHex(tx) {
  return Buffer.from(tx.raw, 'latin1').toString('hex');
}

/**
 * The node directory's cap: `directory.maxNodes` (20,000 by default), and never more nodes than
 * a quarter of the packet budget holds at NODE_BYTES each, so that a small box under a flood of
 * random-key adverts stays within about 1.25 x its budget.
 */
function nodeCapFor(options) {
  const configured = (options.directory && options.directory.maxNodes) || DIRECTORY_DEFAULTS.maxNodes;
  return Math.max(100, Math.min(configured, Math.floor((options.memoryBudgetBytes * 0.25) / NODE_BYTES)));
}

class PacketStore {
  constructor(options = {}) {
    this.options = { ...DEFAULTS, ...options, estimatedBytes: { ...DEFAULTS.estimatedBytes, ...(options.estimatedBytes || {}) } };
    this.keyring = options.keyring || null;
    this.now = options.now || Date.now;

    this.seq = 0;
    this.lastTime = 0;
    this.memory = new MemoryAccount();
    this.packetsPart = this.memory.part('packets');
    this.indexPart = this.memory.part('indexes');
    // Hop lists shared by every packet with the same route (bounded; charged to packets).
    this.paths = new PathInterner({ part: this.packetsPart, hopBytes: this.options.estimatedBytes.hop });
    this.observationCount = 0;
    this.counters = { ingested: 0, duplicates: 0, rejected: 0, evicted: 0, observationsDropped: 0, rejectReasons: {}, advertsFromFuture: 0, advertsNotNewer: 0, viewBatches: 0, viewErrors: 0 };
    // The last update a view threw on (flushViews): { view, reason, hash, at }.
    this.lastViewError = null;

    this.fifo = new SeqDeque(); // every transmission, oldest first
    this.byHash = new HashIndex(this.fifo); // content hash -> transmission
    this.byObserver = new Map(); // observer id -> SeqDeque
    this.byNode = new Map(); // advert public key -> SeqDeque of that node's adverts
    this.byPrefix = new Map(); // hop / src / dest hash prefix (hex) -> SeqDeque
    this.byChannel = new Map(); // channel hash -> SeqDeque
    this.byType = new Map(); // payload type -> SeqDeque

    this.directory = new Directory(this.memory, { ...this.options.directory, maxNodes: nodeCapFor(this.options) });
    this.nodes = this.directory.nodes; // public key -> node directory entry
    this.stubs = this.directory.stubs; // hop prefix never named by an advert -> stub entry
    this.observers = this.directory.observers; // observer id -> observer directory entry

    this.views = [];
    // Held view updates, two slots each: (tx, observation) or (tx, EVICTED). viewOpIndex: the
    // update a view is running (its position in the batch; 0 outside one), which lets views that
    // share work (node-tracker.js) find the result for it.
    this.pendingViews = [];
    this.viewOpIndex = 0;
    this.flushingViews = false;
    // Units (1 + hops) of the held updates, and the most a batch may hold (HELD_UNIT_BYTES).
    this.heldUnits = 0;
    this.maxHeldUnits = Math.max(64, Math.floor((this.options.memoryBudgetBytes * HELD_BUDGET_SHARE) / HELD_UNIT_BYTES));
    // Called after each batch has run (views that keep per-batch results release them).
    this.batchListeners = [];
    // Every report decodes into one reused record (the store copies what it keeps).
    this.decodeOptions = { keyring: this.keyring, isKnown: (hash) => this.byHash.has(hash), verifyAdverts: this.options.verifyAdverts, scratch: createDecodeScratch() };
  }

  /** Estimated heap bytes of the store, its indexes and every view (the budgeted total). */
  get bytes() {
    return this.memory.total - this.directory.directoryPart.bytes;
  }

  /** Register an analytics view instance (see imports/core/analytics/README in view.js). */
  addView(view) {
    this.flushViews();
    this.views.push(view);
    // A view added late catches up on what is already stored.
    this.fifo.forEachOldest((tx) => {
      for (const observation of tx.observations) view.apply(tx, observation, this);
    });
    return view;
  }

  view(name) {
    return this.views.find((v) => v.name === name);
  }

  get size() {
    return this.fifo.length;
  }

  /**
   * Ingest one observer report. `report`: { raw, observerId, observerName?, region?, snr?, rssi?,
   * score?, direction?, time? }. Returns { tx, observation, isNew } or { error: { reason, message } }.
   */
  ingest(report) {
    const error = this.validateReport(report);
    if (error) return this.reject(error);
    // Every report is decoded: the content hash that dedups it needs the payload offset, and
    // this observer's path (which differs per observer) is part of what we keep. Hex of either
    // case decodes alike (observers publish upper case), so the report is not lower-cased first.
    const decoded = decodePacket(report.raw, this.decodeOptions);
    if (decoded.error) return this.reject(decoded.error);
    const advert = decoded.packet.advert;
    if (advert !== null && advert.signatureValid === false) return this.reject({ reason: 'bad_signature', message: STORE_ERRORS.bad_signature });
    // A new transmission keeps its bytes as a one-byte string, read from the decoded bytes.
    const latin1 = decoded.repeat ? null : decoded.bytes.toString('latin1', 0, decoded.length);
    return this.insertDecoded(decoded.packet, report.raw, report, latin1);
  }

  /** null, or { reason, message } for a report outside input-limits.js. */
  validateReport(report) {
    const known = report && typeof report.observerId === 'string' ? this.observers.get(report.observerId) || null : null;
    return checkReport(report, this.now(), known);
  }

  reject(error) {
    this.counters.rejected++;
    this.counters.rejectReasons[error.reason] = (this.counters.rejectReasons[error.reason] || 0) + 1;
    return { error };
  }

  /** `latin1`: the raw packet as a one-byte string when the caller has it (else read from `raw`: hex, or a Buffer). */
  insertDecoded(packet, raw, report, latin1 = null) {
    this.counters.ingested++;
    // Store time is monotone so that first-heard order equals seq order (time-range queries
    // binary-search the FIFO); a clock step backwards only repeats the last time.
    const requested = Number.isFinite(report.time) ? report.time : this.now();
    const time = requested > this.lastTime ? requested : this.lastTime;
    this.lastTime = time;

    const observer = this.directory.observerFor(report, time);
    let tx = this.byHash.get(packet.hash);
    const isNew = !tx;
    if (isNew) {
      // The raw packet is kept as a one-byte (latin1) string: half the memory of hex, and the
      // record's getters read the header fields from it. rawHex(tx) gives hex back.
      const content = packet.advert || (packet.message && compactMessage(packet.message)) || packet.trace || null;
      const signal = packSignal(report.snr ?? null, report.rssi ?? null, report.score ?? null, directionOf(report));
      tx = new StoredTransmission(packet.hash, ++this.seq, time, latin1 !== null ? latin1 : (Buffer.isBuffer(raw) ? raw : Buffer.from(raw, 'hex')).toString('latin1'), this.paths.intern(packet.path, packet.pathHash), content, observer, signal);
      this.fifo.insert(tx);
      this.byHash.set(packet.hash, tx);
      this.indexInto(this.byType, tx.payloadType, tx);
      if (tx.channelHash) this.indexInto(this.byChannel, tx.channelHash, tx);
      if (tx.advert) {
        this.indexInto(this.byNode, tx.advert.pubKey, tx);
        this.learnNode(tx, time);
      }
      if (tx.srcHash) this.indexInto(this.byPrefix, tx.srcHash, tx);
      if (tx.destHash && tx.destHash !== tx.srcHash) this.indexInto(this.byPrefix, tx.destHash, tx);
      this.packetsPart.add(this.transmissionBytes(tx));
    } else {
      this.counters.duplicates++;
      if (tx.observationCount >= this.options.maxObservationsPerTransmission) {
        this.counters.observationsDropped++;
        return { tx, observation: null, isNew: false };
      }
    }

    let observation;
    if (isNew) {
      // The transmission is its own first observation (stored-records.js).
      observation = tx;
    } else {
      // Equal hops have equal hashes: decode's pathHash serves tx.path too.
      const path = samePath(packet.path, tx.path) ? this.paths.retain(tx.path, packet.pathHash) : this.paths.intern(packet.path, packet.pathHash);
      const signal = packSignal(report.snr ?? null, report.rssi ?? null, report.score ?? null, directionOf(report));
      observation = new StoredObservation(observer, time, signal, path);
      tx.addObservation(observation);
    }
    const path = observation.path;
    this.observationCount++;
    this.directory.observerStored(observer);
    this.indexInto(this.byObserver, observer.id, tx);
    let previousNode = null;
    for (let i = 0; i < path.length; i++) {
      this.indexInto(this.byPrefix, path[i], tx);
      const node = this.touchHop(path[i], time);
      if (node !== null && previousNode !== null && node !== previousNode) this.directory.learnAdjacency(previousNode, node);
      previousNode = node;
    }
    const count = tx.observationCount;
    this.packetsPart.add(this.observationBytes(count) - this.observationBytes(count - 1));

    if (this.options.viewBatch > 0) {
      const pending = this.pendingViews;
      pending.push(tx, observation);
      this.heldUnits += 1 + path.length;
      if (pending.length >= 2 * this.options.viewBatch || this.heldUnits > this.maxHeldUnits || this.overBudget()) this.flushViews();
    } else {
      for (const view of this.views) view.apply(tx, observation, this);
      this.enforceBudget();
    }
    this.directory.maybeSweep(time);
    return { tx, observation, isNew };
  }

  indexInto(map, key, tx) {
    let deque = map.get(key);
    if (!deque) {
      deque = new SeqIndex(this.fifo);
      map.set(key, deque);
      this.indexPart.add(DEQUE_BYTES + keyBytes(key));
    }
    if (deque.insert(tx)) this.indexPart.add(this.options.estimatedBytes.indexEntry);
  }

  /**
   * Estimated bytes of a stored transmission without its observations: the calibrated base, its
   * raw bytes and its content (advert key, signature and name; message text; trace hops).
   */
  transmissionBytes(tx) {
    const sizes = this.options.estimatedBytes;
    let bytes = sizes.transmission + tx.raw.length;
    const content = tx.content;
    if (content !== null) {
      const type = tx.payloadType;
      if (type === 4) bytes += sizes.advert + (content.name ? content.name.length : 0);
      else if (type === 5) bytes += sizes.message + content.text.length + (content.sender ? content.sender.length : 0);
      else if (type === 9) bytes += sizes.trace + content.hashes.length * 4 * sizes.hop;
    }
    return bytes;
  }

  /** Estimated bytes of a transmission's `count` observations (an array from three on). */
  observationBytes(count) {
    return count * this.options.estimatedBytes.observation + (count >= 3 ? OBSERVATION_ARRAY_BYTES : 0);
  }

  /** Returns true when the key's deque emptied and went. */
  removeFrom(map, key, tx) {
    const deque = map.get(key);
    if (deque && deque.removeOldest(tx)) {
      this.indexPart.add(-this.options.estimatedBytes.indexEntry);
      if (deque.length === 0) {
        map.delete(key);
        this.indexPart.add(-(DEQUE_BYTES + keyBytes(key)));
        return true;
      }
    }
    return false;
  }

  /** A prefix no stored packet carries any more: its index entry went, and so does its stub. */
  removePrefix(prefix, tx) {
    if (this.removeFrom(this.byPrefix, prefix, tx)) this.directory.dropStub(prefix);
  }

  overBudget() {
    const { memoryBudgetBytes, maxTransmissions } = this.options;
    return this.fifo.length > 1 && (this.bytes > memoryBudgetBytes || (maxTransmissions > 0 && this.fifo.length > maxTransmissions));
  }

  /** Evict oldest first while over the budget (or the transmission cap), the views at once (viewBatch 0). */
  enforceBudget() {
    while (this.overBudget()) this.dropOldest(false);
  }

  /**
   * Run every held view update: each view in turn over the whole batch, in the order the updates
   * came (an observation before the eviction of its transmission), then evict while over the
   * budget, whose refunds from the views come with the next round. A view that throws on an
   * update skips that update only: the other views and its later updates still run, and the
   * error is counted (viewErrors) with its reason kept (lastViewError).
   */
  flushViews() {
    if (this.flushingViews) return;
    this.flushingViews = true;
    try {
      for (;;) {
        if (this.pendingViews.length > 0) this.runHeldUpdates();
        if (!this.overBudget()) break;
        this.evictTowardsBudget();
      }
    } finally {
      this.flushingViews = false;
      this.viewOpIndex = 0;
    }
  }

  runHeldUpdates() {
    const pending = this.pendingViews;
    const views = this.views;
    this.counters.viewBatches++;
    for (let v = 0; v < views.length; v++) {
      const view = views[v];
      let i = 0;
      while (i < pending.length) {
        try {
          for (; i < pending.length; i += 2) {
            this.viewOpIndex = i >> 1;
            const observation = pending[i + 1];
            if (observation === EVICTED) view.evict(pending[i], this);
            else view.apply(pending[i], observation, this);
          }
        } catch (err) {
          this.viewFailed(view, pending[i], err);
          i += 2;
        }
      }
    }
    pending.length = 0;
    this.heldUnits = 0;
    this.viewOpIndex = 0;
    for (const listener of this.batchListeners) listener();
  }

  /** Call `listener` after each batch of held updates has run (flushViews). */
  onViewBatchDone(listener) {
    this.batchListeners.push(listener);
  }

  viewFailed(view, tx, err) {
    this.counters.viewErrors++;
    const reason = err && err.message ? String(err.message).slice(0, 300) : String(err);
    this.lastViewError = { view: view.name || null, reason, hash: tx && tx.hash ? tx.hash : null, at: this.now() };
  }

  /**
   * Evict about what takes the store BUDGET_SLACK below its budget, at the mean
   * estimated bytes of a stored transmission: the views' share of each is refunded only when
   * they run the evictions, so the estimate cannot be watched fall one eviction at a time.
   */
  evictTowardsBudget() {
    const { memoryBudgetBytes, maxTransmissions } = this.options;
    const length = this.fifo.length;
    let count = 1;
    if (this.bytes > memoryBudgetBytes) {
      const excess = this.bytes - memoryBudgetBytes * (1 - BUDGET_SLACK);
      count = Math.ceil(excess / (this.bytes / length));
    }
    // The transmission cap is exact: a store at its cap flushes with every report.
    if (maxTransmissions > 0 && length > maxTransmissions) count = Math.max(count, length - maxTransmissions);
    count = Math.min(Math.max(count, 1), length - 1);
    for (let i = 0; i < count; i++) this.dropOldest(true);
  }

  /** Remove the oldest transmission from the FIFO, every index and every view. */
  evictOldest() {
    this.flushViews();
    return this.dropOldest(false);
  }

  /** evictOldest(); with `hold`, the views' evictions are held for the next flushViews(). */
  dropOldest(hold) {
    const tx = this.fifo.first();
    if (!tx) return null;
    if (hold) this.pendingViews.push(tx, EVICTED);
    else for (const view of this.views) view.evict(tx, this);
    // Indexes find transmissions through the FIFO: remove from them while it still holds this one.
    this.byHash.deleteTransmission(tx);
    this.removeFrom(this.byType, tx.payloadType, tx);
    if (tx.channelHash) this.removeFrom(this.byChannel, tx.channelHash, tx);
    if (tx.advert) this.removeFrom(this.byNode, tx.advert.pubKey, tx);
    if (tx.srcHash) this.removePrefix(tx.srcHash, tx);
    if (tx.destHash && tx.destHash !== tx.srcHash) this.removePrefix(tx.destHash, tx);
    for (const observation of tx.observations) {
      this.removeFrom(this.byObserver, observation.observer.id, tx);
      for (const hop of observation.path) this.removePrefix(hop, tx);
      this.paths.release(observation.path);
      this.directory.observerReleased(observation.observer);
    }
    this.observationCount -= tx.observationCount;
    this.packetsPart.add(-this.observationBytes(tx.observationCount));
    this.packetsPart.add(-this.transmissionBytes(tx));
    this.fifo.removeOldest(tx);
    this.counters.evicted++;
    return tx;
  }

  /**
   * Learn or refresh a node from a verified advert. Identity (name, role, position) follows the
   * newest advert by the node's own timestamp, and only one inside the clock window: a replayed
   * older advert, or one dated far ahead of its reception, changes nothing but last heard.
   */
  learnNode(tx, time) {
    const advert = tx.advert;
    const inWindow = advert.timestamp * 1000 <= time + this.options.advertClockWindowMs;
    if (!inWindow) this.counters.advertsFromFuture++;
    let node = this.nodes.get(advert.pubKey);
    if (!node) {
      node = { pubKey: advert.pubKey, name: advert.name, role: advert.role, lat: advert.lat, lon: advert.lon, firstSeen: time, lastSeen: time, lastAdvert: inWindow ? advert.timestamp : 0, adverts: 0 };
      this.directory.addNode(node);
    } else if (inWindow && advert.timestamp > node.lastAdvert) {
      node.lastAdvert = advert.timestamp;
      if (advert.name) this.directory.renameNode(node, advert.name);
      this.directory.placeNode(node, advert.role, advert.lat !== null ? advert.lat : node.lat, advert.lat !== null ? advert.lon : node.lon);
    } else if (inWindow) {
      this.counters.advertsNotNewer++;
    }
    node.adverts++;
    if (time > node.lastSeen) node.lastSeen = time;
  }

  /**
   * A hop proves its repeater is on the air: refresh the node when the prefix names exactly one
   * known node (and return it), otherwise keep a stub for the prefix until an advert names it.
   */
  touchHop(prefix, time) {
    // One lookup for both questions (a hop is 1 to 3 bytes: resolvePrefix reads its bucket).
    const nodes = this.directory.resolvePrefix(prefix);
    if (nodes.length === 1) {
      const unique = nodes[0];
      if (time > unique.lastSeen) unique.lastSeen = time;
      return unique;
    }
    if (nodes.length === 0) this.directory.touchStub(prefix, time);
    return null;
  }

  /** The one node a prefix names, or null when none or several match. O(1). */
  uniqueNodeFor(prefix) {
    return this.directory.uniqueNodeFor(prefix);
  }

  /** Nodes whose public key starts with a hop hash prefix (empty: unknown; several: ambiguous). Do not mutate. */
  resolvePrefix(prefix) {
    return this.directory.resolvePrefix(prefix);
  }

  /** Restore a node entry read back from MongoDB; a document without a valid key is refused (null). */
  restoreNode(doc) {
    const pubKey = doc && (doc.pubKey || doc._id);
    if (typeof pubKey !== 'string' || !PUBLIC_KEY_RE.test(pubKey)) return null;
    if (this.nodes.has(pubKey)) return this.nodes.get(pubKey);
    const text = (value, max) => (typeof value === 'string' && value.length <= max ? value : null);
    const coordinate = (value, limit) => (typeof value === 'number' && Math.abs(value) <= limit ? value : null);
    const firstSeen = Number.isFinite(doc.firstSeen) ? doc.firstSeen : this.now();
    const lat = coordinate(doc.lat, 90);
    const lon = coordinate(doc.lon, 180);
    return this.directory.addNode({
      pubKey,
      name: text(doc.name, 64),
      role: text(doc.role, 16) || 'unknown',
      lat: lat !== null && lon !== null ? lat : null,
      lon: lat !== null && lon !== null ? lon : null,
      firstSeen,
      // Replay raises lastSeen and counts adverts again from zero; the persisted values are merged in afterwards.
      lastSeen: firstSeen,
      lastAdvert: 0,
      adverts: 0,
    });
  }

  /** Restore an observer entry read back from MongoDB; an invalid one is refused (null). */
  restoreObserver(doc) {
    const id = doc && (doc.id || doc._id);
    if (checkReport({ raw: '', observerId: id, observerName: doc.name, region: doc.region }, this.now()) !== null) return null;
    if (this.observers.has(id)) return this.observers.get(id);
    const firstSeen = Number.isFinite(doc.firstSeen) ? doc.firstSeen : this.now();
    return this.directory.restoreObserver({ id, name: doc.name || id, region: doc.region || null, firstSeen, lastSeen: firstSeen, reports: 0 });
  }

  /**
   * The indexes that hold a node's transmissions (`node`: { pubKey, role }; the keys it sums,
   * NodeTracker.nodeKeys): its adverts, its first-byte index (src / dest hashes and 1-byte hops
   * share it) and, for a repeater (only repeaters relay), its 2- and 3-byte hop indexes.
   * `addressOnly[d]`: index d also holds hops that are not this node's, so only its transmissions
   * from or to `address` (the node's first byte) are the node's.
   */
  nodeIndexes(node) {
    const deques = [];
    const addressOnly = [];
    const relays = node.role === FORWARDING_ROLE;
    const adverts = this.byNode.get(node.pubKey);
    if (adverts) {
      deques.push(adverts);
      addressOnly.push(false);
    }
    for (const length of relays ? [2, 4, 6] : [2]) { // src and dest hashes are 1 byte
      const deque = this.byPrefix.get(node.pubKey.slice(0, length));
      if (deque) {
        deques.push(deque);
        addressOnly.push(!relays);
      }
    }
    return { deques, addressOnly, address: node.pubKey.slice(0, 2) };
  }

  /** Transmissions involving a node (nodeIndexes; an unknown key counts as no repeater), oldest first. */
  transmissionsOfNode(pubKey) {
    const { deques, addressOnly, address } = this.nodeIndexes(this.nodes.get(pubKey) || { pubKey, role: null });
    const seen = new Set();
    const out = [];
    deques.forEach((deque, d) => deque.forEachOldest((tx) => {
      if (addressOnly[d] && tx.srcHash !== address && tx.destHash !== address) return;
      if (!seen.has(tx)) { seen.add(tx); out.push(tx); }
    }));
    out.sort((a, b) => a.seq - b.seq);
    return out;
  }

  transmissions() {
    return this.fifo.toArray();
  }

  stats() {
    const memory = this.memory.summary();
    return {
      transmissions: this.fifo.length,
      observations: this.observationCount,
      nodes: this.nodes.size,
      observers: this.observers.size,
      estimatedBytes: this.bytes,
      memoryBudgetBytes: this.options.memoryBudgetBytes,
      viewBatch: this.options.viewBatch,
      lastViewError: this.lastViewError,
      memoryParts: memory.parts,
      directory: this.directory.stats(),
      // Which Ed25519 implementation checks advert signatures (imports/core/ed25519.js), or off.
      advertVerification: this.options.verifyAdverts ? ed25519Backend : 'off',
      ...this.counters,
      rejectReasons: { ...this.counters.rejectReasons },
    };
  }
}

module.exports = { PacketStore, rawHex, STORE_DEFAULTS: DEFAULTS, STORE_ERRORS };
