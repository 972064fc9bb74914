'use strict';
/**
 * Per-key aggregates shared by the `nodes`, `node` and `bulkHealth` views: running sums over the
 * stored transmissions that name each key, kept exact under eviction, at a cost bounded by the
 * report itself (not by the size of the mesh).
 *
 * Keys: a transmission names the advert's public key (ADVERT), its src and dest hashes (1-byte
 * key prefixes), and every hop hash in the path of any of its observations (1-, 2- or 3-byte
 * prefixes). Aggregates are kept per key, whether or not a known node has that key, so nothing
 * needs re-deriving when a node is learned later. A node's figures are the sum over its keys:
 * its public key and its 1-, 2- and 3-byte prefixes (nodeAggregates). A transmission counts
 * once per key; one that names a node through two different keys (its own advert relayed by a
 * repeater sharing its first byte) counts once for each (the README's "Views" says so).
 *
 * Ambiguity: hop, src and dest hashes are key prefixes (often one byte), so a prefix shared by
 * several known nodes counts toward every one of them. The views flag such nodes
 * (`ambiguousPrefix`); nothing here guesses which node it really was.
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
 * drives it; the others, applied after it in registration order, read the result it memoized
 * for the same observation (and ignore the replay a late-registered view gets).
 */
const { hourBucket, DAY_MS } = require('./view');
const { entryBytes, BYTES } = require('../memory-account');
const { PairCounts } = require('./pair-counts');
const { observationCountOf, observationAt, observationIndexOf } = require('../stored-records');
const { nodeStatus } = require('../node-status');

// Flags of one node's match with one transmission.
const MATCHED = 1;
const HOP = 2; // the node is a hop of some observed path: it relayed the packet

const KEY_LENGTHS = [2, 4, 6]; // hex lengths of 1-, 2- and 3-byte hash prefixes
const TYPE_COUNT = 16; // payload types are 4 bits
const HOP_BINS = 5; // 0, 1, 2, 3, 4+ hops

function dayStart(time) {
  return Math.floor(time / DAY_MS) * DAY_MS;
}

function hopBin(hopCount) {
  return hopCount >= 4 ? 4 : hopCount;
}

/**
 * Peers of every key of one observation, each as a list of indexes into the observation's
 * Matches: for a key, the hops next to it in the path, the first hop when the key is the
 * packet's origin (its advert key or src hash), and the src/dest counterpart; never the key
 * itself, each peer once, in that order. One pass over the path comparing small integers (the
 * key index of each hop, from matchPathSlots): a scan of the path and a string search per key
 * was most of apply's own time on a large mesh's 5-8-hop paths.
 */
class ObservationPeers {
  constructor() {
    // lists[m][0 .. counts[m] - 1]: key m's peers (arrays reused; their length is never reset).
    this.lists = [];
    this.counts = [];
  }

  /** Collect the peers of own's keys; `hopSlots[i]` is the index in `own` of path[i]. */
  collect(tx, path, own, hopSlots) {
    while (this.lists.length < own.size) {
      this.lists.push([]);
      this.counts.push(0);
    }
    for (let m = 0; m < own.size; m++) this.counts[m] = 0;
    const last = path.length - 1;
    for (let i = 0; i <= last; i++) {
      const m = hopSlots[i];
      if (i > 0) this.add(m, hopSlots[i - 1]);
      if (i < last) this.add(m, hopSlots[i + 1]);
    }
    const srcSlot = tx.srcHash !== null ? own.indexOf(tx.srcHash) : -1;
    if (path.length > 0) {
      if (srcSlot >= 0) this.add(srcSlot, hopSlots[0]);
      if (tx.advert !== null) this.add(own.indexOf(tx.advert.pubKey), hopSlots[0]);
    }
    if (srcSlot >= 0 && tx.destHash !== null) {
      const destSlot = own.indexOf(tx.destHash);
      this.add(srcSlot, destSlot);
      this.add(destSlot, srcSlot);
    }
    return this;
  }

  add(m, peer) {
    if (peer === m) return;
    const list = this.lists[m];
    const count = this.counts[m];
    for (let i = 0; i < count; i++) if (list[i] === peer) return;
    list[count] = peer;
    this.counts[m] = count + 1;
  }
}

// Reused for the observation being applied or evicted: nothing keeps them past one call.
const scratchPeers = new ObservationPeers();
const scratchHopSlots = [];

/** The keys one transmission names, with flags: a handful at most, so arrays beat a Map. */
class Matches {
  constructor() {
    // keys[0 .. size - 1] are live; clear() only resets size (setting an array's length is a
    // runtime call, and these are cleared on every report).
    this.keys = [];
    this.flags = [];
    this.size = 0;
    // For a transmission's running union (see KnownKeys): how many of its observations it holds.
    this.observationsMatched = 0;
  }

  clear() {
    this.size = 0;
    this.observationsMatched = 0;
    return this;
  }

  indexOf(key) {
    const keys = this.keys;
    for (let i = 0; i < this.size; i++) if (keys[i] === key) return i;
    return -1;
  }

  /** Returns the key's index. */
  add(key, flags) {
    const at = this.indexOf(key);
    if (at >= 0) {
      this.flags[at] |= flags;
      return at;
    }
    const size = this.size;
    if (size === this.keys.length) {
      this.keys.push(key);
      this.flags.push(flags);
    } else {
      this.keys[size] = key;
      this.flags[size] = flags;
    }
    this.size = size + 1;
    return size;
  }

  flagsOf(key) {
    const at = this.indexOf(key);
    return at < 0 ? 0 : this.flags[at];
  }
}

// Reused for the keys of the observation being applied: nothing keeps it past one apply().
const scratchOwn = new Matches();

/**
 * The keys the earlier observations of recent transmissions named, so that apply() tells a new
 * key from a known one without re-matching every earlier path of the transmission (on a large
 * mesh a transmission has dozens of observations: that re-matching was quadratic per
 * transmission). Bounded: the oldest entries go first, and a transmission whose entry went (or
 * is out of step, e.g. a late view replaying) is matched from its observations again, as before.
 * Holds references to at most KNOWN_KEYS_SIZE transmissions and their few keys (~0.5 MB).
 */
const KNOWN_KEYS_SIZE = 2048;

class KnownKeys {
  constructor() {
    // A ring of slots, oldest overwritten first (Map.keys().next() after many deletes from the
    // front would skip every deleted entry each time).
    this.slotOf = new Map(); // tx -> its slot
    this.transmissions = new Array(KNOWN_KEYS_SIZE).fill(null);
    this.unions = []; // slot -> Matches over its tx's observations [0, observationsMatched)
    this.next = 0;
  }

  /** Matches of tx's observations before `index` (none before the first: an empty union). */
  before(tx, index) {
    let slot = this.slotOf.get(tx);
    let union;
    if (slot !== undefined) {
      union = this.unions[slot];
      if (union.observationsMatched === index) return union;
    } else {
      slot = this.next;
      this.next = slot + 1 === KNOWN_KEYS_SIZE ? 0 : slot + 1;
      const previous = this.transmissions[slot];
      if (previous !== null) this.slotOf.delete(previous);
      this.transmissions[slot] = tx;
      this.slotOf.set(tx, slot);
      union = this.unions[slot];
      if (union === undefined) {
        union = new Matches();
        this.unions.push(union);
      }
    }
    union.clear();
    if (index > 0) {
      matchStatic(tx, union);
      const observations = tx.observations;
      for (let i = 0; i < index; i++) if (!seenPath(observations, i)) matchPath(observations[i].path, union);
    }
    union.observationsMatched = index;
    return union;
  }

  /** Fold the observation at `index` (whose keys are `own`) into tx's union. */
  advance(union, own, index) {
    if (union.observationsMatched !== index) return;
    for (let m = 0; m < own.size; m++) union.add(own.keys[m], own.flags[m]);
    union.observationsMatched = index + 1;
  }

  forget(tx) {
    const slot = this.slotOf.get(tx);
    if (slot === undefined) return;
    this.slotOf.delete(tx);
    this.transmissions[slot] = null;
    this.unions[slot].clear();
  }
}

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
    hours: new Map(), // hour start -> hour bucket (Float64Array, see below)
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

/**
 * One node's packets first heard in one hour, as one Float64Array (no boxed numbers, one
 * allocation): packets, SNR sum and count (the hourly trend), and what the longest silence
 * needs without a walk over packets: the first time, the newest TIME_TAIL times in order
 * (packets attributed late, when a later observation's path names the node, land a few seconds
 * back, inside this tail), and for the older "settled" times their last one and their longest
 * gap between consecutive packets (and where it ends). This stays exact while packets are added
 * inside the tail, before the first, or outside the settled longest gap, and while evictions
 * take times from the tail; otherwise EXACT turns 0 and the snapshot re-reads that one hour from
 * the store's indexes (eviction is oldest-first, so that is at most the node's oldest hour,
 * plus rare splits).
 */
const TIME_TAIL = 8;
// VERSION counts every change to the bucket's times (a packet added or taken back): the node
// view keeps hours it had to re-read from the store while their buckets' versions hold.
const H = {
  PACKETS: 0, SNR_SUM: 1, SNR_COUNT: 2, FIRST: 3, SETTLED_LAST: 4, MAX_GAP: 5, MAX_GAP_END: 6, EXACT: 7, TAIL_LENGTH: 8, VERSION: 9, TAIL: 10,
};
const HOUR_FIELDS = H.TAIL + TIME_TAIL;

function newHourBucket() {
  return new Float64Array(HOUR_FIELDS);
}

const HOUR_BYTES = BYTES.typedArray + HOUR_FIELDS * 8 + entryBytes(0.5);

/** Count one more packet at `time` in an hour bucket. */
function addTime(hour, time) {
  hour[H.VERSION]++;
  if (hour[H.PACKETS]++ === 0) {
    hour[H.FIRST] = time;
    hour[H.SETTLED_LAST] = NaN; // nothing settled yet
    hour[H.MAX_GAP] = 0;
    hour[H.MAX_GAP_END] = time;
    hour[H.EXACT] = 1;
    hour[H.TAIL] = time;
    hour[H.TAIL_LENGTH] = 1;
    return;
  }
  const settledLast = hour[H.SETTLED_LAST];
  if (Number.isNaN(settledLast) || time >= settledLast) {
    if (time < hour[H.FIRST]) hour[H.FIRST] = time; // nothing settled yet
    let length = hour[H.TAIL_LENGTH];
    if (length === TIME_TAIL) {
      if (time <= hour[H.TAIL]) {
        settle(hour, time);
        return;
      }
      settle(hour, hour[H.TAIL]);
      hour.copyWithin(H.TAIL, H.TAIL + 1, H.TAIL + length);
      length--;
    }
    let at = H.TAIL + length;
    while (at > H.TAIL && hour[at - 1] > time) {
      hour[at] = hour[at - 1];
      at--;
    }
    hour[at] = time;
    hour[H.TAIL_LENGTH] = length + 1;
  } else if (time < hour[H.FIRST]) {
    // An earlier gap as long as the longest becomes the longest: the first one in time wins.
    const gap = hour[H.FIRST] - time;
    if (gap > 0 && gap >= hour[H.MAX_GAP]) {
      hour[H.MAX_GAP] = gap;
      hour[H.MAX_GAP_END] = hour[H.FIRST];
    }
    hour[H.FIRST] = time;
  } else if (time > hour[H.MAX_GAP_END] - hour[H.MAX_GAP] && time < hour[H.MAX_GAP_END]) {
    hour[H.EXACT] = 0; // splits the settled longest gap: the next longest is not known
  }
}

/** Move a time (the oldest of the tail, or older) into the settled times. */
function settle(hour, time) {
  const settledLast = hour[H.SETTLED_LAST];
  if (!Number.isNaN(settledLast) && time - settledLast > hour[H.MAX_GAP]) {
    hour[H.MAX_GAP] = time - settledLast;
    hour[H.MAX_GAP_END] = time;
  }
  hour[H.SETTLED_LAST] = time;
}

/** Count one packet less: the oldest one (eviction is oldest-first). Returns the packets left. */
function removeOldestTime(hour) {
  hour[H.VERSION]++;
  const left = --hour[H.PACKETS];
  if (left === 0) return 0;
  if (Number.isNaN(hour[H.SETTLED_LAST])) {
    // All times are in the tail: drop its first, still exact.
    const length = hour[H.TAIL_LENGTH];
    hour.copyWithin(H.TAIL, H.TAIL + 1, H.TAIL + length);
    hour[H.TAIL_LENGTH] = length - 1;
    hour[H.FIRST] = hour[H.TAIL];
  } else {
    hour[H.EXACT] = 0;
  }
  return left;
}

/** { first, last, maxGap, maxGapEnd } of an hour bucket whose times are exact (the first longest gap). */
function hourTimes(hour) {
  const length = hour[H.TAIL_LENGTH];
  let maxGap = hour[H.MAX_GAP];
  let maxGapEnd = hour[H.MAX_GAP_END];
  let previous = Number.isNaN(hour[H.SETTLED_LAST]) ? hour[H.TAIL] : hour[H.SETTLED_LAST];
  for (let i = H.TAIL; i < H.TAIL + length; i++) {
    if (hour[i] - previous > maxGap) {
      maxGap = hour[i] - previous;
      maxGapEnd = hour[i];
    }
    previous = hour[i];
  }
  return { first: hour[H.FIRST], last: hour[H.TAIL + length - 1], maxGap, maxGapEnd };
}

class NodeTracker {
  constructor(store) {
    this.aggregates = new Map(); // key (public key, or 1/2/3-byte prefix) -> aggregate
    this.part = store && store.memory ? store.memory.part('nodeAggregates') : null;
    this.driver = null;
    this.lastObservation = null;
    this.lastApplied = null;
    this.lastEvicted = null;
    this.lastEvictedTouched = null;
    this.knownKeys = new KnownKeys();
    // For the last observation apply() worked on: firstNamed[m] is 1 when the key touched[m]
    // was named by no earlier observation of its transmission (the packet counts for it now).
    // The node view's minute rows read it instead of matching the earlier paths again.
    this.firstNamed = [];
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

  /** The aggregates a node's figures sum: its public key's and its 1-, 2- and 3-byte prefixes'. */
  nodeAggregates(pubKey) {
    const out = [];
    const own = this.aggregates.get(pubKey);
    if (own) out.push(own);
    for (let i = 0; i < KEY_LENGTHS.length; i++) {
      const aggregate = this.aggregates.get(pubKey.slice(0, KEY_LENGTHS[i]));
      if (aggregate) out.push(aggregate);
    }
    return out;
  }

  /** The keys whose versions a node's snapshot depends on. */
  static keysOf(pubKey) {
    return [pubKey, pubKey.slice(0, 2), pubKey.slice(0, 4), pubKey.slice(0, 6)];
  }

  /** apply() for view instance `owner`: the driving instance works, the others read its result. */
  applyFor(owner, tx, observation, store) {
    if (this.driver === null) this.driver = owner;
    if (owner === this.driver) {
      this.lastObservation = observation;
      this.lastApplied = this.apply(tx, observation, store);
      return this.lastApplied;
    }
    return observation === this.lastObservation ? this.lastApplied : null;
  }

  evictFor(owner, tx) {
    if (this.driver === null) this.driver = owner;
    if (owner === this.driver) {
      this.lastEvicted = tx;
      this.lastEvictedTouched = this.evict(tx);
      return this.lastEvictedTouched;
    }
    return tx === this.lastEvicted ? this.lastEvictedTouched : null;
  }

  /** Returns the keys whose aggregates changed. */
  apply(tx, observation) {
    // Without tx.observations: for a transmission of one or two observations it builds an array.
    let index = observationCountOf(tx) - 1;
    if (observationAt(tx, index) !== observation) index = observationIndexOf(tx, observation); // a late view catching up
    // The keys this observation names (the transmission's own, then its path), and those the
    // earlier observations of the same transmission named (none before the first).
    const own = matchPathSlots(observation.path, matchStatic(tx, scratchOwn.clear()), scratchHopSlots);
    const peers = scratchPeers.collect(tx, observation.path, own, scratchHopSlots);
    const before = this.knownKeys.before(tx, index);
    const touched = new Array(own.size);
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
      touched[m] = key;
    }
    this.knownKeys.advance(before, own, index);
    return touched;
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
    const start = dayStart(tx.time);
    if (start === aggregate.cachedDayStart) return aggregate.cachedDay;
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
    const start = hourBucket(tx.time);
    if (start === aggregate.cachedHourStart) return aggregate.cachedHour;
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

/** Is observations[i].path the same object as an earlier one's (already matched)? */
function seenPath(observations, i) {
  const path = observations[i].path;
  for (let j = 0; j < i; j++) if (observations[j].path === path) return true;
  return false;
}

/** Add the keys named by the transmission itself (advert key, src and dest hashes) to `matches`. */
function matchStatic(tx, matches) {
  if (tx.advert !== null) matches.add(tx.advert.pubKey, MATCHED);
  if (tx.srcHash !== null) matches.add(tx.srcHash, MATCHED);
  if (tx.destHash !== null) matches.add(tx.destHash, MATCHED);
  return matches;
}

function matchPath(path, matches) {
  for (let i = 0; i < path.length; i++) matches.add(path[i], MATCHED | HOP);
  return matches;
}

/** matchPath, also writing the index in `matches` of each hop to hopSlots[i]. */
function matchPathSlots(path, matches, hopSlots) {
  for (let i = 0; i < path.length; i++) hopSlots[i] = matches.add(path[i], MATCHED | HOP);
  return matches;
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

/** The store's indexes that hold a node's transmissions: its adverts and its three key prefixes. */
function nodeDeques(store, pubKey) {
  const deques = [];
  const adverts = store.byNode.get(pubKey);
  if (adverts) deques.push(adverts);
  for (const length of KEY_LENGTHS) {
    const deque = store.byPrefix.get(pubKey.slice(0, length));
    if (deque) deques.push(deque);
  }
  return deques;
}

/**
 * Visit a node's transmissions with time >= fromTime, oldest first, each once (a k-way merge
 * of its store indexes by seq); stops when `visit` returns false. O(its packets), no sort.
 */
function forEachTransmissionOfNode(store, pubKey, fromTime, visit) {
  const deques = nodeDeques(store, pubKey);
  const cursors = deques.map((deque) => (fromTime === -Infinity ? 0 : deque.lowerBoundTime(fromTime)));
  for (;;) {
    let next = null;
    for (let d = 0; d < deques.length; d++) {
      if (cursors[d] >= deques[d].length) continue;
      const tx = deques[d].at(cursors[d]);
      if (next === null || tx.seq < next.seq) next = tx;
    }
    if (next === null) return;
    for (let d = 0; d < deques.length; d++) {
      if (cursors[d] < deques[d].length && deques[d].at(cursors[d]) === next) cursors[d]++;
    }
    if (visit(next) === false) return;
  }
}

/** A node's newest `limit` transmissions, newest first (merge from the back of its indexes). */
function recentTransmissionsOfNode(store, pubKey, limit) {
  const deques = nodeDeques(store, pubKey);
  const cursors = deques.map((deque) => deque.length - 1);
  const out = [];
  while (out.length < limit) {
    let next = null;
    for (let d = 0; d < deques.length; d++) {
      if (cursors[d] < 0) continue;
      const tx = deques[d].at(cursors[d]);
      if (next === null || tx.seq > next.seq) next = tx;
    }
    if (next === null) break;
    for (let d = 0; d < deques.length; d++) {
      if (cursors[d] >= 0 && deques[d].at(cursors[d]) === next) cursors[d]--;
    }
    out.push(next);
  }
  return out;
}

function mean(sum, count) {
  return count > 0 ? sum / count : null;
}

/** Other known nodes sharing this node's first key byte: 1-byte hops may be theirs. */
function prefixSharers(store, pubKey) {
  return store.resolvePrefix(pubKey.slice(0, 2)).filter((node) => node.pubKey !== pubKey);
}

/** Per-observer figures over a node's aggregates (all their stored packets): observer record -> sums. */
function observerTotals(aggregates) {
  const totals = new Map();
  for (const aggregate of aggregates) {
    for (const day of aggregate.days.values()) {
      aggregate.tracker.forEachDayObserver(day, (observer, count, snrSum, snrCount, rssiSum, rssiCount) => {
        const total = totals.get(observer);
        if (!total) {
          totals.set(observer, { count, snrSum, snrCount, rssiSum, rssiCount });
          return;
        }
        total.count += count;
        total.snrSum += snrSum;
        total.snrCount += snrCount;
        total.rssiSum += rssiSum;
        total.rssiCount += rssiCount;
      });
    }
  }
  return totals;
}

/** Observers that heard any of the aggregates' stored packets. */
function observerCount(aggregates) {
  return aggregates.length === 0 ? 0 : aggregates[0].tracker.distinctObservers(aggregates);
}

/** Sums of a node's aggregates: { packets, relayed, hopsSum, snrSum, snrCount, rssiSum, rssiCount }. */
function sumAggregates(aggregates) {
  const total = { packets: 0, relayed: 0, hopsSum: 0, snrSum: 0, snrCount: 0, rssiSum: 0, rssiCount: 0 };
  for (const aggregate of aggregates) {
    total.packets += aggregate.packets;
    total.relayed += aggregate.relayed;
    total.hopsSum += aggregate.hopsSum;
    total.snrSum += aggregate.snrSum;
    total.snrCount += aggregate.snrCount;
    total.rssiSum += aggregate.rssiSum;
    total.rssiCount += aggregate.rssiCount;
  }
  return total;
}

/** The health figures shown for one node by `node` and `bulkHealth`, from its aggregates. */
function healthSummary(aggregates, node, now) {
  const todayStart = dayStart(now);
  let packetsToday = 0;
  for (const aggregate of aggregates) {
    const today = aggregate.days.get(todayStart);
    if (today) packetsToday += today.packets;
  }
  const total = sumAggregates(aggregates);
  return {
    status: nodeStatus(node, now),
    lastHeard: node.lastSeen,
    observerCount: observerCount(aggregates),
    packets: total.packets,
    packetsToday,
    meanSnr: mean(total.snrSum, total.snrCount),
    meanRssi: mean(total.rssiSum, total.rssiCount),
    meanHops: mean(total.hopsSum, total.packets),
  };
}

/** Signal grade from the mean and standard deviation of SNR (dB); null without SNR. */
function signalGrade(snrMean, snrStdDev) {
  if (snrMean === null) return null;
  if (snrMean > 15) return snrStdDev < 2 ? 'A' : 'A-';
  if (snrMean > 12 && snrStdDev < 3) return 'B+';
  if (snrMean > 8) return 'B';
  if (snrMean > 3) return 'C';
  return 'D';
}

module.exports = {
  NodeTracker,
  sharedTracker,
  forEachTransmissionOfNode,
  recentTransmissionsOfNode,
  healthSummary,
  sumAggregates,
  observerTotals,
  prefixSharers,
  signalGrade,
  mean,
  dayStart,
  hourTimes,
  HOUR_FIELD: H,
  HOP_BINS,
  // Hour-bucket time keeping, exported for its tests.
  newHourBucket,
  addTime,
  removeOldestTime,
};
