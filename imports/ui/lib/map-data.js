'use strict';
/**
 * What the map draws, from the `places` view (positions) and the `topology` view (busiest
 * adjacent hop pairs): nodes with a position, and links between pairs whose two hops resolve
 * to placed nodes, as the topology view resolved them (hop-resolver.js on the pair alone): by
 * prefix (one repeater carries the hash), by radio range (one combination fits), or `nearest`
 * (the clearly shortest combination). A link with a `nearest` end is `likely`, drawn dashed: on
 * the large simulated mesh 1.16% of such ends were wrong (benchmarks/CORE.md, hop resolution). A hop left
 * ambiguous is not guessed.
 */
const { lonLatToWorld } = require('./projection');

function hasPosition(node) {
  return Number.isFinite(node.lat) && Number.isFinite(node.lon) && !(node.lat === 0 && node.lon === 0)
    && Math.abs(node.lat) <= 90 && Math.abs(node.lon) <= 180;
}

// How an end was resolved, surest first: a link is as sure as its weaker end.
const RESOLUTION_ORDER = ['prefix', 'range', 'nearest'];

function weaker(a, b) {
  return RESOLUTION_ORDER.indexOf(a) >= RESOLUTION_ORDER.indexOf(b) ? a : b;
}

/** The node behind one end of a topology pair (`from` or `to`), with how it was resolved, or null. */
function pairEnd(pair, end) {
  const resolved = pair.resolved && pair.resolved[end];
  if (resolved) return resolved;
  const row = pair[end];
  return row && row.node ? { ...row.node, by: 'prefix' } : null; // an answer without `resolved`
}

/**
 * nodes: rows of the nodes view; pairs: topology.pairs.
 * Returns { points, links, unplacedPairs }: links are undirected (a->b and b->a summed), each
 * with `by` (its weaker end's resolution, from its surest pair) and `likely` (by 'nearest').
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
    const fromEnd = pairEnd(pair, 'from');
    const toEnd = pairEnd(pair, 'to');
    const from = fromEnd ? byKey.get(fromEnd.pubKey) : null;
    const to = toEnd ? byKey.get(toEnd.pubKey) : null;
    if (!from || !to || from === to) {
      unplacedPairs++;
      continue;
    }
    const by = weaker(fromEnd.by, toEnd.by);
    const key = from.pubKey < to.pubKey ? `${from.pubKey}|${to.pubKey}` : `${to.pubKey}|${from.pubKey}`;
    const link = links.get(key);
    if (link) {
      link.count += pair.count;
      if (weaker(link.by, by) === link.by) link.by = by; // as sure as its surest pair
    } else {
      links.set(key, { key, from, to, count: pair.count, by });
    }
  }
  return { points, links: Array.from(links.values(), (link) => ({ ...link, likely: link.by === 'nearest' })).sort((a, b) => b.count - a.count), unplacedPairs };
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
