'use strict';
/**
 * The store's directory: nodes (from verified adverts), observers, and stubs for hop prefixes
 * no advert has named yet. It outlives packets (a silent node must still be listed as silent)
 * but never grows without bound:
 *
 *   nodes      at most `maxNodes`; a node unheard for `maxAgeMs` goes, and over the cap the
 *              least recently heard go first. Charged to the `directory` part of the memory
 *              account (reported), not to the packet budget: evicting packets cannot free them.
 *   observers  an observer with stored observations is charged to the packet budget (part
 *              `observers`) and stays; once its last observation is evicted it becomes idle,
 *              and idle observers are kept up to `maxIdleObservers` (oldest idle first out)
 *              and for `maxAgeMs`.
 *   stubs      one per hop prefix that no known node names, charged to the budget and removed
 *              with the last stored packet that carries the prefix (or when an advert names it).
 *
 * Prefix resolution is an index, not a scan: for each hash size (1, 2 and 3 bytes) a Map from
 * prefix to the nodes whose public key starts with it, so a hop resolves in O(1) however many
 * nodes share its first byte.
 *
 * Change logs, so that a view holding answers derived from nodes (resolved routes, placed
 * prefixes) redoes only those naming a changed key:
 *   nodeChanges       a node added or removed, renamed, re-roled or moved (`nodesVersion`);
 *                     a node's re-advert with the same name, role and position (nearly every
 *                     advert) is none;
 *   adjacencyChanges  a node's learnt neighbours changed (both ends of a new link).
 * Each keeps the keys of its last CHANGE_LOG_SIZE changes; further back, since() answers null
 * (everything may have changed).
 */
const { BYTES, keyBytes } = require('./memory-account');

const DIRECTORY_DEFAULTS = Object.freeze({
  maxNodes: 20000,
  maxIdleObservers: 1000,
  // Entries unheard for this long leave the directory (nodes and idle observers).
  maxAgeMs: 30 * 24 * 3600 * 1000,
  // Age-out runs at most this often (store time) unless a cap is exceeded.
  sweepEveryMs: 10 * 60 * 1000,
});

const PREFIX_LENGTHS = [2, 4, 6]; // hex lengths of 1-, 2- and 3-byte hop hashes
// A node: its object, and per hash size a prefix-index entry with its bucket array and key.
const NODE_BYTES = BYTES.object + 10 * BYTES.field + 3 * (BYTES.mapEntry + BYTES.object + 2 * BYTES.arraySlot + BYTES.string + 8);
const OBSERVER_BYTES = BYTES.object + 8 * BYTES.field + BYTES.mapEntry;
const STUB_BYTES = BYTES.object + 3 * BYTES.field + 2 * BYTES.heapNumber + BYTES.mapEntry;
const EMPTY = Object.freeze([]);
const MAX_NEIGHBOURS = 64;
// Changes whose keys a log keeps (a ring): a mesh learning thousands of nodes at once is
// answered with null (redo everything) rather than a long list.
const CHANGE_LOG_SIZE = 256;

/** A version that moves with every change, and the keys of the last CHANGE_LOG_SIZE changes. */
class ChangeLog {
  constructor() {
    this.version = 0;
    this.keys = new Array(CHANGE_LOG_SIZE).fill(null); // version % CHANGE_LOG_SIZE -> key
  }

  add(key) {
    this.version++;
    this.keys[this.version % CHANGE_LOG_SIZE] = key;
  }

  /** The keys changed after `version` (one read earlier), oldest first, repeats possible; null when the log no longer reaches back. */
  since(version) {
    const count = this.version - version;
    if (count <= 0) return EMPTY;
    if (count > CHANGE_LOG_SIZE) return null;
    const keys = new Array(count);
    for (let i = 0; i < count; i++) keys[i] = this.keys[(version + 1 + i) % CHANGE_LOG_SIZE];
    return keys;
  }
}

function textBytes(text) {
  return typeof text === 'string' ? BYTES.string + text.length : 0;
}

class Directory {
  constructor(account, options = {}) {
    this.options = { ...DIRECTORY_DEFAULTS };
    for (const [key, value] of Object.entries(options)) if (value !== undefined && value !== null) this.options[key] = value;
    this.nodes = new Map(); // public key -> node
    this.observers = new Map(); // observer id -> observer (active and idle)
    this.idleObservers = new Map(); // observer id -> observer, oldest idle first
    this.stubs = new Map(); // hop prefix -> { prefix, firstSeen, lastSeen }
    this.byPrefix = [new Map(), new Map(), new Map()]; // per hash size: prefix -> [node]
    this.directoryPart = account.part('directory');
    this.observersPart = account.part('observers');
    this.stubsPart = account.part('stubs');
    this.lastSweep = -Infinity;
    this.counters = { nodesAgedOut: 0, nodesOverCap: 0, observersAgedOut: 0, observersOverCap: 0 };
    this.nodeChanges = new ChangeLog();
    this.adjacencyChanges = new ChangeLog();
  }

  /** Moves whenever a node is added, removed, renamed, re-roled or moved. */
  get nodesVersion() {
    return this.nodeChanges.version;
  }

  /** A node was added, removed, renamed, re-roled or moved. */
  nodeChanged(pubKey) {
    this.nodeChanges.add(pubKey);
  }

  /** Set a node's role and position (from its newest advert, or a persisted one); a change is a node change. */
  placeNode(node, role, lat, lon) {
    if (node.role === role && node.lat === lat && node.lon === lon) return;
    node.role = role;
    node.lat = lat;
    node.lon = lon;
    this.nodeChanged(node.pubKey);
  }

  // ---- nodes ------------------------------------------------------------------------------

  /** Add a node entry (from a verified advert, or restored from MongoDB). */
  addNode(node) {
    this.nodes.set(node.pubKey, node);
    for (let i = 0; i < PREFIX_LENGTHS.length; i++) {
      const prefix = node.pubKey.slice(0, PREFIX_LENGTHS[i]);
      const bucket = this.byPrefix[i].get(prefix);
      if (bucket) bucket.push(node);
      else this.byPrefix[i].set(prefix, [node]);
      // A stub stood for "no known node has this prefix": now one has.
      this.dropStub(prefix);
    }
    this.directoryPart.add(NODE_BYTES + keyBytes(node.pubKey) + textBytes(node.name));
    this.nodeChanged(node.pubKey);
    return node;
  }

  removeNode(node) {
    if (this.nodes.get(node.pubKey) !== node) return;
    this.nodes.delete(node.pubKey);
    if (node.neighbours) this.directoryPart.add(-(BYTES.map + node.neighbours.size * BYTES.mapEntry));
    for (let i = 0; i < PREFIX_LENGTHS.length; i++) {
      const prefix = node.pubKey.slice(0, PREFIX_LENGTHS[i]);
      const bucket = this.byPrefix[i].get(prefix);
      if (!bucket) continue;
      const at = bucket.indexOf(node);
      if (at >= 0) bucket.splice(at, 1);
      if (bucket.length === 0) this.byPrefix[i].delete(prefix);
    }
    this.directoryPart.add(-(NODE_BYTES + keyBytes(node.pubKey) + textBytes(node.name)));
    this.nodeChanged(node.pubKey);
  }

  renameNode(node, name) {
    if (name === node.name) return;
    this.directoryPart.add(textBytes(name) - textBytes(node.name));
    node.name = name;
    this.nodeChanged(node.pubKey);
  }

  /** Nodes whose public key starts with a hop hash prefix (empty: unknown; several: ambiguous). Do not mutate. */
  resolvePrefix(prefix) {
    const size = prefix.length >> 1;
    if (size >= 1 && size <= 3 && prefix.length % 2 === 0) return this.byPrefix[size - 1].get(prefix) || EMPTY;
    if (prefix.length > 6) return (this.byPrefix[2].get(prefix.slice(0, 6)) || EMPTY).filter((node) => node.pubKey.startsWith(prefix));
    return EMPTY;
  }

  /** The one node a prefix names, or null when none or several do. O(1). */
  uniqueNodeFor(prefix) {
    const size = prefix.length >> 1;
    const bucket = size >= 1 && size <= 3 ? this.byPrefix[size - 1].get(prefix) : undefined;
    return bucket !== undefined && bucket.length === 1 ? bucket[0] : null;
  }

  /**
   * Two nodes seen next to each other in a path whose hops both resolved uniquely: remembered
   * on both (at most MAX_NEIGHBOURS each, charged to the directory, gone with the node), so that
   * an ambiguous 1-byte hop next to one of them can be told by who it was seen beside.
   */
  learnAdjacency(a, b) {
    this.addNeighbour(a, b);
    this.addNeighbour(b, a);
  }

  addNeighbour(node, other) {
    if (node.neighbours === null || node.neighbours === undefined) {
      node.neighbours = new Set();
      this.directoryPart.add(BYTES.map);
    }
    if (node.neighbours.size >= MAX_NEIGHBOURS || node.neighbours.has(other.pubKey)) return;
    node.neighbours.add(other.pubKey);
    this.directoryPart.add(BYTES.mapEntry);
    this.adjacencyChanges.add(node.pubKey);
  }

  // ---- stubs --------------------------------------------------------------------------------

  touchStub(prefix, time) {
    let stub = this.stubs.get(prefix);
    if (!stub) {
      stub = { prefix, firstSeen: time, lastSeen: time };
      this.stubs.set(prefix, stub);
      this.stubsPart.add(STUB_BYTES + keyBytes(prefix));
    }
    stub.lastSeen = time;
  }

  dropStub(prefix) {
    if (this.stubs.delete(prefix)) this.stubsPart.add(-(STUB_BYTES + keyBytes(prefix)));
  }

  // ---- observers ----------------------------------------------------------------------------

  observerBytes(observer) {
    return OBSERVER_BYTES + keyBytes(observer.id) + (observer.name === observer.id ? 0 : textBytes(observer.name)) + textBytes(observer.region);
  }

  /**
   * The observer entry for a report (created idle when new), with last heard, report count,
   * name and region refreshed. observerStored() then holds it for each stored observation.
   */
  observerFor(report, time) {
    let observer = this.observers.get(report.observerId);
    if (!observer) {
      observer = { id: report.observerId, name: report.observerName || report.observerId, region: report.region || null, firstSeen: time, lastSeen: time, reports: 0, stored: 0 };
      this.observers.set(observer.id, observer);
      this.makeIdle(observer);
    }
    observer.lastSeen = time;
    observer.reports++;
    const charged = observer.stored > 0;
    if (report.region && observer.region !== report.region) {
      if (charged) this.observersPart.add(textBytes(report.region) - textBytes(observer.region));
      observer.region = report.region;
    }
    if (report.observerName && observer.name !== report.observerName) {
      if (charged) this.observersPart.add(textBytes(report.observerName) - (observer.name === observer.id ? 0 : textBytes(observer.name)));
      observer.name = report.observerName;
    }
    return observer;
  }

  /** One more stored observation of `observer`: the first one moves it from idle to the budget. */
  observerStored(observer) {
    if (observer.stored++ > 0) return;
    this.idleObservers.delete(observer.id);
    this.observersPart.add(this.observerBytes(observer));
  }

  /** One stored observation of `observer` left the store: the last one makes it idle. */
  observerReleased(observer) {
    if (--observer.stored > 0) return;
    this.observersPart.add(-this.observerBytes(observer));
    this.makeIdle(observer);
  }

  makeIdle(observer) {
    this.idleObservers.set(observer.id, observer);
    if (this.idleObservers.size > this.options.maxIdleObservers) {
      this.removeIdleObserver(this.idleObservers.values().next().value);
      this.counters.observersOverCap++;
    }
  }

  removeIdleObserver(observer) {
    this.idleObservers.delete(observer.id);
    if (this.observers.get(observer.id) === observer) this.observers.delete(observer.id);
  }

  /** Restore an observer entry from MongoDB (idle until the replay stores its observations). */
  restoreObserver(observer) {
    observer.stored = 0;
    this.observers.set(observer.id, observer);
    this.makeIdle(observer);
    return observer;
  }

  // ---- age-out ------------------------------------------------------------------------------

  /** Run the age-out when a cap is exceeded, or every sweepEveryMs of store time. */
  maybeSweep(now) {
    const overCap = this.nodes.size > this.options.maxNodes * 1.05 + 16;
    if (!overCap && now - this.lastSweep < this.options.sweepEveryMs) return;
    this.sweep(now);
  }

  /** Remove entries unheard for maxAgeMs, then the least recently heard nodes over the cap. */
  sweep(now) {
    this.lastSweep = now;
    const cutoff = now - this.options.maxAgeMs;
    for (const node of this.nodes.values()) {
      if (node.lastSeen < cutoff) {
        this.removeNode(node);
        this.counters.nodesAgedOut++;
      }
    }
    if (this.nodes.size > this.options.maxNodes) {
      const byAge = Array.from(this.nodes.values()).sort((a, b) => a.lastSeen - b.lastSeen);
      const excess = this.nodes.size - this.options.maxNodes;
      for (let i = 0; i < excess; i++) this.removeNode(byAge[i]);
      this.counters.nodesOverCap += excess;
    }
    for (const observer of this.idleObservers.values()) {
      if (observer.lastSeen < cutoff) {
        this.removeIdleObserver(observer);
        this.counters.observersAgedOut++;
      }
    }
  }

  stats() {
    return {
      nodes: this.nodes.size,
      observers: this.observers.size,
      idleObservers: this.idleObservers.size,
      stubs: this.stubs.size,
      maxNodes: this.options.maxNodes,
      maxIdleObservers: this.options.maxIdleObservers,
      ...this.counters,
    };
  }
}

module.exports = { CHANGE_LOG_SIZE, ChangeLog, Directory, DIRECTORY_DEFAULTS, PREFIX_LENGTHS, NODE_BYTES };
