'use strict';
/**
 * The topology view's busiest repeaters and adjacent pairs as one row per known node (or node
 * pair), whatever hash sizes the paths showed it with (group-by-node.js). A repeater row's key
 * names a node when its hop resolves to one forwarder (`node`); a pair's when both ends do.
 */
const { groupByNode } = require('./group-by-node');

/** [{ key, nodeKey, count, via: ['13', '1343'], row (the busiest repeater row) }]. */
function repeaterRows(repeaters, limit = Infinity) {
  const rows = (repeaters || []).map((repeater) => ({ key: repeater.hop, nodeKey: repeater.node ? repeater.node.pubKey : null, count: repeater.count, row: repeater }));
  return groupByNode(rows, limit);
}

/** [{ key, nodeKey, count, via: ['13,88', '1343,88b2'], row (the busiest pair row) }]. */
function pairRows(pairs, limit = Infinity) {
  const rows = (pairs || []).map((pair) => ({
    key: pair.pair,
    nodeKey: pair.from.node && pair.to.node ? `${pair.from.node.pubKey}>${pair.to.node.pubKey}` : null,
    count: pair.count,
    row: pair,
  }));
  return groupByNode(rows, limit);
}

module.exports = { repeaterRows, pairRows };
