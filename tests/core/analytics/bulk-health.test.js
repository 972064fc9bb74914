'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { checkAgainstBruteForce, packetsOfNodeByKey: packetsOfNode, observationsOfNodeByKey } = require('../../helpers/mesh');
const { nodeStatus } = require('../../../imports/core/node-status');

const DAY = 24 * 3600e3;


const average = (values) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : null);

function bruteBulkHealth(store, params, now) {
  const midnight = now - (now % DAY);
  const nodes = Array.from(store.nodes.values())
    .sort((a, b) => b.lastSeen - a.lastSeen || (a.pubKey < b.pubKey ? -1 : 1))
    .slice(0, params.limit)
    .map((node) => {
      const txs = packetsOfNode(store, node.pubKey);
      const observations = observationsOfNodeByKey(store, node.pubKey);
      return {
        pubKey: node.pubKey, name: node.name, role: node.role,
        status: nodeStatus(node, now),
        lastHeard: node.lastSeen,
        observerCount: new Set(observations.map((o) => o.observer.id)).size,
        packets: txs.length,
        packetsToday: txs.filter((tx) => tx.time >= midnight && tx.time < midnight + DAY).length,
        meanSnr: average(observations.filter((o) => o.snr !== null).map((o) => o.snr)),
        meanRssi: average(observations.filter((o) => o.rssi !== null).map((o) => o.rssi)),
        meanHops: average(txs.map((tx) => tx.hopCount)),
      };
    });
  return { total: store.nodes.size, nodes };
}

test('bulkHealth equals a brute-force recount after random inserts and evictions', () => {
  checkAgainstBruteForce({ view: 'bulkHealth', bruteForce: bruteBulkHealth, paramsList: [{}, { limit: 1 }, { limit: 7 }, { limit: 200 }] });
});

test('bulkHealth packets count each of the store\'s own transmissionsOfNode at least once', () => {
  const engine = checkAgainstBruteForce({ view: 'bulkHealth', bruteForce: () => null, paramsList: [], seed: 11, checks: 3 });
  for (const row of engine.snapshot('bulkHealth', { limit: 200 }).nodes) {
    const distinct = engine.store.transmissionsOfNode(row.pubKey).length;
    assert.ok(row.packets >= distinct && row.packets <= 2 * distinct, `${row.pubKey}: ${row.packets} per key, ${distinct} distinct`);
  }
  assert.throws(() => engine.snapshot('bulkHealth', { limit: 201 }), /at most 200/);
});
