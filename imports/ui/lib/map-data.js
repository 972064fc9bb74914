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

module.exports = { buildMapData, hasPosition };
