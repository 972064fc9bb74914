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
 * No counts of its own: the directory's prefix index (prefix -> nodes) and the store's byPrefix
 * index are the state. What depends on the directory alone (per role filter: the known count,
 * per hash size the used and ambiguous prefixes with their nodes in key order, the free 1-byte
 * prefixes) is kept between snapshots while the directory's nodes are unchanged (its node
 * version: directory.js; at most 1 s, as snapshot-cache.js); a snapshot then reads only the
 * traffic of the ambiguous and free prefixes (one index lookup each) and builds its rows.
 */
const { defineView } = require('./view');
const { keepBest } = require('./aggregates');
const { nodesVersion, MAX_AGE_MS } = require('./snapshot-cache');
const { HEX_BYTE } = require('../stored-records');

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

/**
 * What the snapshot reads from the directory for one role filter: { known, sizes: [{ used,
 * ambiguous, nodesInAmbiguous, shared: [{ prefix, nodes (by key) }] }], free: [prefix] }.
 */
function directoryFigures(store, role) {
  let known = 0;
  if (role === 'any') known = store.nodes.size;
  else for (const node of store.nodes.values()) if (node.role === role) known++;
  const sizes = [];
  for (let hashSize = 1; hashSize <= 3; hashSize++) {
    let used = 0;
    let nodesInAmbiguous = 0;
    const shared = [];
    for (const [prefix, bucket] of store.directory.byPrefix[hashSize - 1]) {
      const nodes = countedNodes(bucket, role);
      if (nodes.length === 0) continue;
      used++;
      if (nodes.length < 2) continue;
      nodesInAmbiguous += nodes.length;
      shared.push({ prefix, nodes: nodes.slice().sort(byPubKey) });
    }
    sizes.push({ used, ambiguous: shared.length, nodesInAmbiguous, shared });
  }
  const index = store.directory.byPrefix[0];
  const free = [];
  for (const prefix of HEX_BYTE) {
    const bucket = index.get(prefix);
    if (bucket === undefined || countedNodes(bucket, role).length === 0) free.push(prefix);
  }
  return { known, sizes, free };
}

/** directoryFigures, kept while the directory is unchanged (see the file comment). */
function figuresFor(state, store, role) {
  const stamp = nodesVersion(store);
  const at = Date.now();
  if (stamp !== state.stamp || at - state.at > MAX_AGE_MS) {
    state.byRole.clear();
    state.stamp = stamp;
    state.at = at;
  }
  let figures = state.byRole.get(role);
  if (figures === undefined) {
    figures = directoryFigures(store, role);
    state.byRole.set(role, figures);
  }
  return figures;
}

function collisionOrder(a, b) {
  return b.traffic - a.traffic || b.nodeCount - a.nodeCount || (a.prefix < b.prefix ? -1 : a.prefix > b.prefix ? 1 : 0);
}

function sizeSummary(store, hashSize, figures, params) {
  let ambiguousTraffic = 0;
  const best = []; // top `limit` ambiguous prefixes by collisionOrder, kept sorted
  for (const row of figures.shared) {
    const traffic = trafficOf(store, row.prefix);
    ambiguousTraffic += traffic;
    // Compared as the row it would be (nodeCount: its nodes), built only when it ranks.
    if (best.length === params.limit && collisionOrder({ prefix: row.prefix, nodeCount: row.nodes.length, traffic }, best[best.length - 1]) >= 0) continue;
    keepBest(best, { prefix: row.prefix, nodeCount: row.nodes.length, traffic, nodes: row.nodes }, params.limit, collisionOrder);
  }
  return {
    hashSize,
    possible: 256 ** hashSize,
    used: figures.used,
    ambiguous: figures.ambiguous,
    nodesInAmbiguous: figures.nodesInAmbiguous,
    ambiguousTraffic,
    collisions: best.map((row) => ({ prefix: row.prefix, nodeCount: row.nodeCount, traffic: row.traffic, nodes: row.nodes.slice(0, MAX_LISTED_NODES).map(brief) })),
  };
}

/** 1-byte prefixes no known node (of the role filter) has, least traffic first. */
function freePrefixes(store, figures, params) {
  const free = figures.free.map((prefix) => ({ prefix, traffic: trafficOf(store, prefix) }));
  let unused = 0;
  for (const row of free) if (row.traffic === 0) unused++;
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
  createState: () => ({ byRole: new Map(), stamp: null, at: 0 }),
  // Traffic changes with every packet (the directory's nodes are checked at snapshot time).
  apply: () => true,
  evict: () => true,
  snapshot(state, params, store) {
    const figures = figuresFor(state, store, params.role);
    return {
      units: { traffic: 'stored transmissions carrying the prefix as a hop, source or destination' },
      role: params.role,
      knownNodes: figures.known,
      sizes: figures.sizes.map((size, i) => sizeSummary(store, i + 1, size, params)),
      free: freePrefixes(store, figures, params),
      lookup: params.prefix === null ? null : lookup(store, params.prefix, params),
    };
  },
});
