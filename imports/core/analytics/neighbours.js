'use strict';
/**
 * neighbours: per node key or hop prefix, the keys seen adjacent to it, with how often, when
 * last, and the mean SNR of the link where a radio measured it.
 *
 * Unit: an observation (TRACE excluded: its path carries SNRs, see the traces view). Links:
 *   - consecutive hops a, b of the path that observer heard (SNR unknown);
 *   - the last hop and the observer itself (the observer heard it: SNR = the observation's);
 *   - a zero-hop observation: the sender (advert key, else source hash) and the observer.
 * An observer is keyed by its id, lower-cased when it is hex (observers report under their
 * public key). A link is undirected and listed on both keys; a hop repeated next to itself is
 * not a link. `lastSeen` is the first-heard time of the newest stored transmission that showed
 * the link: eviction is oldest-first, so it stays exact as packets leave.
 *
 * State is bounded by the mesh (keys and distinct links), not by packets: every key and link is
 * charged to the `neighbours` memory part and freed when its count returns to zero.
 */
const { defineView, memoryPart } = require('./view');
const { withSnapshotCache } = require('./snapshot-cache');
const { BYTES, keyBytes } = require('../memory-account');
const { topByCount } = require('./aggregates');
const { TopTracker } = require('./top-tracker');

const TRACE = 9;
const HEX_RE = /^[0-9a-fA-F]+$/;
const MAX_KNOWN = 5;
// A key entry: object (key, count, neighbours, top-list flag, lastSeen), its neighbours Map, the
// outer Map entry, a boxed lastSeen.
const KEY_BYTES = BYTES.object + 5 * BYTES.field + BYTES.map + BYTES.mapEntry + BYTES.heapNumber;
// A link: object with 10 fields (the last the top-list flag) and one entry in each side's neighbours Map.
const LINK_BYTES = BYTES.object + 10 * BYTES.field + 2 * BYTES.mapEntry + 2 * BYTES.heapNumber;

function keyOrder(x, y) {
  return y.count - x.count || (x.key < y.key ? -1 : x.key > y.key ? 1 : 0);
}

function createState(store) {
  const state = {
    keys: new Map(), // key -> { key, count, neighbours: Map otherKey -> link }
    links: 0,
    observations: 0,
    part: memoryPart(store, 'neighbours'),
  };
  // The busiest keys and links without a pass over all of them per snapshot (top-tracker.js).
  state.topKeys = new TopTracker({
    countOf: (entry) => entry.count,
    compare: keyOrder,
    forEach: (visit) => {
      for (const entry of state.keys.values()) visit(entry);
    },
  });
  state.topLinks = new TopTracker({
    countOf: (link) => link.count,
    compare: linkOrder,
    // Each link once, from its smaller key.
    forEach: (visit) => {
      for (const entry of state.keys.values()) for (const link of entry.neighbours.values()) if (link.a === entry.key) visit(link);
    },
  });
  return state;
}

// Observer record -> its key: computed once per observer, not per observation.
const observerKeys = new WeakMap();

function observerKey(observer) {
  let key = observerKeys.get(observer);
  if (key === undefined) {
    key = HEX_RE.test(observer.id) ? observer.id.toLowerCase() : observer.id;
    observerKeys.set(observer, key);
  }
  return key;
}

/** The sender of a zero-hop packet, when the packet names one. */
function senderKey(tx) {
  if (tx.advert !== null) return tx.advert.pubKey;
  return tx.srcHash;
}

function keyEntry(state, key) {
  let entry = state.keys.get(key);
  if (!entry) {
    entry = { key, count: 0, neighbours: new Map(), ranked: false, lastSeen: 0 };
    state.keys.set(key, entry);
    if (state.part) state.part.add(KEY_BYTES + keyBytes(key));
  }
  return entry;
}

/**
 * Count one sighting of the link a-b (sign -1 undoes one); frees at zero. `left` is a's entry
 * when the caller has it (undefined: looked up). Returns b's entry while it is still held, so
 * that a path's next link starts from it without a lookup.
 */
function countLink(state, left, a, b, time, snr, sign) {
  if (a === b) return left;
  if (left === undefined) left = state.keys.get(a);
  let link = left === undefined ? undefined : left.neighbours.get(b);
  if (link === undefined) {
    if (sign < 0) return undefined; // nothing to undo (cannot happen while apply and evict mirror)
    const first = a < b ? keyEntry(state, a) : keyEntry(state, b);
    const second = a < b ? keyEntry(state, b) : keyEntry(state, a);
    // Both key entries ride on the link, so a sighting looks up one key, not both.
    link = { a: first.key, b: second.key, count: 0, lastSeen: 0, snrCount: 0, snrQuarters: 0, snrOther: 0, entryA: first, entryB: second, ranked: false };
    first.neighbours.set(second.key, link);
    second.neighbours.set(first.key, link);
    state.links++;
    if (state.part) state.part.add(LINK_BYTES);
  }
  const entryA = link.entryA;
  const entryB = link.entryB;
  link.count += sign;
  entryA.count += sign;
  entryB.count += sign;
  if (sign > 0) {
    if (time > link.lastSeen) link.lastSeen = time;
    // A key's newest link, kept as links are: eviction is oldest-first, so it stays exact.
    if (time > entryA.lastSeen) entryA.lastSeen = time;
    if (time > entryB.lastSeen) entryB.lastSeen = time;
    state.topLinks.raised(link, link.count);
    state.topKeys.raised(entryA, entryA.count);
    state.topKeys.raised(entryB, entryB.count);
  }
  if (snr !== null) {
    link.snrCount += sign;
    // SNR arrives in quarter dB: summed as integers it is exact; anything else as a float.
    const quarters = snr * 4;
    if (Number.isInteger(quarters) && Math.abs(quarters) < 2 ** 30) link.snrQuarters += sign * quarters;
    else link.snrOther += sign * snr;
    if (link.snrCount === 0) link.snrOther = 0;
  }
  if (link.count === 0) {
    entryA.neighbours.delete(entryB.key);
    entryB.neighbours.delete(entryA.key);
    state.links--;
    if (state.part) state.part.add(-LINK_BYTES);
    if (entryA.count === 0) dropKey(state, entryA);
    if (entryB.count === 0) dropKey(state, entryB);
  }
  const right = entryA.key === b ? entryA : entryB;
  return right.count > 0 ? right : undefined;
}

/** A key no stored link names any more. */
function dropKey(state, entry) {
  state.keys.delete(entry.key);
  if (state.part) state.part.add(-(KEY_BYTES + keyBytes(entry.key)));
}

/**
 * Apply (sign 1) or undo (sign -1) one observation's links. The keys it touched are appended to
 * `touched` when given (null: no scope is watched, and the list is not built: it was an eighth
 * of all that ingest allocated on the default mesh).
 */
function count(state, tx, observation, sign, touched) {
  const path = observation.path;
  const observer = observerKey(observation.observer);
  state.observations += sign;
  let entry;
  for (let i = 1; i < path.length; i++) entry = countLink(state, entry, path[i - 1], path[i], tx.time, null, sign);
  const heardFrom = path.length > 0 ? path[path.length - 1] : senderKey(tx);
  if (heardFrom !== null) countLink(state, entry, heardFrom, observer, tx.time, observation.snr, sign);
  if (touched !== null) {
    touched.push(observer);
    for (let i = 0; i < path.length; i++) touched.push(path[i]);
    if (path.length === 0 && heardFrom !== null) touched.push(heardFrom);
  }
}

function apply(state, tx, observation, store, scopesWatched) {
  if (tx.payloadType === TRACE) return false;
  const touched = scopesWatched ? [] : null;
  count(state, tx, observation, 1, touched);
  return touched === null ? true : touched;
}

function evict(state, tx, store, scopesWatched) {
  if (tx.payloadType === TRACE) return false;
  const touched = scopesWatched ? [] : null;
  for (const observation of tx.observations) count(state, tx, observation, -1, touched);
  return touched === null ? true : touched;
}

function meanSnr(link) {
  return link.snrCount === 0 ? null : (link.snrQuarters / 4 + link.snrOther) / link.snrCount;
}

/** Known nodes a key could be (by public-key prefix), for display. */
function knownFor(store, key) {
  const matches = HEX_RE.test(key) && key.length % 2 === 0 ? store.resolvePrefix(key) : [];
  const sorted = matches.length > MAX_KNOWN ? matches.slice().sort(byPubKey).slice(0, MAX_KNOWN) : matches.slice().sort(byPubKey);
  return { matchCount: matches.length, nodes: sorted.map((node) => ({ pubKey: node.pubKey, name: node.name, role: node.role })) };
}

function byPubKey(a, b) {
  return a.pubKey < b.pubKey ? -1 : a.pubKey > b.pubKey ? 1 : 0;
}

/** The keys a node parameter stands for: a full key and its 1-, 2-, 3-byte hop prefixes; a prefix itself. */
function keysOf(node) {
  return node.length > 6 ? [node, node.slice(0, 2), node.slice(0, 4), node.slice(0, 6)] : [node];
}

function linkRow(link, other, store) {
  return { key: other, count: link.count, lastSeen: link.lastSeen, snrCount: link.snrCount, meanSnr: meanSnr(link), known: knownFor(store, other) };
}

function linkOrder(x, y) {
  return y.count - x.count || (x.a < y.a ? -1 : x.a > y.a ? 1 : x.b < y.b ? -1 : x.b > y.b ? 1 : 0);
}

function snapshot(state, params, store) {
  const units = {
    count: 'observations showing the link (adjacent hops, or last hop and observer)',
    lastSeen: 'first-heard time of the newest stored transmission showing the link (ms)',
    meanSnr: 'mean SNR (dB) where the link ends at an observer; null when never measured',
  };
  if (params.node !== null) {
    const keys = [];
    for (const key of keysOf(params.node)) {
      const entry = state.keys.get(key);
      if (!entry) continue;
      const neighbours = topByCount(entry.neighbours, params.limit, (link) => link.count).map(([other]) => linkRow(entry.neighbours.get(other), other, store));
      keys.push({ key, count: entry.count, neighbourCount: entry.neighbours.size, known: knownFor(store, key), neighbours });
    }
    return { units, node: params.node, keys };
  }
  const nodes = state.topKeys.top(params.limit).map((entry) => (
    { key: entry.key, count: entry.count, neighbourCount: entry.neighbours.size, lastSeen: entry.lastSeen, known: knownFor(store, entry.key) }));
  const links = state.topLinks.top(params.limit).map((link) => ({ a: link.a, b: link.b, count: link.count, lastSeen: link.lastSeen, snrCount: link.snrCount, meanSnr: meanSnr(link) }));
  return { units, observations: state.observations, keyCount: state.keys.size, linkCount: state.links, nodes, links };
}

module.exports = defineView(withSnapshotCache({
  name: 'neighbours',
  description: 'Per node key or hop prefix: the keys seen adjacent to it in paths, with counts, last seen and mean SNR.',
  params: {
    // A public key (its own links and those of its 1-, 2- and 3-byte prefixes) or one hop prefix.
    node: { type: 'string', maxLength: 64, pattern: HEX_RE, lowerCase: true },
    limit: { type: 'int', min: 1, max: 500, default: 50 },
  },
  createState,
  apply,
  evict,
  snapshot,
  // A subscription to one node recomputes only when one of its keys changed.
  scopeOf: (params) => (params.node === null ? null : keysOf(params.node)),
}));
