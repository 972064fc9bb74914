'use strict';
/**
 * nodes: the node directory as a searchable, sortable, paged list, each row with its status
 * and how many stored packets involve it (see node-health.js for what "its packets" means and
 * how shared 1-byte prefixes count). Also how many nodes matched and the status counts of
 * the whole network (every known node, whatever the filters).
 *
 * Packet counts are kept per node as packets arrive and leave (node-health.js), so a snapshot
 * is O(nodes log nodes) whatever the number of stored packets.
 */
const { defineView } = require('./view');
const { sharedTracker, sumAggregates } = require('./node-health');
const { nodeStatus } = require('../node-status');
const { ROLES } = require('../decode');

const HEX_RE = /^[0-9a-f]+$/;
const MAX_LIMIT = 500;

// Natural order when `order` is not given: names A to Z, the rest largest first.
const DEFAULT_ORDER = { name: 'asc', lastSeen: 'desc', packets: 'desc' };

function compareText(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortValue(row, sort) {
  if (sort === 'name') return (row.name || '').toLowerCase();
  return row[sort];
}

module.exports = defineView({
  name: 'nodes',
  description: 'Nodes with search, role and last-heard filters, sorting, paging, status and packet counts.',
  params: {
    search: { type: 'string', maxLength: 64 },
    role: { type: 'enum', values: Object.values(ROLES) },
    status: { type: 'enum', values: ['active', 'degraded', 'silent'] },
    heardWithinHours: { type: 'number', min: 0, max: 24 * 366 },
    sort: { type: 'enum', values: ['name', 'lastSeen', 'packets'], default: 'lastSeen' },
    order: { type: 'enum', values: ['asc', 'desc'] },
    limit: { type: 'int', min: 1, max: MAX_LIMIT, default: 100 },
    offset: { type: 'int', min: 0, default: 0 },
  },
  createState: (store) => ({ tracker: sharedTracker(store) }),
  apply(state, tx, observation, store) {
    state.tracker.applyFor(state, tx, observation, store);
    return true; // the directory (last seen, status) may change with any packet
  },
  evict(state, tx) {
    state.tracker.evictFor(state, tx);
    return true;
  },
  snapshot({ tracker }, params, store, now) {
    const search = params.search === null ? null : params.search.toLowerCase();
    const searchIsHex = search !== null && HEX_RE.test(search);
    const heardSince = params.heardWithinHours === null ? null : now - params.heardWithinHours * 3600 * 1000;
    const statusCounts = { active: 0, degraded: 0, silent: 0 };
    const rows = [];
    for (const node of store.nodes.values()) {
      const status = nodeStatus(node, now);
      statusCounts[status]++;
      if (params.role !== null && node.role !== params.role) continue;
      if (params.status !== null && status !== params.status) continue;
      if (heardSince !== null && node.lastSeen < heardSince) continue;
      if (search !== null) {
        const byName = node.name !== null && node.name.toLowerCase().includes(search);
        if (!byName && !(searchIsHex && node.pubKey.startsWith(search))) continue;
      }
      const adverts = store.byNode.get(node.pubKey);
      rows.push({
        pubKey: node.pubKey,
        name: node.name,
        role: node.role,
        lat: node.lat,
        lon: node.lon,
        firstSeen: node.firstSeen,
        lastSeen: node.lastSeen,
        status,
        packets: sumAggregates(tracker.nodeAggregates(node.pubKey)).packets,
        adverts: adverts ? adverts.length : 0,
      });
    }
    const direction = (params.order || DEFAULT_ORDER[params.sort]) === 'asc' ? 1 : -1;
    const keys = rows.map((row) => sortValue(row, params.sort));
    const order = rows.map((row, i) => i);
    // Ties (same name, time or count) by public key, always ascending, so pages are stable.
    order.sort((a, b) => direction * compareText(keys[a], keys[b]) || compareText(rows[a].pubKey, rows[b].pubKey));
    const page = order.slice(params.offset, params.offset + params.limit).map((i) => rows[i]);
    return { total: rows.length, statusCounts, nodes: page };
  },
});
