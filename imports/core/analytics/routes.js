'use strict';
/**
 * routes: stored transmissions in a time range, newest `limit` of them, each with the path it
 * travelled resolved to nodes and their positions, for the map's animation and replay slider.
 *
 * Per transmission the observation with the longest path is drawn (the furthest it was seen to
 * travel); its hops are resolved by hop-resolver.js (repeaters only, adjacency, radio range)
 * against the directory as it is now, so a hop stays unresolved (`ambiguous` / `unknown`, no
 * position) rather than guessed. The route starts at the source when a packet names it (an
 * advert's key, or a src hash that one known node carries) and ends at the observer when the
 * observer reports under a known node's key. TRACE paths carry SNRs, not hops: no hops drawn.
 *
 * No state: the store's FIFO is in time order, so the range is two binary searches and the
 * work is O(limit x hops) whatever the store holds. `from` and `to` are epoch ms (inclusive);
 * `from` defaults to 24 h before `now`. `inRange` counts every stored transmission in the
 * range; `oldest`/`newest` bound what the store holds, for a slider.
 */
const { defineView, DAY_MS } = require('./view');
const { withSnapshotCache, MAX_AGE_MS } = require('./snapshot-cache');
const { BYTES } = require('../memory-account');
const { resolvePath, forwardersOf, MAX_JOINT_CANDIDATES } = require('../hop-resolver');
const { PAYLOAD_TYPES, ROUTE_TYPES } = require('../decode');
const { observationCountOf } = require('../stored-records');

const TRACE = 9;
const MAX_CACHED_ROUTES = 500; // larger answers are recomputed rather than held (see snapshot-cache.js)
// Resolved routes kept between snapshots (newest use last out). Not charged to the memory
// account: a snapshot must not push the store over its budget (it evicts only on ingest); this
// cap bounds it instead (about 1-2 KB per route).
const MAX_MEMO_ROUTES = 4096;
const routeBytes = (route) => BYTES.mapEntry + 3 * BYTES.object + 24 * BYTES.field + route.hops.length * (BYTES.object + 9 * BYTES.field);

/**
 * Routes resolved by earlier snapshots, reused while nothing their resolution read has changed
 * and the packet has the same observations (its longest path and observer count). A new packet
 * then costs one resolution, not `limit`. What a route reads, and so what redoes it:
 *   - the nodes its hops' prefixes name (candidates, roles, names, positions), its source and its
 *     observer: a kept route is checked against the directory's node changes since it was
 *     resolved (directory.js: added, removed, renamed, re-roled, moved) and redone only when a
 *     changed key is one it read (nearly every advert changes nothing: a re-advert);
 *   - a route with a weighed hop (a hop among several repeaters, kept in `weighedMemo`) also
 *     reads learnt adjacency (the directory's adjacency changes: a node that gained a neighbour)
 *     and the places of those nodes' neighbours (an unplaced repeater is placed by them).
 * Both memos are dropped after MAX_AGE_MS of wall time, for a directory edit made outside ingest.
 */
function memosFor(state) {
  const at = Date.now();
  if (at - state.memoAt > MAX_AGE_MS) {
    clearMemo(state, state.memo);
    clearMemo(state, state.weighedMemo);
    state.memoAt = at;
  }
}

/**
 * Does a route of `tx` read node `key`? Its source (the advert's key, or any node carrying the
 * src hash: one more makes it ambiguous), its observer, a node any hop's prefix names, and for a
 * weighed route a node placed beside one of those through learnt adjacency (hop-resolver.js).
 */
function readsNode(store, tx, route, key, weighed) {
  if (tx.advert !== null && tx.advert.pubKey === key) return true;
  if (tx.srcHash !== null && key.startsWith(tx.srcHash)) return true;
  if (route.observer !== null && route.observer.id.toLowerCase() === key) return true;
  const hops = route.hops;
  for (let i = 0; i < hops.length; i++) if (key.startsWith(hops[i].hop)) return true;
  if (!weighed) return false;
  const beside = (node) => node !== null && node !== undefined && node.neighbours instanceof Set && node.neighbours.has(key);
  if (route.source !== null && beside(store.nodes.get(route.source.pubKey))) return true;
  if (route.observer !== null && beside(store.nodes.get(route.observer.id.toLowerCase()))) return true;
  for (let i = 0; i < hops.length; i++) {
    if (hops[i].candidates > MAX_JOINT_CANDIDATES) continue; // not weighed: its nodes' places are not read
    for (const node of forwardersOf(store, hops[i].hop)) if (beside(node)) return true;
  }
  return false;
}

/**
 * The keys `log` (a directory change log) has changed since `version`, through `seen`, a
 * per-snapshot memo of log.since() (null: the log no longer reaches back).
 */
function changedSince(log, version, seen) {
  let keys = seen.get(version);
  if (keys === undefined) {
    keys = log.since(version);
    seen.set(version, keys);
  }
  return keys;
}

/**
 * Whether a kept route still holds with the directory as it is: none of the nodes it read
 * changed since it was resolved (or last checked), nor, for a weighed route, the learnt
 * neighbours of any of them. `seen`: { nodes, adjacency } per-snapshot memos for changedSince.
 */
function stillHolds(store, tx, entry, weighed, seen) {
  const { nodeChanges, adjacencyChanges } = store.directory;
  const nodesMoved = entry.nodes !== nodeChanges.version;
  const adjacencyMoved = weighed && entry.adjacency !== adjacencyChanges.version;
  if (!nodesMoved && !adjacencyMoved) return true;
  if (nodesMoved) {
    const keys = changedSince(nodeChanges, entry.nodes, seen.nodes);
    if (keys === null) return false;
    for (const key of keys) if (readsNode(store, tx, entry.route, key, weighed)) return false;
  }
  if (adjacencyMoved) {
    // A node that gained a neighbour: its links are priced anew, and it may now be placed.
    const keys = changedSince(adjacencyChanges, entry.adjacency, seen.adjacency);
    if (keys === null) return false;
    for (const key of keys) if (readsNode(store, tx, entry.route, key, false)) return false;
  }
  entry.nodes = nodeChanges.version;
  entry.adjacency = adjacencyChanges.version;
  return true;
}

function clearMemo(state, memo) {
  if (state.part) for (const entry of memo.values()) state.part.add(-entry.bytes);
  memo.clear();
}

function forget(state, tx) {
  const memo = state.memo.has(tx) ? state.memo : state.weighedMemo;
  const entry = memo.get(tx);
  if (entry === undefined) return;
  memo.delete(tx);
  if (state.part) state.part.add(-entry.bytes);
}

/** Drop the least recently used memo entries past state.maxMemoRoutes (the older of each memo's oldest first). */
function trimMemos(state) {
  while (state.memo.size + state.weighedMemo.size > state.maxMemoRoutes) {
    const plain = state.memo.size > 0 ? state.memo.entries().next().value : null;
    const weighed = state.weighedMemo.size > 0 ? state.weighedMemo.entries().next().value : null;
    forget(state, plain !== null && (weighed === null || plain[1].used <= weighed[1].used) ? plain[0] : weighed[0]);
  }
}

/** Whether a route's resolution weighed a hop among several repeaters (and so read learnt adjacency). */
function isWeighed(route) {
  for (const hop of route.hops) if (hop.candidates > 1 && hop.candidates <= MAX_JOINT_CANDIDATES) return true;
  return false;
}

function placed(node) {
  return node && typeof node.lat === 'number' && typeof node.lon === 'number' && (node.lat !== 0 || node.lon !== 0);
}

function endpoint(node) {
  if (!node) return null;
  return { pubKey: node.pubKey, name: node.name || null, role: node.role || null, lat: placed(node) ? node.lat : null, lon: placed(node) ? node.lon : null };
}

/** The observation with the most hops (the first of equals). */
function longestObservation(tx) {
  const observations = tx.observations; // built on each read for stored transmissions: read once
  let best = observations[0];
  for (let i = 1; i < observations.length; i++) if (observations[i].path.length > best.path.length) best = observations[i];
  return best;
}

function sourceNodeOf(store, tx) {
  if (tx.advert) return store.nodes.get(tx.advert.pubKey) || null;
  if (tx.srcHash) return store.uniqueNodeFor(tx.srcHash);
  return null;
}

/**
 * The resolved hops of one path. `memo` (one per snapshot) reuses the answer for a path heard
 * again by the same observer from the same source: the store shares equal hop lists (one
 * interned array), and a mesh's traffic repeats its paths.
 */
function resolvedHops(store, path, observerId, sourceKey, routeType, memo) {
  let byContext = memo ? memo.get(path) : undefined;
  const contextKey = `${observerId}|${sourceKey || ''}|${routeType}`;
  if (byContext !== undefined) {
    const known = byContext.get(contextKey);
    if (known !== undefined) return known;
  }
  const hops = [];
  // The route type matters: a direct path is the route still to travel, not anchored at the observer.
  const resolved = resolvePath(store, path, { observerId, sourceKey, routeType });
  for (const entry of resolved) {
    const node = entry.status === 'resolved' ? entry.node : null;
    const at = node !== null && placed(node);
    hops.push({
      hop: entry.hop,
      status: entry.status,
      candidates: entry.candidates.length,
      pubKey: node === null ? null : node.pubKey,
      name: node === null ? null : node.name || null,
      role: node === null ? null : node.role || null,
      lat: at ? node.lat : null,
      lon: at ? node.lon : null,
    });
  }
  if (memo) {
    if (byContext === undefined) {
      byContext = new Map();
      memo.set(path, byContext);
    }
    byContext.set(contextKey, hops);
  }
  return hops;
}

function routeOf(store, tx, memo = null) {
  const observation = longestObservation(tx);
  const source = sourceNodeOf(store, tx);
  const observerNode = observation ? store.nodes.get(observation.observer.id.toLowerCase()) || null : null;
  const hops = observation && tx.payloadType !== TRACE && observation.path.length > 0
    ? resolvedHops(store, observation.path, observation.observer.id, source ? source.pubKey : null, tx.routeType, memo)
    : [];
  return {
    hash: tx.hash,
    time: tx.time,
    payloadType: tx.payloadType,
    type: PAYLOAD_TYPES[tx.payloadType] || String(tx.payloadType),
    route: ROUTE_TYPES[tx.routeType] || String(tx.routeType),
    observers: observationCountOf(tx),
    source: endpoint(source),
    observer: observation ? { id: observation.observer.id, name: observation.observer.name, region: observation.observer.region, ...(observerNode ? { lat: placed(observerNode) ? observerNode.lat : null, lon: placed(observerNode) ? observerNode.lon : null } : { lat: null, lon: null }) } : null,
    hops,
  };
}

module.exports = defineView(withSnapshotCache({
  name: 'routes',
  description: 'Transmissions in a time range (newest first, bounded) with their paths resolved to placed nodes, for the map.',
  params: {
    from: { type: 'number', min: 0 },
    to: { type: 'number', min: 0 },
    limit: { type: 'int', default: 200, min: 1, max: 2000 },
  },
  // maxMemoRoutes: MAX_MEMO_ROUTES (tests lower it, so that routes past it are tested).
  createState: () => ({ memo: new Map(), weighedMemo: new Map(), maxMemoRoutes: MAX_MEMO_ROUTES, memoAt: 0, uses: 0, part: null }),
  // Every packet may be the newest in someone's range; the snapshot is bounded by `limit`.
  apply: () => true,
  evict(state, tx) {
    forget(state, tx);
    return true;
  },

  snapshot(state, params, store, now) {
    const fifo = store.fifo;
    const from = params.from === null ? now - DAY_MS : params.from;
    const to = params.to === null ? Infinity : params.to;
    const start = fifo.lowerBoundTime(from);
    let end = fifo.length;
    if (to !== Infinity) {
      end = fifo.lowerBoundTime(to);
      while (end < fifo.length && fifo.at(end).time <= to) end++; // `to` is inclusive
    }
    const inRange = Math.max(0, end - start);
    const routes = [];
    const memo = new Map(); // path -> observer|source -> resolved hops, for this snapshot only
    memosFor(state); // tx -> { observations, route, bytes, used, nodes, adjacency }: routes of earlier snapshots
    const used = ++state.uses;
    const { nodeChanges, adjacencyChanges } = store.directory;
    const seen = { nodes: new Map(), adjacency: new Map() }; // version -> keys changed since
    for (let i = end - 1; i >= start && routes.length < params.limit; i--) {
      const tx = fifo.at(i);
      const kept = state.memo.has(tx) ? state.memo : state.weighedMemo;
      let entry = kept.get(tx);
      if (entry === undefined || entry.observations !== observationCountOf(tx) || !stillHolds(store, tx, entry, kept === state.weighedMemo, seen)) {
        if (entry !== undefined) forget(state, tx);
        const route = routeOf(store, tx, memo);
        entry = { observations: observationCountOf(tx), route, bytes: routeBytes(route), used, nodes: nodeChanges.version, adjacency: adjacencyChanges.version };
        if (state.part) state.part.add(entry.bytes);
        (isWeighed(route) ? state.weighedMemo : state.memo).set(tx, entry);
      } else {
        // Set again: newest use last out.
        kept.delete(tx);
        entry.used = used;
        kept.set(tx, entry);
      }
      routes.push(entry.route);
    }
    trimMemos(state);
    const oldest = fifo.first();
    const newest = fifo.last();
    return {
      from,
      to: to === Infinity ? null : to,
      inRange,
      truncated: inRange > routes.length,
      oldest: oldest ? oldest.time : null,
      newest: newest ? newest.time : null,
      routes,
    };
  },
}, (params, store, now) => {
  // The answer depends on `now` only through the default range start; a large answer is not kept.
  if (params.limit > MAX_CACHED_ROUTES) return false;
  return `${params.from === null ? now - DAY_MS : params.from}|${params.to}`;
}));

module.exports.routeOf = routeOf;
