'use strict';
/**
 * Per-node aggregates shared by the `nodes`, `node` and `bulkHealth` views: which stored
 * transmissions belong to a node, and running sums over them, kept exact under eviction.
 *
 * "Its packets" (the same definition as store.transmissionsOfNode): a transmission belongs to
 * node P when it is P's advert, or its src/dest hash equals P's first byte, or a hop in the
 * path of ANY of its observations equals P's 1-, 2- or 3-byte key prefix. A transmission counts
 * once per node however many of these match.
 *
 * Ambiguity: hop, src and dest hashes are key prefixes (often one byte), so a prefix shared by
 * several known nodes counts toward every one of them. The views flag such nodes
 * (`ambiguousPrefix`); nothing here guesses which node it really was.
 *
 * How attribution stays exact without per-packet state:
 *   - apply(tx, observation) resolves the transmission's keys against the known nodes; a node
 *     matched for the first time by this observation gets the transmission's counts and the
 *     earlier observations' sums, and every matched node gets this observation's sums.
 *   - a node learned later than packets that mention its prefix (its first advert arrives
 *     after them) is back-filled once from the store's indexes (byNode + byPrefix), so its
 *     aggregates equal those of a node known from the start.
 *   - evict(tx) resolves the transmission again with all its observations and subtracts; the
 *     set of known nodes only grows, so this is exactly the set that was added to.
 * Cost per observation: O(hops of this and of the earlier observations of the same
 * transmission) Map operations; no scan of the store.
 *
 * One tracker per store serves all three views (sharedTracker), so the matching is done once
 * per observation and the aggregates are held once: the first view instance to call apply
 * drives it; the others, applied after it in registration order, read the result it memoized
 * for the same observation (and ignore the replay a late-registered view gets).
 */
const { bump, hourBucket, DAY_MS } = require('./view');
const { nodeStatus } = require('../node-status');

// Flags of one node's match with one transmission.
const MATCHED = 1;
const HOP = 2; // the node is a hop of some observed path: it relayed the packet

const KEY_LENGTHS = [2, 4, 6]; // hex lengths of 1-, 2- and 3-byte hash prefixes
const TYPE_COUNT = 16; // payload types are 4 bits

function dayStart(time) {
  return Math.floor(time / DAY_MS) * DAY_MS;
}

function hopBin(hopCount) {
  return hopCount >= 4 ? 4 : hopCount;
}

/** Is `prefix` (a hop, src or dest hash: 2, 4 or 6 hex) one of the aggregate's key prefixes? */
function isOwnPrefix(aggregate, prefix) {
  // One short-string comparison (the key prefix of the same length) instead of startsWith on the
  // 64-hex key: this runs for every hop of every observation of every matched node.
  return prefix === aggregate.keyPrefixes[(prefix.length >> 1) - 1];
}

/**
 * Peers of a node in one observation: hops next to it in the path, the first hop when it is
 * the packet's origin (its advert or src), and the src/dest counterpart. Its own prefixes are
 * not peers (a repeated prefix cannot be told apart from the node itself). Fills and returns
 * `peers` (a scratch array, reused to spare an allocation per call).
 */
function adjacentPeers(aggregate, tx, path, peers) {
  peers.length = 0;
  for (let i = 0; i < path.length; i++) {
    if (!isOwnPrefix(aggregate, path[i])) continue;
    if (i > 0) addPeer(aggregate, path[i - 1], peers);
    if (i + 1 < path.length) addPeer(aggregate, path[i + 1], peers);
  }
  const fromSrc = tx.srcHash !== null && isOwnPrefix(aggregate, tx.srcHash);
  const isSource = fromSrc || (tx.advert !== null && tx.advert.pubKey === aggregate.pubKey);
  if (isSource && path.length > 0) addPeer(aggregate, path[0], peers);
  if (tx.srcHash !== null && tx.destHash !== null) {
    if (fromSrc) addPeer(aggregate, tx.destHash, peers);
    if (isOwnPrefix(aggregate, tx.destHash)) addPeer(aggregate, tx.srcHash, peers);
  }
  return peers;
}

function addPeer(aggregate, prefix, peers) {
  if (!isOwnPrefix(aggregate, prefix) && peers.indexOf(prefix) < 0) peers.push(prefix);
}

const scratchPeers = [];

/** The nodes one transmission matches, with flags: a handful at most, so arrays beat a Map. */
class Matches {
  constructor() {
    this.aggregates = [];
    this.flags = [];
  }

  add(aggregate, flags) {
    const at = this.aggregates.indexOf(aggregate);
    if (at < 0) {
      this.aggregates.push(aggregate);
      this.flags.push(flags);
    } else {
      this.flags[at] |= flags;
    }
  }

  flagsOf(aggregate) {
    const at = this.aggregates.indexOf(aggregate);
    return at < 0 ? 0 : this.flags[at];
  }

  copy() {
    const copy = new Matches();
    copy.aggregates = this.aggregates.slice();
    copy.flags = this.flags.slice();
    return copy;
  }
}

const NO_MATCHES = new Matches();

function emptyAggregate(pubKey) {
  return {
    pubKey,
    keyPrefixes: KEY_LENGTHS.map((length) => pubKey.slice(0, length)),
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
function newDayBucket() {
  return {
    packets: 0,
    relayed: 0,
    snrSum: 0,
    snrSquares: 0,
    snrCount: 0,
    hops: new Int32Array(5), // 0, 1, 2, 3, 4+
    types: new Int32Array(TYPE_COUNT), // payload type -> packets
    observers: new Map(), // observer record -> { count, snrSum, snrCount, rssiSum, rssiCount } (observations)
    peers: new Map(), // prefix -> observations in which it was adjacent
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
const H = {
  PACKETS: 0, SNR_SUM: 1, SNR_COUNT: 2, FIRST: 3, SETTLED_LAST: 4, MAX_GAP: 5, MAX_GAP_END: 6, EXACT: 7, TAIL_LENGTH: 8, TAIL: 9,
};
const HOUR_FIELDS = H.TAIL + TIME_TAIL;

function newHourBucket() {
  return new Float64Array(HOUR_FIELDS);
}

/** Count one more packet at `time` in an hour bucket. */
function addTime(hour, time) {
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
  constructor() {
    this.aggregates = new Map(); // public key -> aggregate
    this.byFirstByte = new Map(); // first key byte (hex) -> [aggregate], to resolve prefixes
    this.driver = null;
    this.lastObservation = null;
    this.lastApplied = null;
    this.lastEvicted = null;
    this.lastEvictedTouched = null;
  }

  /** Aggregate of a node, or an empty one for a node with no stored packets. */
  aggregate(pubKey) {
    return this.aggregates.get(pubKey) || emptyAggregate(pubKey);
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

  /** Returns the public keys whose aggregates changed. */
  apply(tx, observation, store) {
    const touched = this.nodesLearned(store, tx.seq);
    const observations = tx.observations;
    let index = observations.length - 1;
    if (observations[index] !== observation) index = observations.indexOf(observation); // a late view catching up
    // Nodes the earlier observations matched (none before the first), then with this one.
    let before = NO_MATCHES;
    let after;
    if (index === 0) {
      after = this.matchPath(observation.path, this.matchStatic(tx));
    } else {
      before = this.matchStatic(tx);
      let newPath = true;
      for (let i = 0; i < index; i++) {
        const path = observations[i].path;
        if (path === observation.path) newPath = false;
        if (!this.seenPath(observations, i)) this.matchPath(path, before);
      }
      // An earlier observation with the very same path object: nothing new is matched.
      after = newPath ? this.matchPath(observation.path, before.copy()) : before;
    }
    for (let m = 0; m < after.aggregates.length; m++) {
      const aggregate = after.aggregates[m];
      const flags = after.flags[m];
      const previous = before.flagsOf(aggregate);
      if (previous === 0) {
        this.addTransmission(aggregate, tx, flags, 1);
        for (let i = 0; i < index; i++) this.addObservation(aggregate, tx, observations[i], 1);
      } else if (flags & HOP && !(previous & HOP)) {
        this.addRelay(aggregate, tx, 1);
      }
      this.addObservation(aggregate, tx, observation, 1);
      touched.push(aggregate.pubKey);
    }
    return touched;
  }

  /** Subtract everything apply added for `tx` (all its observations still attached). */
  evict(tx) {
    const matches = this.matchStatic(tx);
    for (let i = 0; i < tx.observations.length; i++) {
      if (!this.seenPath(tx.observations, i)) this.matchPath(tx.observations[i].path, matches);
    }
    const touched = [];
    for (let m = 0; m < matches.aggregates.length; m++) {
      const aggregate = matches.aggregates[m];
      for (const observation of tx.observations) this.addObservation(aggregate, tx, observation, -1);
      this.addTransmission(aggregate, tx, matches.flags[m], -1);
      touched.push(aggregate.pubKey);
    }
    return touched;
  }

  /** Is observations[i].path the same object as an earlier one's (already matched)? */
  seenPath(observations, i) {
    const path = observations[i].path;
    for (let j = 0; j < i; j++) if (observations[j].path === path) return true;
    return false;
  }

  /** Nodes matched by the transmission itself: advert key, src and dest hashes. */
  matchStatic(tx) {
    const matches = new Matches();
    if (tx.advert !== null) {
      const aggregate = this.aggregates.get(tx.advert.pubKey);
      if (aggregate) matches.add(aggregate, MATCHED);
    }
    if (tx.srcHash !== null) this.matchPrefix(tx.srcHash, matches, MATCHED);
    if (tx.destHash !== null && tx.destHash !== tx.srcHash) this.matchPrefix(tx.destHash, matches, MATCHED);
    return matches;
  }

  matchPath(path, matches) {
    for (let i = 0; i < path.length; i++) this.matchPrefix(path[i], matches, MATCHED | HOP);
    return matches;
  }

  matchPrefix(prefix, matches, flags) {
    const candidates = this.byFirstByte.get(prefix.length === 2 ? prefix : prefix.slice(0, 2));
    if (!candidates) return;
    for (let i = 0; i < candidates.length; i++) {
      const aggregate = candidates[i];
      if (prefix.length > 2 && !aggregate.pubKey.startsWith(prefix)) continue;
      matches.add(aggregate, flags);
    }
  }

  /**
   * Start tracking nodes the store learned since the last call (normally the one whose first
   * advert is `tx`), back-filling them from the store's indexes with every transmission this
   * tracker has already applied (seq below `seq`).
   */
  nodesLearned(store, seq) {
    const touched = [];
    if (this.aggregates.size === store.nodes.size) return touched;
    for (const pubKey of store.nodes.keys()) {
      if (this.aggregates.has(pubKey)) continue;
      const aggregate = emptyAggregate(pubKey);
      this.aggregates.set(pubKey, aggregate);
      const firstByte = pubKey.slice(0, 2);
      if (!this.byFirstByte.has(firstByte)) this.byFirstByte.set(firstByte, []);
      this.byFirstByte.get(firstByte).push(aggregate);
      forEachTransmissionOfNode(store, pubKey, -Infinity, (old) => {
        if (old.seq >= seq) return false;
        const flags = matchFlagsFor(aggregate, old);
        this.addTransmission(aggregate, old, flags, 1);
        for (const observation of old.observations) this.addObservation(aggregate, old, observation, 1);
        return true;
      });
      touched.push(pubKey);
    }
    return touched;
  }

  addTransmission(aggregate, tx, flags, sign) {
    const relayed = flags & HOP ? sign : 0;
    aggregate.packets += sign;
    aggregate.relayed += relayed;
    aggregate.hopsSum += sign * tx.hopCount;
    const day = this.dayOf(aggregate, tx);
    day.packets += sign;
    day.relayed += relayed;
    day.hops[hopBin(tx.hopCount)] += sign;
    day.types[tx.payloadType] += sign;
    // Observations are subtracted before this, so an empty bucket holds nothing else.
    if (day.packets === 0) {
      aggregate.days.delete(dayStart(tx.time));
      aggregate.cachedDayStart = NaN;
    }
    const hour = this.hourOf(aggregate, tx);
    if (sign > 0) addTime(hour, tx.time);
    else if (removeOldestTime(hour) === 0) {
      aggregate.hours.delete(hourBucket(tx.time));
      aggregate.cachedHourStart = NaN;
    }
  }

  addRelay(aggregate, tx, sign) {
    aggregate.relayed += sign;
    this.dayOf(aggregate, tx).relayed += sign;
  }

  addObservation(aggregate, tx, observation, sign) {
    const { snr, rssi, observer } = observation;
    const day = this.dayOf(aggregate, tx);
    let perObserver = day.observers.get(observer);
    if (!perObserver) {
      perObserver = { count: 0, snrSum: 0, snrCount: 0, rssiSum: 0, rssiCount: 0 };
      day.observers.set(observer, perObserver);
    }
    perObserver.count += sign;
    if (snr !== null) {
      aggregate.snrSum += sign * snr;
      aggregate.snrCount += sign;
      perObserver.snrSum += sign * snr;
      perObserver.snrCount += sign;
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
      perObserver.rssiSum += sign * rssi;
      perObserver.rssiCount += sign;
    }
    if (perObserver.count === 0) day.observers.delete(observer);
    const peers = adjacentPeers(aggregate, tx, observation.path, scratchPeers);
    for (let i = 0; i < peers.length; i++) bump(day.peers, peers[i], sign);
  }

  dayOf(aggregate, tx) {
    const start = dayStart(tx.time);
    if (start === aggregate.cachedDayStart) return aggregate.cachedDay;
    let day = aggregate.days.get(start);
    if (!day) {
      day = newDayBucket();
      aggregate.days.set(start, day);
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
    tracker = new NodeTracker();
    trackers.set(store, tracker);
  }
  return tracker;
}

/** How one transmission matches one node (for back-fill): always MATCHED, plus HOP if relayed. */
function matchFlagsFor(aggregate, tx) {
  for (const observation of tx.observations) {
    for (const hop of observation.path) if (isOwnPrefix(aggregate, hop)) return MATCHED | HOP;
  }
  return MATCHED;
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

/** Per-observer figures over all of a node's stored packets: observer record -> sums. */
function observerTotals(aggregate) {
  const totals = new Map();
  for (const day of aggregate.days.values()) {
    for (const [observer, sums] of day.observers) {
      const total = totals.get(observer);
      if (!total) {
        totals.set(observer, { ...sums });
        continue;
      }
      total.count += sums.count;
      total.snrSum += sums.snrSum;
      total.snrCount += sums.snrCount;
      total.rssiSum += sums.rssiSum;
      total.rssiCount += sums.rssiCount;
    }
  }
  return totals;
}

/** Observers that heard any of a node's stored packets. */
function observerCount(aggregate) {
  if (aggregate.days.size === 1) return aggregate.days.values().next().value.observers.size;
  const observers = new Set();
  for (const day of aggregate.days.values()) for (const observer of day.observers.keys()) observers.add(observer);
  return observers.size;
}

/** The health figures shown for one node by `node` and `bulkHealth`. */
function healthSummary(aggregate, node, now) {
  const today = aggregate.days.get(dayStart(now));
  return {
    status: nodeStatus(node, now),
    lastHeard: node.lastSeen,
    observerCount: observerCount(aggregate),
    packets: aggregate.packets,
    packetsToday: today ? today.packets : 0,
    meanSnr: mean(aggregate.snrSum, aggregate.snrCount),
    meanRssi: mean(aggregate.rssiSum, aggregate.rssiCount),
    meanHops: mean(aggregate.hopsSum, aggregate.packets),
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
  observerTotals,
  prefixSharers,
  signalGrade,
  mean,
  dayStart,
  hourTimes,
  HOUR_FIELD: H,
  // Hour-bucket time keeping, exported for its tests.
  newHourBucket,
  addTime,
  removeOldestTime,
};
