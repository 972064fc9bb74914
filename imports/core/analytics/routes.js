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
const { withSnapshotCache, directoryBytes, MAX_AGE_MS } = require('./snapshot-cache');
const { BYTES } = require('../memory-account');
const { resolvePath, MAX_JOINT_CANDIDATES } = require('../hop-resolver');
const { PAYLOAD_TYPES, ROUTE_TYPES } = require('../decode');
const { observationCountOf, isFirstObservation } = require('../stored-records');

const TRACE = 9;
const MAX_CACHED_ROUTES = 500; // larger answers are recomputed rather than held (see snapshot-cache.js)
// Resolved routes kept between snapshots (newest use last out). Not charged to the memory
// account: a snapshot must not push the store over its budget (it evicts only on ingest); this
// cap bounds it instead (about 1-2 KB per route).
const MAX_MEMO_ROUTES = 4096;
const routeBytes = (route) => BYTES.mapEntry + 3 * BYTES.object + 24 * BYTES.field + route.hops.length * (BYTES.object + 9 * BYTES.field);

/**
 * Routes resolved by earlier snapshots, reused while nothing their resolution reads can have
 * changed (within MAX_AGE_MS of wall time, for a directory edit made outside ingest), and while
 * the packet has the same observations (its longest path and observer count). A new packet then
 * costs one resolution, not `limit`. Two memos, by what a route read:
 *   - `memo`: routes none of whose hops was weighed (each had at most one repeater, or more than
 *     hop-resolver's MAX_JOINT_CANDIDATES): they read the candidates, roles, names and positions
 *     of nodes, which change only with a node added or removed (node count) or an advert applied;
 *   - `weighedMemo`: routes with a weighed hop also read learnt adjacency (which moves the
 *     directory's charged bytes): dropped whenever those bytes move too.
 */
function memosFor(state, store) {
  const nodes = `${store.nodes ? store.nodes.size : 0}|${state.adverts}`;
  const bytes = directoryBytes(store);
  const at = Date.now();
  if (nodes !== state.memoStamp || at - state.memoAt > MAX_AGE_MS) {
    clearMemo(state, state.memo);
    clearMemo(state, state.weighedMemo);
    state.memoStamp = nodes;
    state.memoBytes = bytes;
    state.memoAt = at;
  } else if (bytes !== state.memoBytes) {
    clearMemo(state, state.weighedMemo);
    state.memoBytes = bytes;
  }
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
  createState: () => ({ memo: new Map(), weighedMemo: new Map(), maxMemoRoutes: MAX_MEMO_ROUTES, memoStamp: null, memoBytes: 0, memoAt: 0, uses: 0, adverts: 0, part: null }),
  // Every packet may be the newest in someone's range; the snapshot is bounded by `limit`.
  apply(state, tx, observation) {
    if (tx.advert && isFirstObservation(tx, observation)) state.adverts++;
    return true;
  },
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
    memosFor(state, store); // tx -> { observations, route, bytes, used }: routes of earlier snapshots
    const used = ++state.uses;
    for (let i = end - 1; i >= start && routes.length < params.limit; i--) {
      const tx = fifo.at(i);
      const kept = state.memo.has(tx) ? state.memo : state.weighedMemo;
      let entry = kept.get(tx);
      if (entry === undefined || entry.observations !== observationCountOf(tx)) {
        if (entry !== undefined) forget(state, tx);
        const route = routeOf(store, tx, memo);
        entry = { observations: observationCountOf(tx), route, bytes: routeBytes(route), used };
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
