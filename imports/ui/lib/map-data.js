'use strict';
/**
 * What the map draws, from the `nodes` view (positions) and the `topology` view (busiest
 * adjacent hop pairs): nodes with a position, and links between pairs whose two hops each
 * resolve to exactly one known node that has a position. Ambiguous prefixes are not guessed.
 */
const { lonLatToWorld } = require('./projection');

function hasPosition(node) {
  return Number.isFinite(node.lat) && Number.isFinite(node.lon) && !(node.lat === 0 && node.lon === 0)
    && Math.abs(node.lat) <= 90 && Math.abs(node.lon) <= 180;
}

/**
 * nodes: rows of the nodes view; pairs: topology.pairs.
 * Returns { points, links, unplacedPairs }: links are undirected (a->b and b->a summed).
 */
function buildMapData(nodes, pairs) {
  const points = [];
  const byKey = new Map();
  for (const node of nodes || []) {
    if (!hasPosition(node)) continue;
    const [x, y] = lonLatToWorld(node.lon, node.lat);
    const point = { pubKey: node.pubKey, name: node.name, role: node.role, status: node.status, lat: node.lat, lon: node.lon, x, y };
    points.push(point);
    byKey.set(node.pubKey, point);
  }
  const links = new Map();
  let unplacedPairs = 0;
  for (const pair of pairs || []) {
    const from = pair.from && pair.from.node ? byKey.get(pair.from.node.pubKey) : null;
    const to = pair.to && pair.to.node ? byKey.get(pair.to.node.pubKey) : null;
    if (!from || !to || from === to) {
      unplacedPairs++;
      continue;
    }
    const key = from.pubKey < to.pubKey ? `${from.pubKey}|${to.pubKey}` : `${to.pubKey}|${from.pubKey}`;
    const link = links.get(key);
    if (link) link.count += pair.count;
    else links.set(key, { key, from, to, count: pair.count });
  }
  return { points, links: Array.from(links.values()).sort((a, b) => b.count - a.count), unplacedPairs };
}

/**
 * One route of the `routes` view as something the map can draw: the placed points it passed
 * (source, resolved hops, observer; an unresolved or unplaced hop is skipped) and the segments
 * between consecutive points, `dashed` when hops were skipped between them (the line is then a
 * guess of where it went, not a known link). Returns null when fewer than two points are placed.
 */
function routeLine(route) {
  const points = [];
  let skipped = 0;
  let skippedTotal = 0;
  const segments = [];
  const visit = (place, label, kind) => {
    if (!place || !hasPosition(place)) {
      if (kind === 'hop') {
        skipped++;
        skippedTotal++;
      }
      return;
    }
    const [x, y] = lonLatToWorld(place.lon, place.lat);
    const previous = points[points.length - 1];
    // The same node twice in a row (a source that is also the first hop) is one point.
    if (previous && previous.x === x && previous.y === y) return;
    const point = { x, y, lat: place.lat, lon: place.lon, label, kind };
    if (previous) segments.push({ from: previous, to: point, dashed: skipped > 0 });
    skipped = 0;
    points.push(point);
  };
  visit(route.source, route.source && route.source.name, 'source');
  for (const hop of route.hops || []) visit(hop.status === 'resolved' ? hop : null, hop.name || hop.hop, 'hop');
  visit(route.observer, route.observer && (route.observer.name || route.observer.id), 'observer');
  if (points.length < 2) return null;
  return { key: route.hash, hash: route.hash, time: route.time, type: route.type, payloadType: route.payloadType, points, segments, skipped: skippedTotal, hops: (route.hops || []).length };
}

/** Drawable lines of a `routes` snapshot, oldest first, and how many could not be drawn. */
function routeLines(routes) {
  const lines = [];
  let undrawable = 0;
  for (const route of routes || []) {
    const line = routeLine(route);
    if (line) lines.push(line);
    else undrawable++;
  }
  lines.reverse(); // the view sends newest first; animations start oldest first
  return { lines, undrawable };
}

/** SVG path data for a line's points under `project` ([x, y] world -> [sx, sy] screen). */
function linePath(points, project) {
  return points.map((point, i) => {
    const [sx, sy] = project(point);
    return `${i ? 'L' : 'M'}${sx.toFixed(1)},${sy.toFixed(1)}`;
  }).join('');
}

module.exports = { buildMapData, hasPosition, routeLine, routeLines, linePath };
