'use strict';
/**
 * The in-memory packet store: transmissions deduplicated by content hash, each with the
 * observations of every observer that heard it, plus the indexes and analytics views that
 * are kept up to date as packets arrive and leave.
 *
 * Shape of the data (see README "Packet store"):
 *   transmission: the decoded packet (imports/core/decode.js) plus
 *     seq, time (first heard, ms), raw (hex), observations[]
 *   observation: { observer, time, snr, rssi, score, direction, path }
 *     `observer` is the shared observer record; `path` is the hop list that observer heard
 *     (shared with the transmission's own path when equal, to save memory).
 *
 * Eviction is strictly oldest-first (by first-heard order), and every index is a SeqDeque,
 * so a transmission leaving the store is at the front of every index that holds it: removal
 * is O(1) per index and mirrors insertion exactly. Views get `apply` for each observation
 * and `evict` once per transmission, with all its observations.
 *
 * Nodes and observers form a directory that outlives packets (a silent node must still be
 * listed as silent): identity and first/last seen are kept there, while every count that the
 * views show is derived from packets still in the store.
 */
const { decodePacket } = require('./decode');
const { SeqDeque } = require('./deque');

const DEFAULTS = {
  // Memory budget for the store in bytes; the oldest transmissions are evicted above it.
  memoryBudgetBytes: 512 * 1024 * 1024,
  // Optional cap on stored transmissions (0 = no cap).
  maxTransmissions: 0,
  // Estimated heap bytes per stored item, views included; calibrated against the heap measured
  // by `npm run bench:core` (core.json: bytes_per_transmission vs store_estimated_bytes).
  estimatedBytes: { transmission: 470, observation: 150, indexEntry: 16, hop: 24 },
  // Upper bound on observations kept per transmission; a flood heard by hundreds of observers
  // must not make one transmission unbounded. Further observations are counted, not stored.
  maxObservationsPerTransmission: 64,
};

const MAX_OBSERVER_ID_LENGTH = 128;
const NUMBER_FIELDS = ['snr', 'rssi', 'score'];

/** Typed reasons for observations the store refuses (decode errors come from decode.js). */
const STORE_ERRORS = {
  bad_observer: 'observer id missing, not a string, or longer than 128 characters',
  bad_number: 'SNR, RSSI or score is not a finite number',
  bad_time: 'time is not a finite number of milliseconds',
};

const EMPTY_OBSERVATIONS = Object.freeze([]);

/** A stored transmission's raw packet as lower-case hex. */
function rawHex(tx) {
  return Buffer.from(tx.raw, 'latin1').toString('hex');
}

function samePath(a, b) {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

class PacketStore {
  constructor(options = {}) {
    this.options = { ...DEFAULTS, ...options, estimatedBytes: { ...DEFAULTS.estimatedBytes, ...(options.estimatedBytes || {}) } };
    this.keyring = options.keyring || null;
    this.now = options.now || Date.now;

    this.seq = 0;
    this.lastTime = 0;
    this.bytes = 0;
    this.observationCount = 0;
    this.counters = { ingested: 0, duplicates: 0, rejected: 0, evicted: 0, observationsDropped: 0, rejectReasons: {} };

    this.fifo = new SeqDeque(); // every transmission, oldest first
    this.byHash = new Map();
    this.byObserver = new Map(); // observer id -> SeqDeque
    this.byNode = new Map(); // advert public key -> SeqDeque of that node's adverts
    this.byPrefix = new Map(); // hop / src / dest hash prefix (hex) -> SeqDeque
    this.byChannel = new Map(); // channel hash -> SeqDeque
    this.byType = new Map(); // payload type -> SeqDeque

    this.nodes = new Map(); // public key -> node directory entry
    this.nodesByFirstByte = new Map(); // first pubkey byte (hex) -> [node], for prefix resolution
    this.stubs = new Map(); // hop prefix never named by an advert -> stub entry
    this.observers = new Map(); // observer id -> observer directory entry

    this.views = [];
    this.decodeOptions = { keyring: this.keyring, isKnown: (hash) => this.byHash.has(hash) };
  }

  /** Register an analytics view instance (see imports/core/analytics/README in view.js). */
  addView(view) {
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
    const rawLower = typeof report.raw === 'string' ? report.raw.toLowerCase() : report.raw;
    // Every report is decoded: the content hash that dedups it needs the payload offset, and
    // this observer's path (which differs per observer) is part of what we keep.
    const decoded = decodePacket(rawLower, this.decodeOptions);
    if (decoded.error) return this.reject(decoded.error);
    return this.insertDecoded(decoded.packet, rawLower, report);
  }

  validateReport(report) {
    if (!report || typeof report.observerId !== 'string' || report.observerId.length === 0 || report.observerId.length > MAX_OBSERVER_ID_LENGTH) {
      return { reason: 'bad_observer', message: STORE_ERRORS.bad_observer };
    }
    for (let i = 0; i < NUMBER_FIELDS.length; i++) {
      const value = report[NUMBER_FIELDS[i]];
      if (value !== undefined && value !== null && !Number.isFinite(value)) return { reason: 'bad_number', message: `${STORE_ERRORS.bad_number}: ${NUMBER_FIELDS[i]}` };
    }
    if (report.time !== undefined && report.time !== null && !Number.isFinite(report.time)) return { reason: 'bad_time', message: STORE_ERRORS.bad_time };
    return null;
  }

  reject(error) {
    this.counters.rejected++;
    this.counters.rejectReasons[error.reason] = (this.counters.rejectReasons[error.reason] || 0) + 1;
    return { error };
  }

  insertDecoded(packet, raw, report) {
    this.counters.ingested++;
    // Store time is monotone so that first-heard order equals seq order (time-range queries
    // binary-search the FIFO); a clock step backwards only repeats the last time.
    const requested = Number.isFinite(report.time) ? report.time : this.now();
    const time = requested > this.lastTime ? requested : this.lastTime;
    this.lastTime = time;

    const observer = this.touchObserver(report, time);
    let tx = this.byHash.get(packet.hash);
    const isNew = !tx;
    if (isNew) {
      tx = packet;
      tx.seq = ++this.seq;
      tx.time = time;
      // Kept as a one-byte (latin1) string: half the memory of hex. rawHex(tx) gives hex back.
      tx.raw = Buffer.from(raw, 'hex').toString('latin1');
      tx.observations = EMPTY_OBSERVATIONS;
      this.byHash.set(tx.hash, tx);
      this.fifo.insert(tx);
      this.indexInto(this.byType, tx.payloadType, tx);
      if (tx.channelHash) this.indexInto(this.byChannel, tx.channelHash, tx);
      if (tx.advert) {
        this.indexInto(this.byNode, tx.advert.pubKey, tx);
        this.learnNode(tx, time);
      }
      if (tx.srcHash) this.indexInto(this.byPrefix, tx.srcHash, tx);
      if (tx.destHash && tx.destHash !== tx.srcHash) this.indexInto(this.byPrefix, tx.destHash, tx);
      this.bytes += this.options.estimatedBytes.transmission + tx.raw.length;
    } else {
      this.counters.duplicates++;
      if (tx.observations.length >= this.options.maxObservationsPerTransmission) {
        this.counters.observationsDropped++;
        return { tx, observation: null, isNew: false };
      }
    }

    const path = isNew || samePath(packet.path, tx.path) ? tx.path : packet.path;
    const observation = {
      observer,
      time,
      snr: report.snr ?? null,
      rssi: report.rssi ?? null,
      score: report.score ?? null,
      // The common value as a literal, so millions of observations share one string.
      direction: !report.direction || report.direction === 'rx' ? 'rx' : report.direction,
      path,
    };
    // concat() makes an exact-size array; push() would reserve 16+ slots per transmission.
    tx.observations = tx.observations.concat(observation);
    this.observationCount++;
    this.indexInto(this.byObserver, observer.id, tx);
    for (const hop of path) {
      this.indexInto(this.byPrefix, hop, tx);
      this.touchHop(hop, time);
    }
    this.bytes += this.options.estimatedBytes.observation + (path === tx.path ? 0 : path.length * this.options.estimatedBytes.hop);

    for (const view of this.views) view.apply(tx, observation, this);
    this.enforceBudget();
    return { tx, observation, isNew };
  }

  indexInto(map, key, tx) {
    let deque = map.get(key);
    if (!deque) {
      deque = new SeqDeque();
      map.set(key, deque);
    }
    if (deque.insert(tx)) this.bytes += this.options.estimatedBytes.indexEntry;
  }

  removeFrom(map, key, tx) {
    const deque = map.get(key);
    if (deque && deque.removeOldest(tx)) {
      this.bytes -= this.options.estimatedBytes.indexEntry;
      if (deque.length === 0) map.delete(key);
    }
  }

  enforceBudget() {
    const { memoryBudgetBytes, maxTransmissions } = this.options;
    while (this.fifo.length > 1 && (this.bytes > memoryBudgetBytes || (maxTransmissions > 0 && this.fifo.length > maxTransmissions))) {
      this.evictOldest();
    }
  }

  /** Remove the oldest transmission from the FIFO, every index and every view. */
  evictOldest() {
    const tx = this.fifo.first();
    if (!tx) return null;
    for (const view of this.views) view.evict(tx, this);
    this.fifo.removeOldest(tx);
    this.byHash.delete(tx.hash);
    this.removeFrom(this.byType, tx.payloadType, tx);
    if (tx.channelHash) this.removeFrom(this.byChannel, tx.channelHash, tx);
    if (tx.advert) this.removeFrom(this.byNode, tx.advert.pubKey, tx);
    if (tx.srcHash) this.removeFrom(this.byPrefix, tx.srcHash, tx);
    if (tx.destHash && tx.destHash !== tx.srcHash) this.removeFrom(this.byPrefix, tx.destHash, tx);
    for (const observation of tx.observations) {
      this.removeFrom(this.byObserver, observation.observer.id, tx);
      for (const hop of observation.path) this.removeFrom(this.byPrefix, hop, tx);
      this.bytes -= this.options.estimatedBytes.observation + (observation.path === tx.path ? 0 : observation.path.length * this.options.estimatedBytes.hop);
    }
    this.observationCount -= tx.observations.length;
    this.bytes -= this.options.estimatedBytes.transmission + tx.raw.length;
    this.counters.evicted++;
    return tx;
  }

  touchObserver(report, time) {
    let observer = this.observers.get(report.observerId);
    if (!observer) {
      observer = { id: report.observerId, name: report.observerName || report.observerId, region: report.region || null, firstSeen: time, lastSeen: time, reports: 0 };
      this.observers.set(observer.id, observer);
    }
    observer.lastSeen = time;
    observer.reports++;
    if (report.region && observer.region !== report.region) observer.region = report.region;
    if (report.observerName && observer.name !== report.observerName) observer.name = report.observerName;
    return observer;
  }

  /** Learn or refresh a node from an advert; identity is taken from the newest advert. */
  learnNode(tx, time) {
    const advert = tx.advert;
    let node = this.nodes.get(advert.pubKey);
    if (!node) {
      node = { pubKey: advert.pubKey, name: advert.name, role: advert.role, lat: advert.lat, lon: advert.lon, firstSeen: time, lastSeen: time, lastAdvert: advert.timestamp, adverts: 0 };
      this.nodes.set(node.pubKey, node);
      const firstByte = node.pubKey.slice(0, 2);
      if (!this.nodesByFirstByte.has(firstByte)) this.nodesByFirstByte.set(firstByte, []);
      this.nodesByFirstByte.get(firstByte).push(node);
    }
    node.adverts++;
    node.lastSeen = time;
    if (advert.timestamp >= node.lastAdvert) {
      node.lastAdvert = advert.timestamp;
      if (advert.name) node.name = advert.name;
      node.role = advert.role;
      if (advert.lat !== null) {
        node.lat = advert.lat;
        node.lon = advert.lon;
      }
    }
  }

  /**
   * A hop proves its repeater is on the air: refresh the node when the prefix names exactly one
   * known node, otherwise keep a stub for the prefix until an advert names it.
   */
  touchHop(prefix, time) {
    const unique = this.uniqueNodeFor(prefix);
    if (unique) {
      if (time > unique.lastSeen) unique.lastSeen = time;
      return;
    }
    let stub = this.stubs.get(prefix);
    if (!stub) {
      stub = { prefix, firstSeen: time, lastSeen: time };
      this.stubs.set(prefix, stub);
    }
    stub.lastSeen = time;
  }

  /** The one node a prefix names, or null when none or several match (no allocation: hot path). */
  uniqueNodeFor(prefix) {
    const candidates = this.nodesByFirstByte.get(prefix.length === 2 ? prefix : prefix.slice(0, 2));
    if (!candidates) return null;
    let found = null;
    for (let i = 0; i < candidates.length; i++) {
      if (prefix.length === 2 || candidates[i].pubKey.startsWith(prefix)) {
        if (found) return null;
        found = candidates[i];
      }
    }
    return found;
  }

  /** Nodes whose public key starts with a hop hash prefix (empty: unknown; several: ambiguous). */
  resolvePrefix(prefix) {
    const candidates = this.nodesByFirstByte.get(prefix.slice(0, 2));
    if (!candidates) return [];
    if (prefix.length === 2) return candidates;
    return candidates.filter((node) => node.pubKey.startsWith(prefix));
  }

  /** Transmissions involving a node: its adverts plus every packet whose hops or src/dest match its key prefixes. */
  transmissionsOfNode(pubKey) {
    const seen = new Set();
    const out = [];
    const collect = (deque) => deque && deque.forEachOldest((tx) => {
      if (!seen.has(tx)) { seen.add(tx); out.push(tx); }
    });
    collect(this.byNode.get(pubKey));
    for (const length of [2, 4, 6]) collect(this.byPrefix.get(pubKey.slice(0, length)));
    out.sort((a, b) => a.seq - b.seq);
    return out;
  }

  transmissions() {
    return this.fifo.toArray();
  }

  stats() {
    return {
      transmissions: this.fifo.length,
      observations: this.observationCount,
      nodes: this.nodes.size,
      observers: this.observers.size,
      estimatedBytes: this.bytes,
      memoryBudgetBytes: this.options.memoryBudgetBytes,
      ...this.counters,
      rejectReasons: { ...this.counters.rejectReasons },
    };
  }
}

module.exports = { PacketStore, rawHex, STORE_DEFAULTS: DEFAULTS, STORE_ERRORS };
