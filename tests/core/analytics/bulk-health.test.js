'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { checkAgainstBruteForce } = require('../../helpers/mesh');
const { nodeStatus } = require('../../../imports/core/node-status');

const DAY = 24 * 3600e3;

function packetsOfNode(store, pubKey) {
  const prefixes = [pubKey.slice(0, 2), pubKey.slice(0, 4), pubKey.slice(0, 6)];
  return store.transmissions().filter((tx) => (tx.advert && tx.advert.pubKey === pubKey)
    || prefixes.includes(tx.srcHash) || prefixes.includes(tx.destHash)
    || tx.observations.some((o) => o.path.some((hop) => prefixes.includes(hop))));
}

const average = (values) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : null);

function bruteBulkHealth(store, params, now) {
  const midnight = now - (now % DAY);
  const nodes = Array.from(store.nodes.values())
    .sort((a, b) => b.lastSeen - a.lastSeen || (a.pubKey < b.pubKey ? -1 : 1))
    .slice(0, params.limit)
    .map((node) => {
      const txs = packetsOfNode(store, node.pubKey);
      const observations = txs.flatMap((tx) => tx.observations);
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

test('bulkHealth packets agree with the store\'s own transmissionsOfNode', () => {
  const engine = checkAgainstBruteForce({ view: 'bulkHealth', bruteForce: () => null, paramsList: [], seed: 11, checks: 3 });
  for (const row of engine.snapshot('bulkHealth', { limit: 200 }).nodes) {
    assert.equal(row.packets, engine.store.transmissionsOfNode(row.pubKey).length, row.pubKey);
  }
  assert.throws(() => engine.snapshot('bulkHealth', { limit: 201 }), /at most 200/);
});
