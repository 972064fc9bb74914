'use strict';
/**
 * Per-key aggregates shared by the `nodes`, `node` and `bulkHealth` views: running sums over the
 * stored transmissions that name each key, kept exact under eviction, at a cost bounded by the
 * report itself (not by the size of the mesh).
 *
 * Keys: a transmission names the advert's public key (ADVERT), its src and dest hashes (1-byte
 * key prefixes, keyed as address keys `@d2`, apart from the same byte seen as a hop:
 * observation-keys.js), and every hop hash in the path of any of its observations (1-, 2- or
 * 3-byte prefixes). Aggregates are kept per key, whether or not a known node has that key, so
 * nothing needs re-deriving when a node is learned later. A node's figures are the sum over its
 * keys (nodeKeys): its public key, its address key and, for a repeater only (only repeaters
 * relay), its 1-, 2- and 3-byte prefixes as hops; the role is read at snapshot time, so a node
 * that re-adverts as another role is summed by its new role at once. A transmission counts once
 * per key; one that names a node through two different keys (a message to a repeater's first
 * byte that the repeater relayed) counts once for each (the README's "Views" says so).
 *
 * Ambiguity: hop, src and dest hashes are key prefixes (often one byte), so a hop prefix shared
 * by several known repeaters, or an address shared by several known nodes, counts toward every
 * one of them. The views flag such nodes (`ambiguousPrefix`); nothing here guesses which node it
 * really was.
 *
 * Observations: a key's observation figures (SNR, RSSI, observers, peers) count the observations
 * that name it: every observation of a transmission for its advert, src and dest keys, and for a
 * hop key the observations whose path shows that hop (the observers that heard it relay). So a
 * report touches only the keys it names itself, never the earlier reports of the transmission.
 *
 * How it stays exact: apply(tx, observation) matches the keys this observation names; a key no
 * earlier observation of the transmission named gets the transmission's counts, and every one
 * gets this observation's sums. evict(tx) subtracts each observation from the keys it names,
 * then the transmission from every key any of them named; an aggregate whose packets return to
 * zero is deleted and its memory refunded. Cost per observation: O(its own hops) aggregate
 * updates, plus O(hops of the earlier observations) string comparisons to tell new keys.
 *
 * One tracker per store serves all three views (sharedTracker), so the matching is done once
 * per observation and the aggregates are held once: the first view instance to call apply
 * drives it; the others, run after it in registration order (over the store's whole batch, when
 * the store holds updates: store.js flushViews), read the result it memoized for the same update
 * at the same batch position (and ignore the replay a late-registered view gets).
 */
const { hourBucket, DAY_MS, HOUR_MS } = require('./view');
const { inCachedBucket } = require('./time-buckets');
const { entryBytes, BYTES } = require('../memory-account');
const { PairCounts } = require('./pair-counts');
const { observationCountOf, observationAt, observationIndexOf } = require('../stored-records');
const { HOP, Matches, ObservationPeers, KnownKeys, seenPath, matchStatic, matchPath, matchPathSlots, addressKey } = require('./observation-keys');
const { FORWARDING_ROLE } = require('../hop-resolver');
const { HOUR_FIELD: H, HOUR_BYTES, newHourBucket, addTime, removeOldestTime } = require('./hour-times');

const KEY_LENGTHS = [2, 4, 6]; // hex lengths of 1-, 2- and 3-byte hash prefixes
const TYPE_COUNT = 16; // payload types are 4 bits
const HOP_BINS = 5; // 0, 1, 2, 3, 4+ hops

function dayStart(time) {
  return Math.floor(time / DAY_MS) * DAY_MS;
}

function hopBin(hopCount) {
  return hopCount >= 4 ? 4 : hopCount;
}

// Reused for the observation being applied or evicted: nothing keeps them past one call.
const scratchPeers = new ObservationPeers();
const scratchHopSlots = [];

// Reused for the keys of the observation being applied: nothing keeps it past one apply().
const scratchOwn = new Matches();

// Memory charged per aggregate and per bucket (see memory-account.js).
const AGGREGATE_BYTES = BYTES.object + 18 * BYTES.field + 2 * BYTES.map;
const DAY_BYTES = BYTES.object + 9 * BYTES.field + 2 * (BYTES.object + BYTES.field) + BYTES.typedArray + (5 + 16) * 4 + entryBytes(0.5);
// An observer's small id for the per-day sums (see NodeTracker.observerIdOf).
const OBSERVER_ID_BYTES = BYTES.mapEntry + BYTES.object + 3 * BYTES.field + BYTES.arraySlot;
// Per-day sums per observer: count, SNR sum and count, RSSI sum and count.
const OBS = { COUNT: 0, SNR_SUM: 1, SNR_COUNT: 2, RSSI_SUM: 3, RSSI_COUNT: 4 };
const OBSERVER_WIDTH = 5;

function emptyAggregate(key, id, tracker) {
  return {
    key,
    id, // small integer, unique among live aggregates: the peer id in the per-day peer counts
    tracker,
    packets: 0,
    relayed: 0,
    hopsSum: 0,
    snrSum: 0,
    snrCount: 0,
    rssiSum: 0,
    rssiCount: 0,
    days: new Map(), // UTC day start -> day bucket
    hours: new Map(), // hour start -> hour bucket (a Float64Array: hour-times.js)
    // The newest day and hour buckets, where nearly every packet lands: spares a Map lookup.
    cachedDayStart: NaN,
    cachedDay: null,
    cachedHourStart: NaN,
    cachedHour: null,
  };
}

/**
 * One node's packets first heard on one UTC day: what the node view shows over whole days
 * (packet types, hops, relays, SNR spread, observers, peers). Open-ended Maps live here rather
 * than per hour: a day holds about 24 times fewer of them. Per-observer figures over all stored
 * packets are the sum over days (a few dozen entries at snapshot).
 */
function newDayBucket(id) {
  return {
    id, // owner id in the tracker's per-day observer and peer counts (pair-counts.js)
    packets: 0,
    relayed: 0,
    snrSum: 0,
    snrSquares: 0,
    snrCount: 0,
    // One typed array for both (each typed array carries a ~180-byte header): hops 0, 1, 2,
    // 3, 4+ at [0..4], then packets per payload type at [5 + type].
    counts: new Int32Array(HOP_BINS + TYPE_COUNT),
    // Lists of this day's entries in tracker.observerSums (observer id -> count, SNR and RSSI
    // sums over observations) and tracker.peerCounts (peer aggregate id -> observations in which
    // it was adjacent): typed-array tables shared by all days rather than two Maps per day.
    observers: { head: -1 },
    peers: { head: -1 },
  };
}

/** The update a store's views are running, by its position in the batch (0 without a store). */
function batchPosition(store) {
  return store ? store.viewOpIndex || 0 : 0;
}

class NodeTracker {
  constructor(store) {
    this.aggregates = new Map(); // key (public key, or 1/2/3-byte prefix) -> aggregate
    this.part = store && store.memory ? store.memory.part('nodeAggregates') : null;
    this.driver = null;
    // What the driver's apply / evict returned for each update of the store's batch, by its
    // position (store.viewOpIndex; store.js runs each view over the whole batch in turn):
    // the update (observation, or evicted transmission) and its result.
    this.memoUpdates = [];
    this.memoResults = [];
    this.knownKeys = new KnownKeys();
    // For the last observation apply() worked on: firstNamed[m] is 1 when its m-th key
    // was named by no earlier observation of its transmission (the packet counts for it now).
    // The node view's minute rows read it instead of matching the earlier paths again.
    this.firstNamed = [];
    // firstNamed of every observation of the store's batch, kept for the node view, which runs
    // after the driver has applied the whole batch: the flags of update `at` start at
    // firstNamedFrom[at] in firstNamedKept, and its keys at the same place in keysKept (one
    // reused list for the batch, not an array per observation).
    this.firstNamedKept = new Uint8Array(1024);
    this.keysKept = [];
    this.firstNamedUsed = 0;
    this.firstNamedFrom = [];
    this.firstNamedLastAt = -1;
    // A batch's results hold its observations and evicted transmissions: let them go with it.
    if (store && typeof store.onViewBatchDone === 'function') store.onViewBatchDone(() => this.releaseBatch());
    // Per-day sums, keyed by (day id, observer id) and (day id, peer aggregate id).
    this.observerSums = new PairCounts(OBSERVER_WIDTH, this.part);
    this.peerCounts = new PairCounts(1, this.part);
    this.nextDayId = 0;
    // Aggregate ids: dense, reused after their aggregate goes.
    this.aggregateById = [];
    this.freeAggregateIds = [];
    // Observer record -> { id, refs (live per-day entries) }; id -> record. An id goes with its last entry.
    this.observerIds = new Map();
    this.observerById = [];
    this.freeObserverIds = [];
    this.scratchAggregates = [];
    this.observerMarks = new Int32Array(64); // distinctObservers' marks, one per observer id
    this.observerStamp = 0;
  }

  /** The small id of an observer record in the per-day sums (created on first use, refs 0). */
  observerIdOf(observer) {
    let entry = this.observerIds.get(observer);
    if (entry === undefined) {
      const id = this.freeObserverIds.length > 0 ? this.freeObserverIds.pop() : this.observerById.length;
      entry = { id, refs: 0, observer };
      this.observerIds.set(observer, entry);
      this.observerById[id] = entry;
      this.charge(OBSERVER_ID_BYTES);
    }
    return entry;
  }

  releaseObserverId(entry) {
    if (--entry.refs > 0) return;
    this.observerIds.delete(entry.observer);
    this.observerById[entry.id] = undefined;
    this.freeObserverIds.push(entry.id);
    this.charge(-OBSERVER_ID_BYTES);
  }

  /** Visit a day's per-observer sums: visit(observer record, count, snrSum, snrCount, rssiSum, rssiCount). */
  forEachDayObserver(day, visit) {
    const table = this.observerSums;
    const values = table.values;
    table.forEachOf(day.observers, (entry, item) => {
      const base = entry * OBSERVER_WIDTH;
      visit(this.observerById[item].observer, values[base], values[base + 1], values[base + 2], values[base + 3], values[base + 4]);
    });
  }

  /** Visit a day's peers: visit(peer key, observations in which it was adjacent). */
  forEachDayPeer(day, visit) {
    const table = this.peerCounts;
    table.forEachOf(day.peers, (entry, item) => visit(this.aggregateById[item].key, table.values[entry]));
  }

  /**
   * Distinct observers over every day of `aggregates`. A walk of the per-day entry lists that
   * marks each observer id with a fresh stamp (no Set: bulkHealth asks this for 200 nodes of 4
   * keys each, and on a large mesh a 1-byte prefix's days hold every observer; the Set was half
   * of that snapshot). `observerMarks` has one slot per observer id in use (ids are reused).
   */
  distinctObservers(aggregates) {
    if (this.observerStamp >= 0x3fffffff) {
      this.observerMarks.fill(0);
      this.observerStamp = 0;
    }
    const stamp = ++this.observerStamp;
    if (this.observerMarks.length < this.observerById.length) {
      const grown = new Int32Array(Math.max(64, this.observerById.length * 2));
      grown.set(this.observerMarks);
      this.observerMarks = grown;
    }
    const marks = this.observerMarks;
    const { next, items } = this.observerSums;
    let count = 0;
    for (let a = 0; a < aggregates.length; a++) {
      for (const day of aggregates[a].days.values()) {
        for (let entry = day.observers.head; entry >= 0; entry = next[entry]) {
          const id = items[entry];
          if (marks[id] !== stamp) {
            marks[id] = stamp;
            count++;
          }
        }
      }
    }
    return count;
  }

  /** Aggregate of one key, or null when no stored packet names it. */
  aggregateOf(key) {
    return this.aggregates.get(key) || null;
  }

  /** The aggregates a node's figures sum (NodeTracker.nodeKeys). `node`: { pubKey, role }. */
  nodeAggregates(node) {
    const out = [];
    for (const key of NodeTracker.nodeKeys(node)) {
      const aggregate = this.aggregates.get(key);
      if (aggregate) out.push(aggregate);
    }
    return out;
  }

  /**
   * The keys a node's figures sum: its public key and its address key (the src / dest hash of
   * the packets it sent or was sent), and for a repeater its 1-, 2- and 3-byte prefixes as hops.
   * Only repeaters forward: the hops a companion's, room's or sensor's first bytes match are
   * other nodes' relays (hop-resolver.js).
   */
  static nodeKeys(node) {
    const { pubKey } = node;
    if (node.role !== FORWARDING_ROLE) return [pubKey, addressKey(pubKey.slice(0, 2))];
    return [pubKey, pubKey.slice(0, 2), pubKey.slice(0, 4), pubKey.slice(0, 6), addressKey(pubKey.slice(0, 2))];
  }

  /** The keys whose versions a node's snapshot depends on (whatever its role: a node can re-advert as another). */
  static keysOf(pubKey) {
    return NodeTracker.nodeKeys({ pubKey, role: FORWARDING_ROLE }); // a repeater's: every key any node sums
  }

  /**
   * apply() for view instance `owner`: the driving instance works, the others read its result.
   * Returns how many keys the observation names (they are keysKept[firstNamedAt(store) ...]),
   * or null when this update is not the one the tracker applied (a late view's replay).
   */
  applyFor(owner, tx, observation, store) {
    if (this.driver === null) this.driver = owner;
    const at = batchPosition(store);
    if (owner !== this.driver) return this.memoUpdates[at] === observation ? this.memoResults[at] : null;
    const named = this.apply(tx, observation, store);
    this.memoUpdates[at] = observation;
    this.memoResults[at] = named;
    this.keepNamed(at, named);
    return named;
  }

  releaseBatch() {
    this.memoUpdates.length = 0;
    this.memoResults.length = 0;
    this.firstNamedFrom.length = 0;
    this.firstNamedLastAt = -1;
    this.firstNamedUsed = 0;
  }

  /** Keep the firstNamed flags and the keys of update `at` (its `size` keys) for the node view. */
  keepNamed(at, size) {
    if (at <= this.firstNamedLastAt) this.firstNamedUsed = 0; // a new batch (positions restart)
    this.firstNamedLastAt = at;
    const from = this.firstNamedUsed;
    if (from + size > this.firstNamedKept.length) {
      const grown = new Uint8Array(Math.max(2 * this.firstNamedKept.length, from + size));
      grown.set(this.firstNamedKept.subarray(0, from));
      this.firstNamedKept = grown;
    }
    const kept = this.firstNamedKept;
    const firstNamed = this.firstNamed;
    const keysKept = this.keysKept;
    const keys = scratchOwn.keys; // the keys of the observation apply() just worked on
    for (let m = 0; m < size; m++) {
      kept[from + m] = firstNamed[m];
      keysKept[from + m] = keys[m];
    }
    this.firstNamedUsed = from + size;
    this.firstNamedFrom[at] = from;
  }

  /** Where the firstNamed flags of the store's current update start in firstNamedKept (applyFor's result being non-null). */
  firstNamedAt(store) {
    return this.firstNamedFrom[batchPosition(store)];
  }

  evictFor(owner, tx, store) {
    if (this.driver === null) this.driver = owner;
    const at = batchPosition(store);
    if (owner !== this.driver) return this.memoUpdates[at] === tx ? this.memoResults[at] : null;
    const touched = this.evict(tx);
    this.memoUpdates[at] = tx;
    this.memoResults[at] = touched;
    return touched;
  }

  /** Returns how many keys the observation names (all their aggregates change): scratchOwn.keys[0 ..]. */
  apply(tx, observation) {
    // Without tx.observations: for a transmission of one or two observations it builds an array.
    let index = observationCountOf(tx) - 1;
    if (observationAt(tx, index) !== observation) index = observationIndexOf(tx, observation); // a late view catching up
    // The keys this observation names (the transmission's own, then its path), and those the
    // earlier observations of the same transmission named (none before the first).
    const own = matchPathSlots(observation.path, matchStatic(tx, scratchOwn.clear()), scratchHopSlots);
    const peers = scratchPeers.collect(tx, observation.path, own, scratchHopSlots);
    const before = this.knownKeys.before(tx, index);
    const firstNamed = this.firstNamed;
    // Every key's aggregate first: the peers of a key are keys of the same observation.
    const aggregates = this.scratchAggregates;
    for (let m = 0; m < own.size; m++) aggregates[m] = this.aggregateFor(own.keys[m]);
    const observerId = own.size > 0 ? this.observerIdOf(observation.observer) : null;
    for (let m = 0; m < own.size; m++) {
      const key = own.keys[m];
      const flags = own.flags[m];
      const previous = index === 0 ? 0 : before.flagsOf(key);
      firstNamed[m] = previous === 0 ? 1 : 0;
      const aggregate = aggregates[m];
      if (previous === 0) this.addTransmission(aggregate, tx, flags, 1);
      else if (flags & HOP && !(previous & HOP)) this.addRelay(aggregate, tx, 1);
      this.addObservation(aggregate, m, tx, observation, 1, observerId, aggregates, peers);
    }
    this.knownKeys.advance(before, own, index);
    return own.size;
  }

  /** Subtract everything apply added for `tx` (all its observations still attached). */
  evict(tx) {
    this.knownKeys.forget(tx);
    const matches = matchStatic(tx, new Matches());
    for (let i = 0; i < tx.observations.length; i++) {
      if (!seenPath(tx.observations, i)) matchPath(tx.observations[i].path, matches);
    }
    // Observations first: a day bucket is deleted when its packets reach zero.
    const aggregates = this.scratchAggregates;
    for (const observation of tx.observations) {
      const own = matchPathSlots(observation.path, matchStatic(tx, scratchOwn.clear()), scratchHopSlots);
      for (let m = 0; m < own.size; m++) aggregates[m] = this.aggregates.get(own.keys[m]);
      const observerId = this.observerIds.get(observation.observer);
      if (observerId === undefined) continue; // never applied: nothing to undo
      const peers = scratchPeers.collect(tx, observation.path, own, scratchHopSlots);
      for (let m = 0; m < own.size; m++) {
        if (aggregates[m]) this.addObservation(aggregates[m], m, tx, observation, -1, observerId, aggregates, peers);
      }
    }
    const touched = [];
    for (let m = 0; m < matches.size; m++) {
      const key = matches.keys[m];
      const aggregate = this.aggregates.get(key);
      if (!aggregate) continue;
      this.addTransmission(aggregate, tx, matches.flags[m], -1);
      if (aggregate.packets === 0) {
        this.aggregates.delete(key);
        this.aggregateById[aggregate.id] = undefined;
        this.freeAggregateIds.push(aggregate.id);
        this.charge(-(AGGREGATE_BYTES + entryBytes(key)));
      }
      touched.push(key);
    }
    return touched;
  }

  aggregateFor(key) {
    let aggregate = this.aggregates.get(key);
    if (!aggregate) {
      const id = this.freeAggregateIds.length > 0 ? this.freeAggregateIds.pop() : this.aggregateById.length;
      aggregate = emptyAggregate(key, id, this);
      this.aggregateById[id] = aggregate;
      this.aggregates.set(key, aggregate);
      this.charge(AGGREGATE_BYTES + entryBytes(key));
    }
    return aggregate;
  }

  charge(bytes) {
    if (this.part) this.part.add(bytes);
  }

  addTransmission(aggregate, tx, flags, sign) {
    const relayed = flags & HOP ? sign : 0;
    aggregate.packets += sign;
    aggregate.relayed += relayed;
    aggregate.hopsSum += sign * tx.hopCount;
    const day = this.dayOf(aggregate, tx);
    day.packets += sign;
    day.relayed += relayed;
    day.counts[hopBin(tx.hopCount)] += sign;
    day.counts[HOP_BINS + tx.payloadType] += sign;
    // Observations are subtracted before this, so an empty bucket holds nothing else.
    if (day.packets === 0) {
      aggregate.days.delete(dayStart(tx.time));
      aggregate.cachedDayStart = NaN;
      this.charge(-DAY_BYTES);
    }
    const hour = this.hourOf(aggregate, tx);
    if (sign > 0) addTime(hour, tx.time);
    else if (removeOldestTime(hour) === 0) {
      aggregate.hours.delete(hourBucket(tx.time));
      aggregate.cachedHourStart = NaN;
      this.charge(-HOUR_BYTES);
    }
  }

  addRelay(aggregate, tx, sign) {
    aggregate.relayed += sign;
    this.dayOf(aggregate, tx).relayed += sign;
  }

  /**
   * Count one observation (sign +1) or take it back (-1) for one of the keys it names, the
   * m-th. `observerId`: its observer's entry from observerIdOf; `aggregates`: the aggregates of
   * every key the observation names (undefined: none), `peers`: their peers (ObservationPeers).
   */
  addObservation(aggregate, m, tx, observation, sign, observerId, aggregates, peers) {
    const { snr, rssi } = observation;
    const day = this.dayOf(aggregate, tx);
    const sums = this.observerSums;
    let entry = sign > 0 ? sums.entry(day.id, observerId.id, day.observers) : sums.find(day.id, observerId.id);
    if (entry < 0) return; // never counted: nothing to undo
    if (sign > 0 && sums.values[entry * OBSERVER_WIDTH] === 0) observerId.refs++;
    const values = sums.values;
    const base = entry * OBSERVER_WIDTH;
    values[base] += sign;
    if (snr !== null) {
      aggregate.snrSum += sign * snr;
      aggregate.snrCount += sign;
      values[base + OBS.SNR_SUM] += sign * snr;
      values[base + OBS.SNR_COUNT] += sign;
      day.snrSum += sign * snr;
      day.snrSquares += sign * snr * snr;
      day.snrCount += sign;
      const hour = this.hourOf(aggregate, tx);
      hour[H.SNR_SUM] += sign * snr;
      hour[H.SNR_COUNT] += sign;
    }
    if (rssi !== null) {
      aggregate.rssiSum += sign * rssi;
      aggregate.rssiCount += sign;
      values[base + OBS.RSSI_SUM] += sign * rssi;
      values[base + OBS.RSSI_COUNT] += sign;
    }
    if (values[base] === 0) {
      sums.remove(entry, day.observers);
      this.releaseObserverId(observerId);
    }
    // A peer is a key of the same observation (a hop, the src or dest hash), so it has an
    // aggregate once applied (none while evicting an observation never applied).
    const peerList = peers.lists[m];
    const peerCount = peers.counts[m];
    const table = this.peerCounts;
    for (let i = 0; i < peerCount; i++) {
      const peer = aggregates[peerList[i]];
      if (!peer) continue;
      const peerEntry = sign > 0 ? table.entry(day.id, peer.id, day.peers) : table.find(day.id, peer.id);
      if (peerEntry < 0) continue;
      if ((table.values[peerEntry] += sign) === 0) table.remove(peerEntry, day.peers);
    }
  }

  dayOf(aggregate, tx) {
    const time = tx.time;
    if (inCachedBucket(time, aggregate.cachedDayStart, DAY_MS)) return aggregate.cachedDay;
    const start = dayStart(time);
    let day = aggregate.days.get(start);
    if (!day) {
      day = newDayBucket(this.nextDayId++);
      aggregate.days.set(start, day);
      this.charge(DAY_BYTES);
    }
    aggregate.cachedDayStart = start;
    aggregate.cachedDay = day;
    return day;
  }

  hourOf(aggregate, tx) {
    const time = tx.time;
    if (inCachedBucket(time, aggregate.cachedHourStart, HOUR_MS)) return aggregate.cachedHour;
    const start = hourBucket(time);
    let hour = aggregate.hours.get(start);
    if (!hour) {
      hour = newHourBucket();
      aggregate.hours.set(start, hour);
      this.charge(HOUR_BYTES);
    }
    aggregate.cachedHourStart = start;
    aggregate.cachedHour = hour;
    return hour;
  }
}

const trackers = new WeakMap(); // store -> its NodeTracker

/** The one tracker of a store, created on first use. */
function sharedTracker(store) {
  let tracker = trackers.get(store);
  if (!tracker) {
    tracker = new NodeTracker(store);
    trackers.set(store, tracker);
  }
  return tracker;
}

module.exports = { NodeTracker, sharedTracker, dayStart, KEY_LENGTHS, HOP_BINS };
