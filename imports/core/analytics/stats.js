'use strict';
/**
 * stats: the dashboard's headline figures. Totals come from the store; packets in the last
 * hour from a binary search over the time-ordered FIFO (O(log n)); observations in the last
 * hour from per-minute counters kept with the observations.
 */
const { defineView, memoryPart, bump, HOUR_MS } = require('./view');
const { nodeStatus } = require('../node-status');

const MINUTE_MS = 60 * 1000;

module.exports = defineView({
  name: 'stats',
  description: 'Totals, packets in the last hour, nodes by role and status.',
  params: {},
  createState: (store) => ({ observationsByMinute: new Map(), part: memoryPart(store, 'stats') }),
  apply(state, tx, observation) {
    bump(state.observationsByMinute, Math.floor(observation.time / MINUTE_MS), 1, state.part);
    return true;
  },
  evict(state, tx) {
    for (const observation of tx.observations) bump(state.observationsByMinute, Math.floor(observation.time / MINUTE_MS), -1, state.part);
    return true;
  },
  snapshot(state, params, store, now) {
    const hourAgo = now - HOUR_MS;
    let observationsLastHour = 0;
    const firstMinute = Math.floor(hourAgo / MINUTE_MS);
    // Whole minutes only: the minute holding `hourAgo` counts if it started after it.
    for (const [minute, count] of state.observationsByMinute) {
      if (minute > firstMinute || (minute === firstMinute && minute * MINUTE_MS >= hourAgo)) observationsLastHour += count;
    }
    const nodesByRole = {};
    const nodesByStatus = { active: 0, degraded: 0, silent: 0 };
    for (const node of store.nodes.values()) {
      nodesByRole[node.role] = (nodesByRole[node.role] || 0) + 1;
      nodesByStatus[nodeStatus(node, now)]++;
    }
    return {
      transmissions: store.fifo.length,
      observations: store.observationCount,
      nodes: store.nodes.size,
      observers: store.observers.size,
      transmissionsLastHour: store.fifo.length - store.fifo.lowerBoundTime(hourAgo),
      observationsLastHour,
      nodesByRole,
      nodesByStatus,
      oldest: store.fifo.length ? store.fifo.first().time : null,
      newest: store.fifo.length ? store.fifo.last().time : null,
    };
  },
});
