'use strict';
/**
 * A node's health as the `nodes`, `node` and `bulkHealth` views show it, read from the node
 * tracker's per-key aggregates (node-tracker.js: how they are kept, and what "its packets"
 * means when a 1-byte prefix is shared), and a node's transmissions read from the store's
 * indexes for what the aggregates do not hold (recent packets, an hour re-read).
 */
const { nodeStatus } = require('../node-status');
const { dayStart } = require('./node-tracker');

/** Is `tx` from or to a node whose first byte is `address` (its src or dest hash)? */
function addressedTo(tx, address) {
  return tx.srcHash === address || tx.destHash === address;
}

/**
 * Visit a node's transmissions (`node`: { pubKey, role }) with time >= fromTime, oldest first,
 * each once (a k-way merge of its store indexes by seq); stops when `visit` returns false.
 * O(the transmissions of its indexes), no sort.
 */
function forEachTransmissionOfNode(store, node, fromTime, visit) {
  const { deques, addressOnly, address } = store.nodeIndexes(node);
  const cursors = deques.map((deque) => (fromTime === -Infinity ? 0 : deque.lowerBoundTime(fromTime)));
  for (;;) {
    let next = null;
    for (let d = 0; d < deques.length; d++) {
      const deque = deques[d];
      while (addressOnly[d] && cursors[d] < deque.length && !addressedTo(deque.at(cursors[d]), address)) cursors[d]++;
      if (cursors[d] >= deque.length) continue;
      const tx = deque.at(cursors[d]);
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
function recentTransmissionsOfNode(store, node, limit) {
  const { deques, addressOnly, address } = store.nodeIndexes(node);
  const cursors = deques.map((deque) => deque.length - 1);
  const out = [];
  while (out.length < limit) {
    let next = null;
    for (let d = 0; d < deques.length; d++) {
      const deque = deques[d];
      while (addressOnly[d] && cursors[d] >= 0 && !addressedTo(deque.at(cursors[d]), address)) cursors[d]--;
      if (cursors[d] < 0) continue;
      const tx = deque.at(cursors[d]);
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
  forEachTransmissionOfNode,
  recentTransmissionsOfNode,
  healthSummary,
  sumAggregates,
  observerTotals,
  prefixSharers,
  signalGrade,
  mean,
};
