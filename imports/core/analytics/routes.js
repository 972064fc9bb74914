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
const { withSnapshotCache } = require('./snapshot-cache');
const { resolvePath } = require('../hop-resolver');
const { PAYLOAD_TYPES, ROUTE_TYPES } = require('../decode');

const TRACE = 9;
const MAX_CACHED_ROUTES = 500; // larger answers are recomputed rather than held (see snapshot-cache.js)

function placed(node) {
  return node && typeof node.lat === 'number' && typeof node.lon === 'number' && (node.lat !== 0 || node.lon !== 0);
}

function endpoint(node) {
  if (!node) return null;
  return { pubKey: node.pubKey, name: node.name || null, role: node.role || null, lat: placed(node) ? node.lat : null, lon: placed(node) ? node.lon : null };
}

/** The observation with the most hops (the first of equals). */
function longestObservation(tx) {
  let best = tx.observations[0];
  for (let i = 1; i < tx.observations.length; i++) if (tx.observations[i].path.length > best.path.length) best = tx.observations[i];
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
    hops.push({
      hop: entry.hop,
      status: entry.status,
      candidates: entry.candidates.length,
      ...(node ? endpoint(node) : { pubKey: null, name: null, role: null, lat: null, lon: null }),
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
    observers: tx.observations.length,
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
  createState: () => ({}),
  // Every packet may be the newest in someone's range; the snapshot is bounded by `limit`.
  apply: () => true,
  evict: () => true,

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
    for (let i = end - 1; i >= start && routes.length < params.limit; i--) routes.push(routeOf(store, fifo.at(i), memo));
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
