'use strict';
/**
 * node: one node in detail. Its directory entry, its last 20 adverts, its health (observers
 * hearing it, packets, packets today, mean SNR/RSSI/hops, last heard, 10 recent packets) and
 * analytics over the last `days` days (hourly activity, SNR trend, packet types, observer
 * coverage, hop distribution, top peers, weekday x hour heatmap, availability, longest
 * silence, relay share, SNR mean/deviation and a signal grade).
 *
 * Activity and SNR trend come per time bucket (`bucket`, time-buckets.js): hours from the shared
 * node aggregates, and minutes (newest 3 hours) or 5/15 minutes (newest 24 hours) from this
 * view's own per-key counts, kept as packets arrive and leave with the same per-key definition
 * (a packet counts once per key that names it; a key's SNR sums the observations naming it).
 * 'auto' picks the finest size with at most 180 buckets from when the node was first heard (in
 * the window) to now. The heatmap, availability and longest silence stay hourly.
 *
 * "Its packets" and how 1-byte prefixes shared by several nodes count: see node-tracker.js;
 * `ambiguousPrefix` says when this node shares its first key byte with another known node,
 * so that 1-byte hops, src and dest hashes counted here may be the other node's;
 * `sharesPrefixWith` lists them with their roles (only repeaters can be a hop's other node).
 *
 * The window is whole UTC days: the last `days` calendar days, today included (from UTC midnight
 * `days - 1` days ago). Figures over the window come from per-day buckets (types, hops, relays,
 * SNR mean and spread, observers, peers) and per-hour buckets (activity, SNR trend, heatmap,
 * availability, longest silence) kept as packets arrive and leave: O(days * 24) at snapshot.
 * Availability is the share of the window's hours so far (through the hour holding `now`) with
 * at least one packet. The longest silence is the longest gap from the window start to the
 * first packet, between consecutive packets, or from the last packet to `now`, from each hour's
 * first/last time and longest inner gap; the rare hour whose inner times are no longer exact
 * (see hour-times.js) is re-read from the store's indexes (O(its packets in that hour)), and
 * that read is kept until one of the hour's buckets changes (HourReads).
 *
 * Definitions: SNR/RSSI figures are over every observation of the node's packets (a packet's
 * `snr` in recentPackets is the mean of its observations); hops are the packet's hop count as
 * first heard; relayed = packets whose observed paths name the node as a hop (relayPct is its
 * share of the window's packets); a peer's count is the number of observations in which it was
 * next to the node (see ObservationPeers in observation-keys.js); observer counts are observations.
 *
 * Subscribers are told only about their node: apply/evict return the public keys whose
 * aggregates changed, and scopeOf is the public key.
 */
const { defineView, memoryPart, topEntries, hourBucket, HOUR_MS, DAY_MS } = require('./view');
const { TimeCounts, chooseBucket, describeBucket, bucketParam, newestTime, HOUR_MS: ONE_HOUR } = require('./time-buckets');
const { NodeTracker, sharedTracker, HOP_BINS, dayStart } = require('./node-tracker');
const { hourTimes, HOUR_FIELD: H } = require('./hour-times');
const {
  healthSummary, observerTotals, prefixSharers, signalGrade, mean, forEachTransmissionOfNode, recentTransmissionsOfNode,
} = require('./node-health');
const { nodeStatus } = require('../node-status');
const { PAYLOAD_TYPES } = require('../decode');
const { forwardersOf } = require('../hop-resolver');
const { addressKey, isAddressKey, hexOfKey } = require('./observation-keys');
const { nodeBrief } = require('./aggregates');

const PUBLIC_KEY_RE = /^[0-9a-fA-F]{64}$/;
const ADVERT_LIMIT = 20;
const RECENT_LIMIT = 10;
const PEER_LIMIT = 20;
const HOP_LABELS = ['0', '1', '2', '3', '4+'];
const EPOCH_WEEKDAY = 4; // 1970-01-01 was a Thursday (getUTCDay: Sunday = 0)

function byCountThenKey(a, b) {
  return b.count - a.count || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
}

function meanSnrOf(tx) {
  let sum = 0;
  let count = 0;
  for (const observation of tx.observations) {
    if (observation.snr !== null) {
      sum += observation.snr;
      count++;
    }
  }
  return mean(sum, count);
}

function describeAdvert(tx) {
  const observers = [];
  for (const observation of tx.observations) if (!observers.includes(observation.observer.id)) observers.push(observation.observer.id);
  const { timestamp, name, lat, lon, role } = tx.advert;
  return { time: tx.time, timestamp, name, lat, lon, role, observers };
}

/** Standard deviation from a count, a sum and a sum of squares (population). */
function standardDeviation(count, sum, squares) {
  if (count === 0) return null;
  const variance = (count * squares - sum * sum) / (count * count);
  return variance > 0 ? Math.sqrt(variance) : 0;
}

/** First and last packet time of one hour and its longest inner gap, read from the store's indexes. */
function readHourTimes(store, node, start) {
  const times = { first: null, last: null, maxGap: 0, maxGapEnd: null };
  forEachTransmissionOfNode(store, node, start, (tx) => {
    if (tx.time >= start + HOUR_MS) return false;
    if (times.first === null) times.first = tx.time;
    else if (tx.time - times.last > times.maxGap) {
      times.maxGap = tx.time - times.last;
      times.maxGapEnd = tx.time;
    }
    times.last = tx.time;
    return true;
  });
  return times;
}

// Hours a snapshot had to re-read, kept per node and hour (see HourReads).
const HOUR_READS_LIMIT = 1024;

/**
 * The hours a snapshot re-read from the store, kept while they cannot have changed. On a large
 * mesh a busy node's every hour is shared by its key's and its prefixes' buckets, and each is
 * re-read at every snapshot (about half of a busy node's snapshot: ~12,000 transmissions read
 * for 7 hours at 300k reports). An hour's transmissions change only through its buckets (every
 * packet added or taken back moves a bucket's VERSION, hour-times.js), so a kept read is
 * valid while the hour has the same bucket objects at the same versions. Bounded: at most
 * `limit` hours, the least recently used go first (~2 KB each at worst, when it is the last holder
 * of its 4 buckets: about 2 MB at the default limit, not charged to the budget).
 */
class HourReads {
  constructor(limit = HOUR_READS_LIMIT) {
    this.limit = limit;
    this.kept = new Map(); // `${pubKey}@${role}@${start}` -> { buckets, versions, times }
    this.hits = 0;
    this.reads = 0;
  }

  /** readHourTimes(store, node, start), or the kept answer while `buckets` are unchanged. */
  times(store, node, start, buckets) {
    // The role is part of the key: it says which of the store's indexes are the node's.
    const key = `${node.pubKey}@${node.role}@${start}`;
    const kept = this.kept.get(key);
    if (kept !== undefined) {
      this.kept.delete(key); // re-inserted below: the Map's order is least recently used first
      if (sameBuckets(kept, buckets)) {
        this.hits++;
        this.kept.set(key, kept);
        return kept.times;
      }
    }
    this.reads++;
    const times = readHourTimes(store, node, start);
    if (this.limit > 0) {
      this.kept.set(key, { buckets: buckets.slice(), versions: buckets.map((bucket) => bucket[H.VERSION]), times });
      if (this.kept.size > this.limit) this.kept.delete(this.kept.keys().next().value);
    }
    return times;
  }
}

function sameBuckets(kept, buckets) {
  if (kept.buckets.length !== buckets.length) return false;
  for (let i = 0; i < buckets.length; i++) {
    if (kept.buckets[i] !== buckets[i] || kept.versions[i] !== buckets[i][H.VERSION]) return false;
  }
  return true;
}

/**
 * What the summaries tell about one hour held by several keys' buckets, without reading the
 * store: the union's first and last time, and an upper bound on its longest inner gap (a gap of
 * the union lies inside a gap of every bucket, or before its first or after its last packet).
 * Null when a bucket's times are not exact (then the hour must be read).
 */
function unionBounds(buckets) {
  const all = [];
  for (const bucket of buckets) {
    if (!bucket[H.EXACT]) return null;
    all.push(hourTimes(bucket));
  }
  let first = Infinity;
  let last = -Infinity;
  for (const times of all) {
    if (times.first < first) first = times.first;
    if (times.last > last) last = times.last;
  }
  let bound = Infinity;
  for (const times of all) bound = Math.min(bound, Math.max(times.maxGap, times.first - first, last - times.last));
  return { first, last, bound };
}

/**
 * Longest time without a packet in [from, now]: the gaps from `from` to the first packet,
 * between consecutive packets, and from the last packet to now (the first longest one in time).
 * `hours` are the non-empty hours from `from` on, oldest first: [start, buckets], one bucket
 * per key aggregate that has packets in that hour. An hour held by one exact bucket gives its
 * times directly. An hour shared by several keys gives its first and last time and a bound on
 * its longest inner gap from the summaries; it is re-read from the store's indexes only when
 * that bound could reach the longest gap found elsewhere (a busy node's hours almost never can),
 * so the figure stays exact at a fraction of the reads.
 */
function longestSilence(store, node, hours, from, now, hourReads) {
  const read = (start, buckets) => hourReads.times(store, node, start, buckets);
  // Pass 1: every hour's first and last time, its inner gap when known, or a bound on it.
  const rows = hours.map(([start, buckets]) => {
    if (buckets.length === 1 && buckets[0][H.EXACT]) return { start, exact: true, ...hourTimes(buckets[0]) };
    const union = buckets.length > 1 ? unionBounds(buckets) : null;
    if (union === null) return { start, exact: true, ...read(start, buckets) };
    return { start, buckets, exact: false, first: union.first, last: union.last, bound: union.bound };
  });
  // The longest gap between hours (and at the edges) bounds what an inner gap must reach.
  let longestBetween = 0;
  let previous = from;
  for (const row of rows) {
    longestBetween = Math.max(longestBetween, row.first - previous);
    if (row.exact) longestBetween = Math.max(longestBetween, row.maxGap);
    previous = row.last;
  }
  longestBetween = Math.max(longestBetween, now - previous);
  // Pass 2: read the shared hours whose inner gap could reach it (ties included: the first wins).
  for (const row of rows) {
    if (!row.exact && row.bound >= longestBetween) Object.assign(row, read(row.start, row.buckets), { exact: true });
  }
  // Pass 3: the first longest gap in time, over exact figures (a bounded hour cannot hold it).
  previous = from;
  let longest = { ms: 0, from, to: from };
  for (const row of rows) {
    if (row.first - previous > longest.ms) longest = { ms: row.first - previous, from: previous, to: row.first };
    if (row.exact && row.maxGap > longest.ms) longest = { ms: row.maxGap, from: row.maxGapEnd - row.maxGap, to: row.maxGapEnd };
    previous = row.last;
  }
  if (now - previous > longest.ms) longest = { ms: now - previous, from: previous, to: now };
  return longest;
}

// Fine time rows per key: [packets, snr sum, snr count]; hours live in the shared aggregates.
const PACKETS = 0;
const SNR_SUM = 1;
const SNR_COUNT = 2;
const FINE_LEVELS = [{ name: 'minute', keepMs: 3 * ONE_HOUR }, { name: '5min', keepMs: 24 * ONE_HOUR }];

/** Keys an observation names (observation-keys.js): the advert key, src and dest address keys, its path's hops; each once. */
function keysNamedBy(tx, observation, keys) {
  keys.length = 0;
  if (tx.advert !== null) keys.push(tx.advert.pubKey);
  if (tx.srcHash !== null) keys.push(addressKey(tx.srcHash));
  if (tx.destHash !== null && !keys.includes(addressKey(tx.destHash))) keys.push(addressKey(tx.destHash));
  const path = observation.path;
  for (let i = 0; i < path.length; i++) if (!keys.includes(path[i])) keys.push(path[i]);
  return keys;
}

const scratchKeys = [];

/** Was `key` named by an observation of `tx` before observations[index]? (transmission keys always are) */
function namedBefore(tx, index, key) {
  if (index === 0) return false;
  if ((tx.advert !== null && tx.advert.pubKey === key) || (tx.srcHash !== null && addressKey(tx.srcHash) === key) || (tx.destHash !== null && addressKey(tx.destHash) === key)) return true;
  for (let i = 0; i < index; i++) if (tx.observations[i].path.includes(key)) return true;
  return false;
}

// One observation's contribution to a key's row: [packets, snr sum, snr count] (reused).
const scratchRow = [0, 0, 0];

function applyFine(fine, tx, observation) {
  const observations = tx.observations;
  let index = observations.length - 1;
  if (observations[index] !== observation) index = observations.indexOf(observation); // a late view catching up
  if (index < 0) index = observations.length - 1;
  const keys = keysNamedBy(tx, observation, scratchKeys);
  const { snr } = observation;
  scratchRow[SNR_SUM] = snr === null ? 0 : snr;
  scratchRow[SNR_COUNT] = snr === null ? 0 : 1;
  for (let k = 0; k < keys.length; k++) {
    // The packet counts for a key the first time one of its observations names it.
    scratchRow[PACKETS] = namedBefore(tx, index, keys[k]) ? 0 : 1;
    fine.addRow(tx.time, keys[k], scratchRow, 1);
  }
}

/**
 * applyFine with what the shared tracker found for this observation (NodeTracker.apply): the
 * `count` keys it names (`keys[from ...]`, the same set keysNamedBy gives) and, per key, whether
 * an earlier observation of the transmission named it already (`firstNamed[from ...]`), so no
 * earlier path is matched again.
 */
function applyFineFromTracker(fine, tx, observation, keys, firstNamed, from, count) {
  const { snr } = observation;
  const time = tx.time;
  scratchRow[SNR_SUM] = snr === null ? 0 : snr;
  scratchRow[SNR_COUNT] = snr === null ? 0 : 1;
  for (let k = from; k < from + count; k++) {
    scratchRow[PACKETS] = firstNamed[k];
    fine.addRow(time, keys[k], scratchRow, 1);
  }
}

function evictFine(fine, tx) {
  // Per key: the packet once, and the SNR of every observation naming it.
  const rows = new Map();
  for (const observation of tx.observations) {
    const keys = keysNamedBy(tx, observation, scratchKeys);
    for (let k = 0; k < keys.length; k++) {
      let row = rows.get(keys[k]);
      if (!row) {
        row = [1, 0, 0];
        rows.set(keys[k], row);
      }
      if (observation.snr !== null) {
        row[SNR_SUM] += observation.snr;
        row[SNR_COUNT]++;
      }
    }
  }
  for (const [key, row] of rows) fine.addRow(tx.time, key, row, -1);
}

/** Activity and SNR trend of one node per `size` bucket over [from, to): from the fine counts. */
function fineSeries(fine, size, node, from, to, newest) {
  const activity = [];
  const snrTrend = [];
  for (const { start, row } of fine.series(size, { keys: NodeTracker.nodeKeys(node), from, to: to - 1, newest })) {
    if (row[PACKETS] > 0) activity.push({ time: start, packets: row[PACKETS] });
    if (row[SNR_COUNT] > 0) snrTrend.push({ time: start, meanSnr: row[SNR_SUM] / row[SNR_COUNT] });
  }
  return { activity, snrTrend };
}

function windowAnalytics(store, aggregates, node, params, now, fine, hourReads) {
  const { days } = params;
  const today = dayStart(now);
  const windowStart = today - (days - 1) * DAY_MS;
  const windowEnd = today + DAY_MS;
  const currentHour = hourBucket(now);
  // Availability and silence count from when the node was first heard: hours before it existed
  // (or before this server heard it) are not silence.
  const heardFrom = Math.min(Math.max(windowStart, node.firstSeen), now);
  const firstHour = hourBucket(heardFrom);
  const elapsedHours = (currentHour - firstHour) / HOUR_MS + 1;
  let packets = 0;
  let relayed = 0;
  let snrSum = 0;
  let snrSquares = 0;
  let snrCount = 0;
  const hops = [0, 0, 0, 0, 0];
  const types = new Array(16).fill(0);
  const observers = new Map();
  const peers = new Map();
  for (let start = windowStart; start < windowEnd; start += DAY_MS) for (const aggregate of aggregates) {
    const day = aggregate.days.get(start);
    if (!day) continue;
    packets += day.packets;
    relayed += day.relayed;
    snrSum += day.snrSum;
    snrSquares += day.snrSquares;
    snrCount += day.snrCount;
    for (let bin = 0; bin < hops.length; bin++) hops[bin] += day.counts[bin];
    for (let type = 0; type < types.length; type++) types[type] += day.counts[HOP_BINS + type];
    aggregate.tracker.forEachDayObserver(day, (observer, count) => observers.set(observer.id, (observers.get(observer.id) || 0) + count));
    aggregate.tracker.forEachDayPeer(day, (peer, count) => peers.set(peer, (peers.get(peer) || 0) + count));
  }
  let activeHours = 0;
  let activity = [];
  let snrTrend = [];
  const heatmap = Array.from({ length: 7 }, () => new Array(24).fill(0));
  const hours = [];
  for (let start = windowStart; start < windowEnd; start += HOUR_MS) {
    const buckets = [];
    let hourPackets = 0;
    let snrHourSum = 0;
    let snrHourCount = 0;
    for (const aggregate of aggregates) {
      const hour = aggregate.hours.get(start);
      if (!hour) continue;
      buckets.push(hour);
      hourPackets += hour[H.PACKETS];
      snrHourSum += hour[H.SNR_SUM];
      snrHourCount += hour[H.SNR_COUNT];
    }
    if (buckets.length === 0) continue;
    if (start <= currentHour && start >= firstHour) activeHours++;
    if (start + HOUR_MS > heardFrom) hours.push([start, buckets]);
    activity.push({ time: start, packets: hourPackets });
    if (snrHourCount > 0) snrTrend.push({ time: start, meanSnr: snrHourSum / snrHourCount });
    const day = Math.floor(start / DAY_MS);
    heatmap[(day + EPOCH_WEEKDAY) % 7][(start - day * DAY_MS) / HOUR_MS] += hourPackets;
  }
  const packetTypes = {};
  types.forEach((count, type) => {
    if (count > 0) packetTypes[PAYLOAD_TYPES[type] || `TYPE_${type}`] = count;
  });
  const hopDistribution = {};
  HOP_LABELS.forEach((label, bin) => { hopDistribution[label] = hops[bin]; });
  const observerCoverage = Array.from(observers, ([key, count]) => ({ key, count })).sort(byCountThenKey)
    .map(({ key, count }) => ({ observer: key, count }));
  const topPeers = topEntries(peers, PEER_LIMIT).map(([peer, count]) => {
    // A hop key names the repeaters it matches (only they relay); an address key (`@d2`, a src or
    // dest hash) any node; a public key itself.
    const address = isAddressKey(peer);
    const candidates = address ? store.resolvePrefix(hexOfKey(peer)) : forwardersOf(store, peer);
    const only = candidates.length === 1 ? candidates[0] : null;
    // `node`: the one known node the key names (the page sums a node's rows under its 1-, 2- and
    // 3-byte prefixes and its key into one); null when none or several do.
    return { peer, count, address, candidates: candidates.length, name: only !== null ? only.name : null, node: only !== null ? only.pubKey : null };
  });
  const snrMean = mean(snrSum, snrCount);
  const snrStdDev = standardDeviation(snrCount, snrSum, snrSquares);
  const size = chooseBucket(params.bucket, { oldest: heardFrom, newest: now, lastTime: newestTime(store), counts: fine });
  if (size !== 'hour') ({ activity, snrTrend } = fineSeries(fine, size, node, windowStart, windowEnd, newestTime(store)));
  return {
    days,
    windowStart,
    packets,
    relayed,
    relayPct: packets > 0 ? (100 * relayed) / packets : null,
    bucket: describeBucket(size, params.bucket, fine.fromOf(size, newestTime(store))),
    activity,
    snrTrend,
    packetTypes,
    observerCoverage,
    hopDistribution,
    topPeers,
    heatmap,
    activeHours,
    heardFrom,
    availabilityPct: (100 * activeHours) / elapsedHours,
    longestSilence: longestSilence(store, node, hours, heardFrom, now, hourReads),
    snrMean,
    snrStdDev,
    signalGrade: signalGrade(snrMean, snrStdDev),
  };
}

function scopeList(touched) {
  return touched && touched.length > 0 ? touched : null;
}

module.exports = defineView({
  name: 'node',
  description: 'One node: adverts, health, recent packets and analytics over N days (activity and SNR trend per minute to hour).',
  params: {
    pubKey: { type: 'string', required: true, maxLength: 64, pattern: PUBLIC_KEY_RE, lowerCase: true },
    days: { type: 'int', min: 1, max: 90, default: 7 },
    bucket: bucketParam,
  },
  createState: (store) => ({
    tracker: sharedTracker(store),
    fine: new TimeCounts({ width: 3, countFields: [PACKETS, SNR_COUNT], keyed: true, part: memoryPart(store, 'node'), levels: FINE_LEVELS }),
    hourReads: new HourReads(),
  }),
  apply(state, tx, observation, store, scopesWatched) {
    const { tracker } = state;
    const named = tracker.applyFor(state, tx, observation, store);
    // The tracker's answer is for this observation unless it ignored a replay (a late view).
    if (named === null) {
      applyFine(state.fine, tx, observation);
      return null;
    }
    if (named === 0) return null;
    const from = tracker.firstNamedAt(store);
    applyFineFromTracker(state.fine, tx, observation, tracker.keysKept, tracker.firstNamedKept, from, named);
    // The keys as a list only for the scope versions, when someone watches one.
    return scopesWatched ? tracker.keysKept.slice(from, from + named) : true;
  },
  evict(state, tx, store) {
    evictFine(state.fine, tx);
    return scopeList(state.tracker.evictFor(state, tx, store));
  },
  // A node's figures sum its key's and its three prefixes' aggregates; adverts change its entry.
  scopeOf: (params) => NodeTracker.keysOf(params.pubKey),
  snapshot({ tracker, fine, hourReads }, params, store, now) {
    const node = store.nodes.get(params.pubKey);
    if (!node) return { found: false };
    const aggregates = tracker.nodeAggregates(node);
    // With the role: as a relay hop only repeaters share a byte, as a src/dest hash every node does.
    const sharers = prefixSharers(store, node.pubKey).map(nodeBrief);
    sharers.sort((a, b) => (a.pubKey < b.pubKey ? -1 : 1));
    const advertDeque = store.byNode.get(node.pubKey);
    const adverts = [];
    if (advertDeque) {
      advertDeque.forEachNewest((tx) => {
        adverts.push(describeAdvert(tx));
        return adverts.length < ADVERT_LIMIT;
      });
    }
    const observers = Array.from(observerTotals(aggregates), ([observer, entry]) => ({ key: observer.id, count: entry.count, entry })).sort(byCountThenKey)
      .map(({ key, count, entry }) => ({ observer: key, count, meanSnr: mean(entry.snrSum, entry.snrCount), meanRssi: mean(entry.rssiSum, entry.rssiCount) }));
    const recentPackets = recentTransmissionsOfNode(store, node, RECENT_LIMIT).map((tx) => ({
      hash: tx.hash, time: tx.time, payloadType: tx.payloadType, hops: tx.hopCount, snr: meanSnrOf(tx),
    }));
    return {
      found: true,
      node: {
        pubKey: node.pubKey,
        name: node.name,
        role: node.role,
        lat: node.lat,
        lon: node.lon,
        firstSeen: node.firstSeen,
        lastSeen: node.lastSeen,
        lastAdvert: node.lastAdvert,
        status: nodeStatus(node, now),
        advertsStored: advertDeque ? advertDeque.length : 0,
      },
      ambiguousPrefix: sharers.length > 0,
      sharesPrefixWith: sharers,
      adverts,
      health: { ...healthSummary(aggregates, node, now), observers, recentPackets },
      analytics: windowAnalytics(store, aggregates, node, params, now, fine, hourReads),
    };
  },
});
