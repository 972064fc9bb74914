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
const { bump, hourBucket, HOUR_MS, DAY_MS } = require('./view');
const { nodeStatus } = require('../node-status');

// Flags of one node's match with one transmission.
const MATCHED = 1;
const HOP = 2; // the node is a hop of some observed path: it relayed the packet

const KEY_LENGTHS = [2, 4, 6]; // hex lengths of 1-, 2- and 3-byte hash prefixes
const NO_MATCHES = new Map();
const TYPE_COUNT = 16; // payload types are 4 bits

function hopBin(hopCount) {
  return hopCount >= 4 ? 4 : hopCount;
}

/** Is `prefix` (a hop, src or dest hash) one of the node's key prefixes? */
function isOwnPrefix(pubKey, prefix) {
  return pubKey.startsWith(prefix);
}

/**
 * Peers of a node in one observation: hops next to it in the path, the first hop when it is
 * the packet's origin (its advert or src), and the src/dest counterpart. Its own prefixes are
 * not peers (a repeated prefix cannot be told apart from the node itself).
 */
function adjacentPeers(pubKey, tx, path) {
  const peers = [];
  const add = (prefix) => {
    if (!isOwnPrefix(pubKey, prefix) && !peers.includes(prefix)) peers.push(prefix);
  };
  for (let i = 0; i < path.length; i++) {
    if (!isOwnPrefix(pubKey, path[i])) continue;
    if (i > 0) add(path[i - 1]);
    if (i + 1 < path.length) add(path[i + 1]);
  }
  const isSource = (tx.advert !== null && tx.advert.pubKey === pubKey) || (tx.srcHash !== null && isOwnPrefix(pubKey, tx.srcHash));
  if (isSource && path.length > 0) add(path[0]);
  if (tx.srcHash !== null && tx.destHash !== null) {
    if (isOwnPrefix(pubKey, tx.srcHash)) add(tx.destHash);
    if (isOwnPrefix(pubKey, tx.destHash)) add(tx.srcHash);
  }
  return peers;
}

function emptyAggregate(pubKey) {
  return {
    pubKey,
    packets: 0,
    relayed: 0,
    hopsSum: 0,
    snrSum: 0,
    snrCount: 0,
    rssiSum: 0,
    rssiCount: 0,
    observers: new Map(), // observer id -> { count, snrSum, snrCount, rssiSum, rssiCount } (observations)
    hours: new Map(), // hour start -> hour bucket
  };
}

/**
 * One node's packets first heard in one hour. Besides counts and sums it keeps what the
 * longest silence needs without a walk over packets: the first packet time, the newest
 * TIME_TAIL times in order (packets attributed late, when a later observation's path names the
 * node, land a few seconds back, inside this tail), and for the older "settled" times their
 * last one and their longest gap between consecutive packets (and where it ends). All of this
 * stays exact while packets are added inside the tail, before the first, or outside the
 * settled longest gap; when the oldest packet is evicted or a packet splits the settled longest
 * gap, `timesExact` turns false and the snapshot re-reads that one hour from the store's
 * indexes (eviction is oldest-first, so that is at most the node's oldest hour, plus rare splits).
 */
const TIME_TAIL = 32;

function newHourBucket() {
  return {
    packets: 0,
    relayed: 0,
    snrSum: 0,
    snrSquares: 0,
    snrCount: 0,
    first: 0,
    settledLast: NaN, // NaN: no settled times yet
    maxGap: 0, // longest gap among settled times
    maxGapEnd: 0,
    tail: [], // newest times, ascending
    timesExact: true,
    hops: new Int32Array(5), // 0, 1, 2, 3, 4+
    types: new Int32Array(TYPE_COUNT), // payload type -> packets
    observers: new Map(), // observer id -> observations
    peers: new Map(), // prefix -> observations in which it was adjacent
  };
}

function addTime(hour, time) {
  const tail = hour.tail;
  if (hour.packets === 0) {
    hour.first = time;
    hour.settledLast = NaN;
    hour.maxGap = 0;
    hour.maxGapEnd = time;
    hour.timesExact = true;
    tail.length = 0;
    tail.push(time);
    return;
  }
  if (Number.isNaN(hour.settledLast) || time >= hour.settledLast) {
    let at = tail.length;
    while (at > 0 && tail[at - 1] > time) at--;
    tail.splice(at, 0, time);
    if (time < hour.first) hour.first = time; // nothing settled yet
    if (tail.length > TIME_TAIL) settleOldest(hour);
  } else if (time < hour.first) {
    // An earlier gap as long as the longest becomes the longest: the first one in time wins.
    const gap = hour.first - time;
    if (gap > 0 && gap >= hour.maxGap) {
      hour.maxGap = gap;
      hour.maxGapEnd = hour.first;
    }
    hour.first = time;
  } else if (time > hour.maxGapEnd - hour.maxGap && time < hour.maxGapEnd) {
    hour.timesExact = false; // splits the settled longest gap: the next longest is not known
  }
}

function settleOldest(hour) {
  const time = hour.tail.shift();
  if (!Number.isNaN(hour.settledLast) && time - hour.settledLast > hour.maxGap) {
    hour.maxGap = time - hour.settledLast;
    hour.maxGapEnd = time;
  }
  hour.settledLast = time;
}

/** { first, last, maxGap, maxGapEnd } of an hour bucket whose times are exact (the first longest gap). */
function hourTimes(hour) {
  const tail = hour.tail;
  let { maxGap, maxGapEnd } = hour;
  let previous = Number.isNaN(hour.settledLast) ? tail[0] : hour.settledLast;
  for (let i = 0; i < tail.length; i++) {
    if (tail[i] - previous > maxGap) {
      maxGap = tail[i] - previous;
      maxGapEnd = tail[i];
    }
    previous = tail[i];
  }
  return { first: hour.first, last: tail[tail.length - 1], maxGap, maxGapEnd };
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
      after = newPath ? this.matchPath(observation.path, new Map(before)) : before;
    }
    for (const [aggregate, flags] of after) {
      const previous = before.get(aggregate);
      if (previous === undefined) {
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
    const matches = this.matchAll(tx, tx.observations.length);
    const touched = [];
    for (const [aggregate, flags] of matches) {
      for (const observation of tx.observations) this.addObservation(aggregate, tx, observation, -1);
      this.addTransmission(aggregate, tx, flags, -1);
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

  matchAll(tx, observationCount) {
    const matches = this.matchStatic(tx);
    for (let i = 0; i < observationCount; i++) {
      if (!this.seenPath(tx.observations, i)) this.matchPath(tx.observations[i].path, matches);
    }
    return matches;
  }

  /** Nodes matched by the transmission itself: advert key, src and dest hashes. */
  matchStatic(tx) {
    const matches = new Map();
    if (tx.advert !== null) {
      const aggregate = this.aggregates.get(tx.advert.pubKey);
      if (aggregate) matches.set(aggregate, MATCHED);
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
      matches.set(aggregate, (matches.get(aggregate) || 0) | flags);
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
        const flags = matchFlagsFor(pubKey, old);
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
    const hour = this.hourOf(aggregate, tx);
    if (sign > 0) addTime(hour, tx.time);
    else hour.timesExact = false; // its oldest packet left (eviction is oldest-first)
    hour.packets += sign;
    hour.relayed += relayed;
    hour.hops[hopBin(tx.hopCount)] += sign;
    hour.types[tx.payloadType] += sign;
    if (hour.packets === 0) aggregate.hours.delete(hourBucket(tx.time)); // its observations were subtracted first
  }

  addRelay(aggregate, tx, sign) {
    aggregate.relayed += sign;
    this.hourOf(aggregate, tx).relayed += sign;
  }

  addObservation(aggregate, tx, observation, sign) {
    const { snr, rssi } = observation;
    const id = observation.observer.id;
    let perObserver = aggregate.observers.get(id);
    if (!perObserver) {
      perObserver = { count: 0, snrSum: 0, snrCount: 0, rssiSum: 0, rssiCount: 0 };
      aggregate.observers.set(id, perObserver);
    }
    perObserver.count += sign;
    const hour = this.hourOf(aggregate, tx);
    if (snr !== null) {
      aggregate.snrSum += sign * snr;
      aggregate.snrCount += sign;
      perObserver.snrSum += sign * snr;
      perObserver.snrCount += sign;
      hour.snrSum += sign * snr;
      hour.snrSquares += sign * snr * snr;
      hour.snrCount += sign;
    }
    if (rssi !== null) {
      aggregate.rssiSum += sign * rssi;
      aggregate.rssiCount += sign;
      perObserver.rssiSum += sign * rssi;
      perObserver.rssiCount += sign;
    }
    if (perObserver.count === 0) aggregate.observers.delete(id);
    bump(hour.observers, id, sign);
    const peers = adjacentPeers(aggregate.pubKey, tx, observation.path);
    for (let i = 0; i < peers.length; i++) bump(hour.peers, peers[i], sign);
  }

  hourOf(aggregate, tx) {
    const start = hourBucket(tx.time);
    let hour = aggregate.hours.get(start);
    if (!hour) {
      hour = newHourBucket();
      aggregate.hours.set(start, hour);
    }
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
function matchFlagsFor(pubKey, tx) {
  for (const observation of tx.observations) {
    for (const hop of observation.path) if (isOwnPrefix(pubKey, hop)) return MATCHED | HOP;
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

function utcMidnight(now) {
  return Math.floor(now / DAY_MS) * DAY_MS;
}

/** Packets first heard on the UTC day of `now` (its 24 hour buckets). */
function packetsOnDayOf(aggregate, now) {
  const midnight = utcMidnight(now);
  let packets = 0;
  for (let start = midnight; start < midnight + DAY_MS; start += HOUR_MS) {
    const hour = aggregate.hours.get(start);
    if (hour) packets += hour.packets;
  }
  return packets;
}

/** Other known nodes sharing this node's first key byte: 1-byte hops may be theirs. */
function prefixSharers(store, pubKey) {
  return store.resolvePrefix(pubKey.slice(0, 2)).filter((node) => node.pubKey !== pubKey);
}

/** The health figures shown for one node by `node` and `bulkHealth`. */
function healthSummary(aggregate, node, now) {
  return {
    status: nodeStatus(node, now),
    lastHeard: node.lastSeen,
    observerCount: aggregate.observers.size,
    packets: aggregate.packets,
    packetsToday: packetsOnDayOf(aggregate, now),
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
  prefixSharers,
  signalGrade,
  mean,
  // Hour-bucket time keeping, exported for its tests.
  newHourBucket,
  addTime,
  hourTimes,
};
