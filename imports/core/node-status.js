'use strict';
/**
 * Network status of a node from when it was last heard. Infrastructure (repeaters, rooms)
 * adverts rarely, so it gets longer windows than companions and sensors.
 */
const HOUR_MS = 3600 * 1000;

const STATUS_WINDOWS = {
  infrastructure: { degradedAfterMs: 24 * HOUR_MS, silentAfterMs: 72 * HOUR_MS },
  other: { degradedAfterMs: 1 * HOUR_MS, silentAfterMs: 24 * HOUR_MS },
};

function nodeStatus(node, now) {
  const windows = node.role === 'repeater' || node.role === 'room' ? STATUS_WINDOWS.infrastructure : STATUS_WINDOWS.other;
  const age = now - node.lastSeen;
  if (age >= windows.silentAfterMs) return 'silent';
  if (age >= windows.degradedAfterMs) return 'degraded';
  return 'active';
}

module.exports = { nodeStatus, STATUS_WINDOWS };
