'use strict';
/**
 * hashSizes: how wide the hop hashes in paths are (1, 2 or 3 bytes, chosen by the sender's
 * firmware), overall and per time bucket (minute to hour: `bucket` parameter, time-buckets.js), the busiest hops with their hash size and resolved node, and
 * the nodes seen behind multi-byte hashes (a sign of up-to-date firmware).
 *
 * Units: the distribution and `perBucket` count transmissions that at least one observer heard
 * with one or more hops (zero-hop and TRACE packets carry no hop hash); the hash size is that of
 * the first such observation, the bucket that of the transmission's first hearing. `hops` and
 * `multiByte` count appearances of a hop in observed paths (a hop heard by three observers
 * counts three times). All figures are exact.
 */
const { defineView, bump, memoryPart } = require('./view');
const { observationAt, observationCountOf } = require('../stored-records');
const { withSnapshotCache } = require('./snapshot-cache');
const { topByCount, describePrefix } = require('./aggregates');
const { FORWARDING_ROLE } = require('../hop-resolver');
const { TimeCounts, chooseBucket, describeBucket, bucketParam, newestTime } = require('./time-buckets');

const TOP_HOPS = 50;
const LIST_LIMIT = 200;

function createState(store) {
  const part = memoryPart(store, 'hashSizes');
  return {
    part,
    transmissions: 0, // with at least one observed hop
    bySize: [0, 0, 0, 0], // index = hash size in bytes
    perTime: new TimeCounts({ width: 3, part }), // bucket -> [size1, size2, size3]
    hopCounts: new Map(), // hop hash -> appearances
  };
}

/** The observation that decides a transmission's hash size: the first one that heard hops. */
function firstWithHops(tx) {
  // Read in place (observationAt): the observations array is not built per report.
  const count = observationCountOf(tx);
  for (let i = 0; i < count; i++) {
    const observation = observationAt(tx, i);
    if (observation.path.length > 0) return observation;
  }
  return null;
}

function countTransmission(state, tx, observation, sign) {
  const hashSize = observation.path[0].length / 2;
  state.transmissions += sign;
  state.bySize[hashSize] += sign;
  state.perTime.add(tx.time, null, hashSize - 1, sign);
}

function apply(state, tx, observation) {
  const path = observation.path;
  if (path.length === 0) return false;
  if (firstWithHops(tx) === observation) countTransmission(state, tx, observation, 1);
  for (let i = 0; i < path.length; i++) bump(state.hopCounts, path[i], 1, state.part);
  return true;
}

function evict(state, tx) {
  const first = firstWithHops(tx);
  if (!first) return false;
  countTransmission(state, tx, first, -1);
  for (const observation of tx.observations) {
    for (let i = 0; i < observation.path.length; i++) bump(state.hopCounts, observation.path[i], -1, state.part);
  }
  return true;
}

function byCountThenKey(a, b, key) {
  return b.count - a.count || (a[key] < b[key] ? -1 : a[key] > b[key] ? 1 : 0);
}

/**
 * Nodes resolved from 2- and 3-byte hops: unique matches per node, ambiguous and unknown prefixes aside.
 *
 * Walks every multi-byte hop at every snapshot (thousands on a large mesh), so the common cases
 * allocate nothing per hop: the repeaters carrying a prefix are counted in place (what
 * describePrefix would filter into a new array), and only a node's first hop and an ambiguous
 * hop build anything. Building a describePrefix answer and copying the node for every hop made
 * the large mesh's snapshot at 1M reports take 3.2-4.1 ms (p50) against 0.6-0.7 ms now
 * (`node --expose-gc benchmarks/operator-views.js --total=1000000 --profile=large --views=hashSizes`).
 */
function multiByte(state, store) {
  const nodes = new Map();
  const ambiguous = [];
  let unresolvedPrefixes = 0;
  let unresolvedCount = 0;
  for (const [hop, appearances] of state.hopCounts) {
    if (hop.length <= 2) continue;
    let forwarder = null;
    let forwarders = 0;
    for (const node of store.resolvePrefix(hop)) {
      if (node.role !== FORWARDING_ROLE) continue;
      forwarder = node;
      forwarders++;
    }
    if (forwarders === 1) {
      let entry = nodes.get(forwarder.pubKey);
      if (entry === undefined) {
        // describePrefix's node brief (pubKey, name, role), then this list's fields, written out:
        // `{ ...nodeBrief(forwarder), hashSizes, ... }` made the 1M large-mesh snapshot ~5x slower
        // (p50 3.3-3.6 against 0.66 ms, with the operator-views command in the comment above).
        entry = { pubKey: forwarder.pubKey, name: forwarder.name, role: forwarder.role, hashSizes: [], prefixes: [], count: 0 };
        nodes.set(forwarder.pubKey, entry);
      }
      entry.prefixes.push(hop);
      entry.count += appearances;
    } else if (forwarders > 1) {
      const { candidates, candidateCount } = describePrefix(store, hop);
      ambiguous.push({ hop, hashSize: hop.length / 2, count: appearances, candidates, candidateCount });
    } else {
      unresolvedPrefixes++;
      unresolvedCount += appearances;
    }
  }
  const list = Array.from(nodes.values());
  for (const entry of list) {
    const prefixes = entry.prefixes;
    if (prefixes.length > 1) prefixes.sort();
    // Sizes present among its prefixes, ascending (2 and 3 bytes are the only multi-byte sizes).
    let two = false;
    let three = false;
    for (const prefix of prefixes) {
      if (prefix.length === 4) two = true;
      else three = true;
    }
    entry.hashSizes = two && three ? [2, 3] : two ? [2] : [3];
  }
  list.sort((a, b) => byCountThenKey(a, b, 'pubKey'));
  ambiguous.sort((a, b) => byCountThenKey(a, b, 'hop'));
  return {
    nodeCount: list.length,
    nodes: list.slice(0, LIST_LIMIT),
    ambiguousCount: ambiguous.length,
    ambiguous: ambiguous.slice(0, LIST_LIMIT),
    unresolvedPrefixes,
    unresolvedCount,
  };
}

function snapshot(state, params, store) {
  const distribution = [1, 2, 3].map((hashSize) => ({
    hashSize,
    transmissions: state.bySize[hashSize],
    share: state.transmissions ? state.bySize[hashSize] / state.transmissions : 0,
  }));
  const oldest = store.fifo.length ? store.fifo.first().time : null;
  const newest = newestTime(store);
  const size = chooseBucket(params.bucket, { oldest, newest, counts: state.perTime });
  const perBucket = state.perTime.series(size, { newest }).map(({ start, row }) => ({ time: start, bySize: { 1: row[0], 2: row[1], 3: row[2] } }));
  return {
    units: {
      distribution: 'transmissions heard with at least one hop (TRACE and zero-hop excluded); size of the first such observation',
      perBucket: 'same transmissions by first-heard time, per bucket (see bucket)',
      hops: 'appearances of the hop hash in observed paths',
      multiByte: 'nodes uniquely matching a 2- or 3-byte hop hash; count = appearances of those hops',
    },
    transmissions: state.transmissions,
    distribution,
    bucket: describeBucket(size, params.bucket, state.perTime.fromOf(size, newest)),
    perBucket,
    hops: topByCount(state.hopCounts, TOP_HOPS).map(([hop, appearances]) => ({ hop, hashSize: hop.length / 2, count: appearances, ...describePrefix(store, hop) })),
    multiByte: multiByte(state, store),
  };
}

module.exports = defineView(withSnapshotCache({
  name: 'hashSizes',
  description: 'Hop hash sizes (1/2/3 bytes) overall and per time bucket (minute to hour), top hops, nodes with multi-byte hashes.',
  params: { bucket: bucketParam },
  createState,
  apply,
  evict,
  snapshot,
}));
