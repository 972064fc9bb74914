'use strict';
/** Shapes the `node` view's analytics into chart series: labelled heatmap rows, hop bars (gap-free buckets: time-buckets.js). */
const { groupByNode } = require('./group-by-node');

const HOUR_MS = 3600 * 1000;
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/**
 * Hourly rows ({ hour, packets }, as node snapshots had before time buckets; the page now uses
 * time-buckets.js fillBuckets): one point per hour from `windowStart` up to the hour holding `now`: hours without packets are
 * 0 (the view lists active hours only), so bars sit at their true time.
 */
function fillHours(hourly, windowStart, now, key = 'packets') {
  const byHour = new Map(hourly.map((entry) => [entry.hour, entry[key]]));
  const last = Math.floor(now / HOUR_MS) * HOUR_MS;
  const points = [];
  // Start at the first active hour when the window is mostly empty, so a young node's chart is readable.
  const first = hourly.length ? Math.max(windowStart, Math.min(...hourly.map((entry) => entry.hour)) - 6 * HOUR_MS) : windowStart;
  for (let hour = first; hour <= last; hour += HOUR_MS) points.push({ x: hour, y: byHour.get(hour) || 0 });
  return points;
}

/** The weekday x UTC hour matrix as heatmap rows (Sunday first, like the view). */
function heatmapRows(heatmap) {
  return (heatmap || []).map((values, day) => ({ label: WEEKDAYS[day], values }));
}

/** {"0": n, "1": n, …, "4+": n} -> bar data in that order. */
function hopBars(hopDistribution) {
  return Object.entries(hopDistribution || {}).map(([label, value]) => ({ label, value }));
}

/**
 * The node view's top peers as one row per peer node (group-by-node.js): { key, node (public key
 * or null), name, candidates, count, via (the keys it was seen as) }, busiest first, at most `limit`.
 */
function peerRows(topPeers, limit = 10) {
  const rows = (topPeers || []).map((peer) => ({ key: peer.peer, nodeKey: peer.node || null, count: peer.count, row: peer }));
  return groupByNode(rows, limit).map(({ key, nodeKey, count, via, row }) => ({ key, node: nodeKey, name: row.name || null, candidates: row.candidates, count, via }));
}

module.exports = { fillHours, heatmapRows, hopBars, peerRows, WEEKDAYS, HOUR_MS };
