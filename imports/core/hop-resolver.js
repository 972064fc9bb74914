'use strict';
/**
 * Which node is behind a hop hash. A hop is a 1-, 2- or 3-byte prefix of the public key of
 * the repeater that forwarded the packet, so on a large mesh a 1-byte hop matches several known
 * nodes. Resolution, in the order an operator can check it:
 *
 *   1. By role: only repeaters forward, so a prefix resolves among the known repeaters that
 *      carry it (a companion sharing a repeater's first byte is never credited with a relay).
 *      One such repeater: resolved (`by: 'prefix'`). None: `unknown` (never heard advertising).
 *   2. By the whole path at once: consecutive hops were in radio range of each other, the last
 *      hop of a flooded packet in range of the observer that reported it, and its first hop in
 *      range of the source when that is known (an advert's key). Every combination of
 *      candidates is weighed at once (a chain, so this is linear in the path length):
 *      - a combination with a link longer than MAX_LINK_KM is impossible; a candidate that is
 *        in no possible combination is out. One candidate left: resolved (`by: 'range'`).
 *      - otherwise each candidate's best combination is priced in km of radio link, a link
 *        already observed (two repeaters seen next to each other in paths whose hops resolve
 *        uniquely, which the store learns) priced SEEN_LINK_CREDIT_KM less. A candidate whose
 *        best combination is CLEARLY_SHORTER_KM shorter than every other candidate's is taken
 *        (`by: 'nearest'`).
 *      A repeater with no advertised position is placed at the median of its observed
 *      neighbours; one that cannot be placed at all is never excluded and never wins by
 *      distance: its unknown links are priced 0 km as a rival and unbounded as a winner.
 *   3. Otherwise the hop stays `ambiguous`, with `candidates` (every repeater carrying the
 *      prefix) and `plausible` (those still possible, likeliest first): nothing is guessed.
 *      A hop matching more than MAX_JOINT_CANDIDATES repeaters is not weighed (left open, and
 *      a wildcard for its neighbours), so a hostile or huge mesh cannot make a path expensive.
 *
 * Direct (routed) packets carry the route still to travel, so their observer heard the hop
 * before the first listed one: the observer is used as an anchor for flooded packets only
 * (pass `routeType`; without it, the packet is taken as flooded).
 * Measured on the simulator's large mesh, where the truth is known (bench:core
 * `hop_resolution`, `npm run bench:core -- --only=hops`).
 */
const MAX_LINK_KM = 80; // longest plausible LoRa link between two sites (hilltop to hilltop)
const CLEARLY_SHORTER_KM = 10; // the winner's links must total at least this much less than any rival's
const SEEN_LINK_CREDIT_KM = 5; // an observed link is worth this many km of distance
const MIN_NEIGHBOURS_TO_PLACE = 2; // observed neighbours needed to place a repeater without a position
const MAX_JOINT_CANDIDATES = 48; // a hop matching more repeaters is left open (the work grows as their square)
const FORWARDING_ROLE = 'repeater';
const DIRECT_ROUTE_TYPES = new Set([2, 3]); // DIRECT, TRANSPORT_DIRECT (decode.js ROUTE_TYPES)

/** Known nodes that could have forwarded a packet under this hop prefix (repeaters). */
function forwardersOf(store, prefix) {
  if (typeof prefix !== 'string') return [];
  const all = store.resolvePrefix(prefix);
  if (all.length === 0) return all;
  if (all.length === 1) return all[0].role === FORWARDING_ROLE ? all : [];
  return all.filter((node) => node.role === FORWARDING_ROLE);
}

function hasPosition(node) {
  return node !== null && node !== undefined && typeof node.lat === 'number' && typeof node.lon === 'number' && Number.isFinite(node.lat) && Number.isFinite(node.lon) && (node.lat !== 0 || node.lon !== 0);
}

/** Great-circle distance in km (haversine). */
function distanceKm(a, b) {
  const toRad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * toRad;
  const dLon = (b.lon - a.lon) * toRad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * toRad) * Math.cos(b.lat * toRad) * Math.sin(dLon / 2) ** 2;
  return 12742 * Math.asin(Math.min(1, Math.sqrt(h)));
}

// Inferred places of unplaced nodes, recomputed when their observed neighbours change, or any
// node changes (directory.js's node version: a neighbour may have moved).
const inferredPlaces = new WeakMap();

/**
 * Where a node is: its advertised position, else the median latitude and longitude of its
 * observed neighbours that have one (at least MIN_NEIGHBOURS_TO_PLACE), else null.
 */
function placeOf(store, node) {
  if (hasPosition(node)) return node;
  if (!node || !node.neighbours || node.neighbours.size < MIN_NEIGHBOURS_TO_PLACE) return null;
  const nodesVersion = store.directory ? store.directory.nodesVersion : 0;
  const cached = inferredPlaces.get(node);
  if (cached && cached.neighbourCount === node.neighbours.size && cached.nodesVersion === nodesVersion) return cached.place;
  const lats = [];
  const lons = [];
  for (const key of node.neighbours) {
    const other = store.nodes.get(key);
    if (hasPosition(other)) {
      lats.push(other.lat);
      lons.push(other.lon);
    }
  }
  let place = null;
  if (lats.length >= MIN_NEIGHBOURS_TO_PLACE) {
    lats.sort((x, y) => x - y);
    lons.sort((x, y) => x - y);
    const middle = (values) => (values.length % 2 === 1 ? values[values.length >> 1] : (values[values.length / 2 - 1] + values[values.length / 2]) / 2);
    place = { lat: middle(lats), lon: middle(lons), inferred: true };
  }
  inferredPlaces.set(node, { neighbourCount: node.neighbours.size, nodesVersion, place });
  return place;
}

function seenTogether(a, b) {
  return Boolean((a.neighbours && a.neighbours.has(b.pubKey)) || (b.neighbours && b.neighbours.has(a.pubKey)));
}

/**
 * One link between two possible nodes, priced in km: a number, Infinity (out of range), or
 * null (one end cannot be placed: priced by the caller). A null end (no anchor) costs 0.
 */
function linkPrice(store, a, b) {
  if (a === null || b === null) return 0;
  const placeA = placeOf(store, a);
  const placeB = placeA && placeOf(store, b);
  if (!placeB) return null;
  const km = distanceKm(placeA, placeB);
  if (km > MAX_LINK_KM) return Infinity; // even an observed link this long is a learning error
  return seenTogether(a, b) ? Math.max(0, km - SEEN_LINK_CREDIT_KM) : km;
}

/**
 * Best total price of the path through each candidate of each hop (forward and backward passes
 * over the chain), with unknown links priced `unknownKm`. `prices[i]` holds the links into hop i
 * (from hop i-1, or from the start anchor), `prices[n]` the links out of the last hop.
 */
function bestThrough(domains, prices, unknownKm) {
  const n = domains.length;
  const price = (value) => (value === null ? unknownKm : value);
  const forward = [];
  for (let i = 0; i < n; i++) {
    forward.push(domains[i].map((_, k) => {
      if (i === 0) return price(prices[0][0][k]);
      let best = Infinity;
      for (let j = 0; j < domains[i - 1].length; j++) best = Math.min(best, forward[i - 1][j] + price(prices[i][j][k]));
      return best;
    }));
  }
  const backward = new Array(n);
  for (let i = n - 1; i >= 0; i--) {
    backward[i] = domains[i].map((_, k) => {
      if (i === n - 1) return price(prices[n][k][0]);
      let best = Infinity;
      for (let j = 0; j < domains[i + 1].length; j++) best = Math.min(best, backward[i + 1][j] + price(prices[i + 1][k][j]));
      return best;
    });
  }
  return forward.map((row, i) => row.map((value, k) => value + backward[i][k]));
}

/** Price every link between consecutive hops' possible nodes, anchors at both ends. */
function priceLinks(store, domains, start, end) {
  const prices = [];
  for (let i = 0; i <= domains.length; i++) {
    const from = i === 0 ? [start] : domains[i - 1];
    const to = i === domains.length ? [end] : domains[i];
    prices.push(from.map((a) => to.map((b) => linkPrice(store, a, b))));
  }
  return prices;
}

/**
 * Resolve every hop of one observed path. `context`: { observerId, sourceKey, routeType } (the
 * observer's public key as it reports, the advert key of the packet's source when known, the
 * packet's route type 0-3). Returns one entry per hop:
 * { hop, status: 'resolved' | 'ambiguous' | 'unknown', node, candidates, by?, plausible? }
 * (`by` on resolved hops; `plausible` on ambiguous ones, empty when no combination fits).
 */
function resolvePath(store, path, context) {
  if (!Array.isArray(path)) return [];
  if (context === null || typeof context !== 'object') context = {};
  const entries = path.map((hop) => ({ hop, status: 'ambiguous', node: null, candidates: forwardersOf(store, hop) }));
  for (const entry of entries) {
    if (entry.candidates.length === 1) {
      entry.node = entry.candidates[0];
      entry.status = 'resolved';
      entry.by = 'prefix';
    } else if (entry.candidates.length === 0) {
      entry.status = 'unknown';
    }
  }
  if (!entries.some((entry) => entry.status === 'ambiguous')) return entries;

  const flooded = !DIRECT_ROUTE_TYPES.has(context.routeType);
  const observerNode = flooded && typeof context.observerId === 'string' ? store.nodes.get(context.observerId.toLowerCase()) || null : null;
  const sourceNode = flooded && typeof context.sourceKey === 'string' ? store.nodes.get(context.sourceKey.toLowerCase()) || null : null;
  // A node every combination passes through that cannot be placed tells nothing: a wildcard.
  const fixed = (node) => (node && placeOf(store, node) ? node : null);
  const weighed = (entry) => entry.candidates.length > 1 && entry.candidates.length <= MAX_JOINT_CANDIDATES;
  const domains = entries.map((entry) => (weighed(entry) ? entry.candidates : [fixed(entry.node)]));
  let prices = priceLinks(store, domains, fixed(sourceNode), fixed(observerNode));
  let rival = bestThrough(domains, prices, 0); // unknown links as short as can be
  if (rival.every((row) => row.every((value) => value === Infinity))) {
    // No combination fits the anchors (an observer or source far from where it advertised):
    // judge the path on its own hops rather than trust either end.
    prices = priceLinks(store, domains, null, null);
    rival = bestThrough(domains, prices, 0);
  }
  // Unknown links never help a winner (without any, both pricings agree).
  const winner = prices.some((links) => links.some((row) => row.includes(null))) ? bestThrough(domains, prices, Infinity) : rival;

  entries.forEach((entry, i) => {
    if (entry.status !== 'ambiguous') return;
    if (!weighed(entry)) {
      entry.plausible = entry.candidates;
      return;
    }
    const ranked = entry.candidates
      .map((node, k) => ({ node, atLeast: rival[i][k], atMost: winner[i][k] }))
      .filter((option) => option.atLeast < Infinity)
      .sort((x, y) => x.atMost - y.atMost || x.atLeast - y.atLeast);
    if (ranked.length === 1) {
      entry.node = ranked[0].node;
      entry.status = 'resolved';
      entry.by = 'range';
      return;
    }
    const best = ranked[0];
    if (best && best.atMost < Infinity && ranked.every((other) => other === best || best.atMost + CLEARLY_SHORTER_KM <= other.atLeast)) {
      entry.node = best.node;
      entry.status = 'resolved';
      entry.by = 'nearest';
      return;
    }
    entry.plausible = ranked.map((option) => option.node);
  });
  return entries;
}

module.exports = { resolvePath, forwardersOf, placeOf, distanceKm, MAX_JOINT_CANDIDATES, MAX_LINK_KM, CLEARLY_SHORTER_KM, SEEN_LINK_CREDIT_KM, FORWARDING_ROLE };
