'use strict';
/**
 * Ranked rows keyed by hop hashes (1-, 2- or 3-byte key prefixes, or public keys), summed per
 * known node. A mesh with mixed hash sizes shows one repeater as `13` in some paths and `1343` in
 * others (and as its public key when it is a packet's origin); an operator wants it once. Counts
 * of different keys come from different paths (a path has one hash size), so their sum counts
 * each appearance once.
 *
 * rows: [{ key, nodeKey, count, row }]: `nodeKey` is the one known node the key names (null when
 * none or several do), `row` the caller's own row. Rows with the same non-null `nodeKey` become
 * one: { key: nodeKey, nodeKey, count (the sum), via (the keys, busiest first), row (the
 * busiest's) }; the others stay as they are, with `via: [key]`. Busiest first, then by key; at
 * most `limit`.
 */
function groupByNode(rows, limit = Infinity) {
  const grouped = [];
  const byNode = new Map();
  const sorted = (rows || []).slice().sort(byCountThenKey);
  for (const { key, nodeKey, count, row } of sorted) {
    const group = nodeKey ? byNode.get(nodeKey) : undefined;
    if (group) {
      group.count += count;
      group.via.push(key);
      continue;
    }
    const entry = { key: nodeKey || key, nodeKey: nodeKey || null, count, via: [key], row };
    if (nodeKey) byNode.set(nodeKey, entry);
    grouped.push(entry);
  }
  return grouped.sort(byCountThenKey).slice(0, limit);
}

function byCountThenKey(a, b) {
  return b.count - a.count || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
}

module.exports = { groupByNode };
