'use strict';
/**
 * bulkHealth: the health figures of the `node` view (observers hearing it, packets, packets
 * today, mean SNR, mean hops, last heard, status) for the N most recently heard nodes, for a
 * fleet table. Figures come from per-node sums kept as packets arrive and leave
 * (node-tracker.js), so a snapshot is O(nodes log nodes + N).
 */
const { defineView } = require('./view');
const { sharedTracker } = require('./node-tracker');
const { healthSummary } = require('./node-health');

module.exports = defineView({
  name: 'bulkHealth',
  description: 'Health figures for the most recently heard nodes.',
  params: {
    limit: { type: 'int', min: 1, max: 200, default: 50 },
  },
  createState: (store) => ({ tracker: sharedTracker(store) }),
  apply(state, tx, observation, store) {
    state.tracker.applyFor(state, tx, observation, store);
    return true; // last heard and status live in the directory, which any packet may refresh
  },
  evict(state, tx, store) {
    state.tracker.evictFor(state, tx, store);
    return true;
  },
  snapshot({ tracker }, params, store, now) {
    const recent = Array.from(store.nodes.values());
    recent.sort((a, b) => b.lastSeen - a.lastSeen || (a.pubKey < b.pubKey ? -1 : a.pubKey > b.pubKey ? 1 : 0));
    const nodes = recent.slice(0, params.limit).map((node) => ({
      pubKey: node.pubKey,
      name: node.name,
      role: node.role,
      ...healthSummary(tracker.nodeAggregates(node), node, now),
    }));
    return { total: store.nodes.size, nodes };
  },
});
