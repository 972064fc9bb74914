'use strict';
const test = require('node:test');
const { checkAgainstBruteForce } = require('../../helpers/mesh');
const { nodeStatus } = require('../../../imports/core/node-status');

/** Brute force: recount everything from the transmissions still in the store. */
function bruteStats(store, params, now) {
  const txs = store.transmissions();
  const hourAgo = now - 3600e3;
  let observations = 0;
  let observationsLastHour = 0;
  for (const tx of txs) {
    for (const o of tx.observations) {
      observations++;
      // The view counts whole minutes: an observation counts if its minute starts at or after an hour ago.
      if (Math.floor(o.time / 60000) * 60000 >= hourAgo) observationsLastHour++;
    }
  }
  const nodesByRole = {};
  const nodesByStatus = { active: 0, degraded: 0, silent: 0 };
  for (const node of store.nodes.values()) {
    nodesByRole[node.role] = (nodesByRole[node.role] || 0) + 1;
    nodesByStatus[nodeStatus(node, now)]++;
  }
  return {
    transmissions: txs.length,
    observations,
    nodes: store.nodes.size,
    observers: store.observers.size,
    transmissionsLastHour: txs.filter((tx) => tx.time >= hourAgo).length,
    observationsLastHour,
    nodesByRole,
    nodesByStatus,
    oldest: txs.length ? txs[0].time : null,
    newest: txs.length ? txs[txs.length - 1].time : null,
  };
}

test('stats equals a brute-force recount after random inserts and evictions', () => {
  checkAgainstBruteForce({ view: 'stats', bruteForce: bruteStats });
});
