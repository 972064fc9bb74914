'use strict';
/**
 * Which node is behind a hop hash. A hop is a 1-, 2- or 3-byte prefix of the public key of
 * the repeater that forwarded the packet, so on a large mesh a 1-byte hop matches several known
 * nodes. Resolution, in the order an operator can check it:
 *
 *   1. By role: only repeaters forward, so a prefix resolves among the known repeaters that
 *      carry it (a companion sharing a repeater's first byte is never credited with a relay).
 *      A prefix that matches no repeater is `unknown` (a repeater never heard advertising).
 *   2. By observed adjacency: repeaters seen next to each other in paths whose hops resolve
 *      uniquely (2- and 3-byte hashes mostly) are neighbours (store.js learns them); a
 *      candidate that is the only known neighbour of the hop next to it is taken.
 *   3. By position along the path: the last hop must be in radio range of the observer that
 *      reported it (observers report under their own public key), each earlier hop in range of
 *      the hop after it, and the first hop in range of the packet's source when that is known
 *      (an advert's key). Among several candidates, the only one in range, or one clearly
 *      nearer than the next (half the distance or less), is taken.
 *   4. Otherwise the hop stays `ambiguous`, with its candidates listed: nothing is guessed.
 *
 * Measured on the simulator's large mesh, where the truth is known (bench:core
 * `hop_resolution`).
 */
const MAX_LINK_KM = 80; // longest plausible LoRa link between two sites (hilltop to hilltop)
const CLEARLY_NEARER = 0.67; // the nearest candidate wins when the next is at least 1.5 times as far
const FORWARDING_ROLE = 'repeater';

/** Known nodes that could have forwarded a packet under this hop prefix (repeaters). */
function forwardersOf(store, prefix) {
  const all = store.resolvePrefix(prefix);
  if (all.length === 0) return all;
  if (all.length === 1) return all[0].role === FORWARDING_ROLE ? all : [];
  return all.filter((node) => node.role === FORWARDING_ROLE);
}

function hasPosition(node) {
  return node !== null && node !== undefined && typeof node.lat === 'number' && typeof node.lon === 'number' && (node.lat !== 0 || node.lon !== 0);
}

/** Great-circle distance in km (haversine). */
function distanceKm(a, b) {
  const toRad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * toRad;
  const dLon = (b.lon - a.lon) * toRad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * toRad) * Math.cos(b.lat * toRad) * Math.sin(dLon / 2) ** 2;
  return 12742 * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Candidates of a hop that are known neighbours of every given anchor that has neighbours. */
function adjacentCandidates(candidates, anchors) {
  let out = null;
  for (const anchor of anchors) {
    if (!anchor.neighbours || anchor.neighbours.size === 0) continue;
    const next = (out || candidates).filter((node) => anchor.neighbours.has(node.pubKey));
    if (next.length === 0) continue; // this side knows none of them: no evidence either way
    out = next;
  }
  return out || [];
}

/** Settle one hop against its settled neighbours on the path (`anchors`), if it can be. */
function pick(entry, anchors) {
  const { candidates } = entry;
  if (candidates.length === 1) {
    entry.node = candidates[0];
    entry.status = 'resolved';
    return;
  }
  if (candidates.length === 0) {
    entry.status = 'unknown';
    return;
  }
  if (anchors.length === 0) return;
  // Observed adjacency first: the one candidate already seen next to its neighbours.
  const adjacent = adjacentCandidates(candidates, anchors);
  if (adjacent.length === 1) {
    entry.node = adjacent[0];
    entry.status = 'resolved';
    return;
  }
  // Then radio range: summed distance to the positioned neighbours, among those in range of all.
  const placed = anchors.filter(hasPosition);
  if (placed.length === 0) return;
  const pool = adjacent.length > 1 ? adjacent : candidates;
  const inRange = [];
  for (const node of pool) {
    if (!hasPosition(node)) continue;
    let km = 0;
    let reachable = true;
    for (const anchor of placed) {
      const d = distanceKm(anchor, node);
      if (d > MAX_LINK_KM) reachable = false;
      km += d;
    }
    if (reachable) inRange.push({ node, km });
  }
  inRange.sort((x, y) => x.km - y.km);
  if (inRange.length === 1 || (inRange.length > 1 && inRange[0].km <= CLEARLY_NEARER * inRange[1].km)) {
    entry.node = inRange[0].node;
    entry.status = 'resolved';
  }
}

/**
 * Resolve every hop of one observed path. `context`: { observerId, sourceKey } (the observer's
 * public key as it reports, the advert key of the packet's source when known). Returns one
 * entry per hop: { hop, status: 'resolved' | 'ambiguous' | 'unknown', node, candidates }.
 */
function resolvePath(store, path, context = {}) {
  const entries = path.map((hop) => ({ hop, status: 'ambiguous', node: null, candidates: forwardersOf(store, hop) }));
  const observerNode = typeof context.observerId === 'string' ? store.nodes.get(context.observerId.toLowerCase()) || null : null;
  const sourceNode = context.sourceKey ? store.nodes.get(context.sourceKey) || null : null;
  const anchorsOf = (i) => {
    const anchors = [];
    const after = i + 1 < entries.length ? entries[i + 1].node : observerNode;
    const before = i > 0 ? entries[i - 1].node : sourceNode;
    if (after) anchors.push(after);
    if (before) anchors.push(before);
    return anchors;
  };
  // Unique prefixes first, then passes from the observer back and from the source forward
  // (each settled hop anchors its neighbours) until nothing more settles.
  for (const entry of entries) if (entry.candidates.length <= 1) pick(entry, []);
  for (let pass = 0, settled = true; pass < 4 && settled; pass++) {
    settled = false;
    for (let k = 0; k < entries.length; k++) {
      const i = pass % 2 === 0 ? entries.length - 1 - k : k;
      if (entries[i].status !== 'ambiguous') continue;
      pick(entries[i], anchorsOf(i));
      if (entries[i].status === 'resolved') settled = true;
    }
  }
  return entries;
}

module.exports = { resolvePath, forwardersOf, distanceKm, MAX_LINK_KM, FORWARDING_ROLE };
