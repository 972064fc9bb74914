'use strict';
/**
 * places: every known node that has a position (public key, name, role, position, status), for
 * the map. The `nodes` view pages 500 rows whose counts move with every packet; a map of a
 * 5,000-node mesh built from it showed the 500 most recently heard (463 placed of 3,465), and a
 * map built from all its pages would be resent whole at every refresh. This answer moves only
 * when the directory's nodes change (a node learned, removed, renamed, re-roled or moved:
 * directory.nodesVersion) or, while packets flow, once per STATUS_REFRESH_MS of store time, so
 * that statuses (active / degraded / silent, read at snapshot time) are at most that old.
 *
 * A position is what the map can draw: finite, within ±90 / ±180, and not 0, 0 (firmware sends
 * 0, 0 for "none"). Nodes in public-key order (stable between answers).
 */
const { defineView } = require('./view');
const { nodeStatus } = require('../node-status');

const STATUS_REFRESH_MS = 60 * 1000;

function hasPosition(node) {
  return typeof node.lat === 'number' && typeof node.lon === 'number' && Number.isFinite(node.lat) && Number.isFinite(node.lon)
    && !(node.lat === 0 && node.lon === 0) && Math.abs(node.lat) <= 90 && Math.abs(node.lon) <= 180;
}

function nodesVersionOf(store) {
  return store.directory ? store.directory.nodesVersion : 0;
}

module.exports = defineView({
  name: 'places',
  description: 'Every known node with a position (key, name, role, position, status), for the map; moves only when a node changes (or once a minute for statuses).',
  params: {},
  createState: () => ({ nodesVersion: -1, refreshedAt: -Infinity }),
  apply(state, tx, observation, store) {
    const version = nodesVersionOf(store);
    const time = store.lastTime;
    if (version === state.nodesVersion && time - state.refreshedAt < STATUS_REFRESH_MS) return false;
    state.nodesVersion = version;
    state.refreshedAt = time;
    return true;
  },
  // Eviction changes no node (the directory ages nodes out at ingest, which apply then sees).
  evict: () => false,
  snapshot(state, params, store, now) {
    const places = [];
    for (const node of store.nodes.values()) {
      if (!hasPosition(node)) continue;
      places.push({ pubKey: node.pubKey, name: node.name, role: node.role, lat: node.lat, lon: node.lon, status: nodeStatus(node, now) });
    }
    places.sort((a, b) => (a.pubKey < b.pubKey ? -1 : a.pubKey > b.pubKey ? 1 : 0));
    return { total: store.nodes.size, placed: places.length, places };
  },
});

module.exports.hasPosition = hasPosition;
module.exports.STATUS_REFRESH_MS = STATUS_REFRESH_MS;
