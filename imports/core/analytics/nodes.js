'use strict';
/**
 * nodes: the node directory as a searchable, sortable, paged list, each row with its status
 * and how many stored packets involve it (see node-tracker.js for what "its packets" means and
 * how shared 1-byte prefixes count). Also how many nodes matched and the status counts of
 * the whole network (every known node, whatever the filters).
 *
 * Packet counts are kept per node as packets arrive and leave (node-tracker.js), so a snapshot
 * is O(nodes log nodes) whatever the number of stored packets.
 */
const { defineView, wrapNormalizeParams, ParamError } = require('./view');
const { sharedTracker } = require('./node-tracker');
const { sumAggregates } = require('./node-health');
const { nodeStatus } = require('../node-status');
const { ROLES } = require('../decode');

const HEX_RE = /^[0-9a-f]+$/;
const MAX_LIMIT = 500;
// `keys`: the browser's favourites (at most 200 there), as full public keys or prefixes.
const MAX_KEYS = 200;
const KEY_RE = /^[0-9a-f]{2,64}$/;
const MAX_KEYS_CHARS = MAX_KEYS * 65;

/**
 * The public keys or key prefixes `keys` lists (comma-separated, case-insensitive), distinct
 * and sorted; null for none. Throws a ParamError naming the first bad entry or the bound hit.
 */
function keysOf(text) {
  if (text === null) return null;
  const entries = text.split(',').map((entry) => entry.trim().toLowerCase());
  if (entries.length > MAX_KEYS) throw new ParamError('nodes', 'keys', `lists ${entries.length} keys; at most ${MAX_KEYS}`);
  entries.forEach((entry, i) => {
    if (!KEY_RE.test(entry)) throw new ParamError('nodes', 'keys', `entry ${i + 1} ("${entry.slice(0, 70)}") is not a public key or prefix (2 to 64 hex digits)`);
  });
  return Array.from(new Set(entries)).sort();
}

/** node.pubKey -> does it start with one of `keys`? One Set per prefix length. */
function keyMatcher(keys) {
  const byLength = new Map();
  for (const key of keys) {
    if (!byLength.has(key.length)) byLength.set(key.length, new Set());
    byLength.get(key.length).add(key);
  }
  const lengths = Array.from(byLength.entries());
  return (pubKey) => lengths.some(([length, set]) => set.has(pubKey.slice(0, length)));
}

// Natural order when `order` is not given: names A to Z, the rest largest first.
const DEFAULT_ORDER = { name: 'asc', lastSeen: 'desc', packets: 'desc' };

function compareText(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortValue(row, sort) {
  if (sort === 'name') return (row.name || '').toLowerCase();
  return row[sort];
}

const definition = defineView({
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
    // Only these nodes: public keys or prefixes, comma-separated (or an array from a method call).
    keys: { type: 'string', maxLength: MAX_KEYS_CHARS },
  },
  createState: (store) => ({ tracker: sharedTracker(store) }),
  apply(state, tx, observation, store) {
    state.tracker.applyFor(state, tx, observation, store);
    return true; // the directory (last seen, status) may change with any packet
  },
  evict(state, tx, store) {
    state.tracker.evictFor(state, tx, store);
    return true;
  },
  snapshot({ tracker }, params, store, now) {
    const search = params.search === null ? null : params.search.toLowerCase();
    const searchIsHex = search !== null && HEX_RE.test(search);
    const heardSince = params.heardWithinHours === null ? null : now - params.heardWithinHours * 3600 * 1000;
    const wantedKeys = keysOf(params.keys);
    const wanted = wantedKeys === null ? null : keyMatcher(wantedKeys);
    const statusCounts = { active: 0, degraded: 0, silent: 0 };
    const rows = [];
    for (const node of store.nodes.values()) {
      const status = nodeStatus(node, now);
      statusCounts[status]++;
      if (params.role !== null && node.role !== params.role) continue;
      if (params.status !== null && status !== params.status) continue;
      if (heardSince !== null && node.lastSeen < heardSince) continue;
      if (wanted !== null && !wanted(node.pubKey)) continue;
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
        packets: sumAggregates(tracker.nodeAggregates(node)).packets,
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

/**
 * `keys` as one canonical string (an array is joined first), checked when the params are
 * normalized: a bad list is a bad parameter (400, bad-params), not a failed snapshot, and the
 * same set of keys in any order or case shares one subscription group.
 */
function withKeysChecked(normalize) {
  return (raw) => {
    let input = raw;
    if (raw && typeof raw === 'object' && Array.isArray(raw.keys)) {
      if (!raw.keys.every((key) => typeof key === 'string')) throw new ParamError('nodes', 'keys', 'must be a list of strings');
      input = { ...raw, keys: raw.keys.join(',') };
    }
    // The count first: a list too long says so, rather than how many characters it ran to.
    if (input && typeof input === 'object' && typeof input.keys === 'string') {
      const count = input.keys.split(',').length;
      if (count > MAX_KEYS) throw new ParamError('nodes', 'keys', `lists ${count} keys; at most ${MAX_KEYS}`);
    }
    const params = normalize(input);
    const keys = keysOf(params.keys);
    if (keys !== null) params.keys = keys.join(',');
    return params;
  };
}
wrapNormalizeParams(definition, withKeysChecked, { inSnapshot: true });

module.exports = definition;
module.exports.MAX_KEYS = MAX_KEYS;
