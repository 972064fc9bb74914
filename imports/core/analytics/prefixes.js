'use strict';
/**
 * prefixes: hash collisions. A hop names its repeater by the first 1, 2 or 3 bytes of its public
 * key, so two known nodes sharing those bytes are indistinguishable in a path. Per hash size:
 * how many prefixes known nodes use, which prefixes several nodes share (ambiguous), and how much
 * stored traffic each ambiguous prefix carries (transmissions holding it as a hop, source or
 * destination: the length of the store's prefix index). `free` helps someone configuring a new
 * repeater pick a first byte: the 1-byte prefixes no known node has, least-used first (traffic
 * on such a prefix comes from a node that never advertised). `prefix` looks one candidate up.
 *
 * No state of its own: the directory's prefix index (prefix -> nodes) and the store's byPrefix
 * index are the state, so a snapshot is O(distinct prefixes), never O(packets).
 */
const { defineView } = require('./view');
const { keepBest } = require('./aggregates');

const MAX_LISTED_NODES = 10;
const ROLE_FILTERS = ['any', 'repeater'];

function brief(node) {
  return { pubKey: node.pubKey, name: node.name, role: node.role };
}

function byPubKey(a, b) {
  return a.pubKey < b.pubKey ? -1 : a.pubKey > b.pubKey ? 1 : 0;
}

/** Transmissions stored with this prefix as a hop, source or destination. */
function trafficOf(store, prefix) {
  const deque = store.byPrefix.get(prefix);
  return deque ? deque.length : 0;
}

/** The nodes of a directory bucket that count under the role filter (the bucket itself for 'any'). */
function countedNodes(bucket, role) {
  return role === 'any' ? bucket : bucket.filter((node) => node.role === role);
}

function collisionOrder(a, b) {
  return b.traffic - a.traffic || b.nodeCount - a.nodeCount || (a.prefix < b.prefix ? -1 : a.prefix > b.prefix ? 1 : 0);
}

function sizeSummary(store, hashSize, params) {
  const index = store.directory.byPrefix[hashSize - 1];
  let used = 0;
  let ambiguous = 0;
  let nodesInAmbiguous = 0;
  let ambiguousTraffic = 0;
  const best = []; // top `limit` ambiguous prefixes by collisionOrder, kept sorted
  for (const [prefix, bucket] of index) {
    const nodes = countedNodes(bucket, params.role);
    if (nodes.length === 0) continue;
    used++;
    if (nodes.length < 2) continue;
    ambiguous++;
    nodesInAmbiguous += nodes.length;
    const row = { prefix, nodeCount: nodes.length, traffic: trafficOf(store, prefix), nodes };
    ambiguousTraffic += row.traffic;
    keepBest(best, row, params.limit, collisionOrder);
  }
  return {
    hashSize,
    possible: 256 ** hashSize,
    used,
    ambiguous,
    nodesInAmbiguous,
    ambiguousTraffic,
    collisions: best.map((row) => ({ prefix: row.prefix, nodeCount: row.nodeCount, traffic: row.traffic, nodes: row.nodes.slice().sort(byPubKey).slice(0, MAX_LISTED_NODES).map(brief) })),
  };
}

/** 1-byte prefixes no known node (of the role filter) has, least traffic first. */
function freePrefixes(store, params) {
  const index = store.directory.byPrefix[0];
  const free = [];
  for (let value = 0; value < 256; value++) {
    const prefix = value.toString(16).padStart(2, '0');
    const bucket = index.get(prefix);
    if (bucket && countedNodes(bucket, params.role).length > 0) continue;
    free.push({ prefix, traffic: trafficOf(store, prefix) });
  }
  const unused = free.filter((row) => row.traffic === 0).length;
  free.sort((a, b) => a.traffic - b.traffic || (a.prefix < b.prefix ? -1 : 1));
  return { count: free.length, unused, prefixes: free.slice(0, params.limit) };
}

/** One candidate prefix (or key): who shares it at each hash size, and its traffic. */
function lookup(store, prefix, params) {
  const sizes = [];
  for (let hashSize = 1; hashSize <= 3 && hashSize * 2 <= prefix.length; hashSize++) {
    const part = prefix.slice(0, hashSize * 2);
    const bucket = store.directory.byPrefix[hashSize - 1].get(part);
    const nodes = bucket ? countedNodes(bucket, params.role).slice().sort(byPubKey) : [];
    sizes.push({ hashSize, prefix: part, nodeCount: nodes.length, traffic: trafficOf(store, part), nodes: nodes.slice(0, MAX_LISTED_NODES).map(brief) });
  }
  return { prefix, sizes };
}

module.exports = defineView({
  name: 'prefixes',
  description: 'Hash collisions: known nodes sharing 1-, 2- and 3-byte prefixes, traffic per ambiguous prefix, free 1-byte prefixes.',
  params: {
    // Count only repeaters (only they appear as hops) or every known node (any can be a source or destination).
    role: { type: 'enum', values: ROLE_FILTERS, default: 'any' },
    limit: { type: 'int', min: 1, max: 256, default: 50 },
    // A candidate prefix or public key (hex, whole bytes) to look up.
    prefix: { type: 'string', maxLength: 64, pattern: /^([0-9a-fA-F]{2})+$/, lowerCase: true },
  },
  createState: () => ({}),
  // Traffic and the directory change with every packet.
  apply: () => true,
  evict: () => true,
  snapshot(state, params, store) {
    let known = 0;
    if (params.role === 'any') known = store.nodes.size;
    else for (const node of store.nodes.values()) if (node.role === params.role) known++;
    return {
      units: { traffic: 'stored transmissions carrying the prefix as a hop, source or destination' },
      role: params.role,
      knownNodes: known,
      sizes: [1, 2, 3].map((hashSize) => sizeSummary(store, hashSize, params)),
      free: freePrefixes(store, params),
      lookup: params.prefix === null ? null : lookup(store, params.prefix, params),
    };
  },
});
