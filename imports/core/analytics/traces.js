'use strict';
/**
 * traces: TRACE packets as their per-hop SNR path. A TRACE carries the route it is to travel
 * (hop hashes in its payload) and collects one SNR per hop in its path field as it goes: snrs[i]
 * is the SNR at which hop i heard the one before it (the sender, for hop 0). Decode gives
 * tx.trace = { tag, authCode, flags, hashes, snrs }.
 *
 * Rows: the stored TRACE transmissions, newest first (the store's type index: O(limit)). The
 * firmware hashes a TRACE with its path-length byte, so one trace heard after 1, 2 and 3 hops is
 * three transmissions, each holding the SNRs measured so far. Links (hop i-1 -> hop i, with the
 * SNR hop i measured) are therefore counted once per journey (same tag, auth code, flags and
 * route), from its stored copy that got furthest (ties: the newest); when that copy is evicted
 * the next furthest takes over, so the figures stay exact. `lastSeen` is the first-heard time of
 * the newest counted copy showing the link. Journeys and links are charged to the `traces` part.
 */
const { defineView, memoryPart } = require('./view');
const { isFirstObservation } = require('../stored-records');
const { BYTES, keyBytes } = require('../memory-account');
const { keepBest } = require('./aggregates');

const TRACE = 9;
const HEX_RE = /^[0-9a-fA-F]+$/;
const SCAN_LIMIT = 20000;
// A journey: object, its copies array (a few slots) and the Map entry; a link: object and entry.
const JOURNEY_BYTES = BYTES.object + 3 * BYTES.field + BYTES.object + 4 * BYTES.arraySlot + BYTES.mapEntry;
const LINK_BYTES = BYTES.object + 6 * BYTES.field + BYTES.mapEntry + BYTES.heapNumber;

function createState(store) {
  return {
    journeys: new Map(), // journey key -> { key, copies: [tx], counted: tx | null }
    links: new Map(), // "from>to" -> { from, to, count, snrQuarters, snrOther, lastSeen }
    part: memoryPart(store, 'traces'),
  };
}

function journeyKey(trace) {
  return `${trace.tag}:${trace.authCode}:${trace.flags}:${trace.hashes.join(',')}`;
}

/** Hops whose SNR this copy measured: never more than its route has. */
function reached(trace) {
  return Math.min(trace.snrs.length, trace.hashes.length);
}

/** Does copy a count before copy b: further along, then newer. */
function furthest(a, b) {
  const ra = reached(a.trace);
  const rb = reached(b.trace);
  return ra !== rb ? ra > rb : a.seq > b.seq;
}

function countLinks(state, tx, sign) {
  const { hashes, snrs } = tx.trace;
  const end = reached(tx.trace);
  for (let i = 1; i < end; i++) {
    const key = `${hashes[i - 1]}>${hashes[i]}`;
    let link = state.links.get(key);
    if (!link) {
      if (sign < 0) continue; // cannot happen while apply and evict mirror
      link = { from: hashes[i - 1], to: hashes[i], count: 0, snrQuarters: 0, snrOther: 0, lastSeen: 0 };
      state.links.set(key, link);
      if (state.part) state.part.add(LINK_BYTES + keyBytes(key));
    }
    link.count += sign;
    // Trace SNRs are signed bytes in quarter dB: summed as integers they are exact.
    const quarters = snrs[i] * 4;
    if (Number.isInteger(quarters)) link.snrQuarters += sign * quarters;
    else link.snrOther += sign * snrs[i];
    if (sign > 0 && tx.time > link.lastSeen) link.lastSeen = tx.time;
    if (link.count === 0) {
      state.links.delete(key);
      if (state.part) state.part.add(-(LINK_BYTES + keyBytes(key)));
    }
  }
}

function apply(state, tx, observation) {
  // An advert may name a hop of a listed trace: the rows' `known` changes.
  if (tx.payloadType !== TRACE) return tx.advert !== null;
  // Once per transmission: its first observation (later ones only add observers).
  if (tx.trace === null || !isFirstObservation(tx, observation)) return true;
  const key = journeyKey(tx.trace);
  let journey = state.journeys.get(key);
  if (!journey) {
    journey = { key, copies: [], counted: null };
    state.journeys.set(key, journey);
    if (state.part) state.part.add(JOURNEY_BYTES + keyBytes(key));
  }
  journey.copies.push(tx);
  if (state.part) state.part.add(BYTES.arraySlot);
  if (journey.counted === null || furthest(tx, journey.counted)) {
    if (journey.counted !== null) countLinks(state, journey.counted, -1);
    journey.counted = tx;
    countLinks(state, tx, 1);
  }
  return true;
}

function evict(state, tx) {
  if (tx.payloadType !== TRACE || tx.trace === null) return false;
  const key = journeyKey(tx.trace);
  const journey = state.journeys.get(key);
  if (!journey) return true;
  const at = journey.copies.indexOf(tx);
  if (at >= 0) {
    journey.copies.splice(at, 1);
    if (state.part) state.part.add(-BYTES.arraySlot);
  }
  if (journey.counted === tx) {
    countLinks(state, tx, -1);
    let next = null;
    for (const copy of journey.copies) if (next === null || furthest(copy, next)) next = copy;
    journey.counted = next;
    if (next !== null) countLinks(state, next, 1);
  }
  if (journey.copies.length === 0) {
    state.journeys.delete(key);
    if (state.part) state.part.add(-(JOURNEY_BYTES + keyBytes(key)));
  }
  return true;
}

function meanSnr(link) {
  return (link.snrQuarters / 4 + link.snrOther) / link.count;
}

/** Do two hex identities agree on their common length? */
function sameIdentity(a, b) {
  return a.length <= b.length ? b.startsWith(a) : a.startsWith(b);
}

function known(store, hop) {
  const matches = HEX_RE.test(hop) ? store.resolvePrefix(hop) : [];
  const node = matches.length === 1 ? { pubKey: matches[0].pubKey, name: matches[0].name, role: matches[0].role } : null;
  return { matchCount: matches.length, node };
}

function traceRow(tx, store) {
  const { tag, authCode, flags, hashes, snrs } = tx.trace;
  const hops = hashes.map((hash, i) => ({ hash, snr: i < snrs.length ? snrs[i] : null, known: known(store, hash) }));
  const observers = tx.observations.map((o) => ({ id: o.observer.id, name: o.observer.name, region: o.observer.region, snr: o.snr, rssi: o.rssi, time: o.time }));
  return {
    hash: tx.hash,
    time: tx.time,
    tag,
    authCode,
    flags,
    hashSize: 1 << (flags & 0x03),
    routeLength: hashes.length,
    reached: reached(tx.trace),
    complete: snrs.length >= hashes.length,
    hops,
    observers,
  };
}

function linkOrder(a, b) {
  return b.count - a.count || (a.from < b.from ? -1 : a.from > b.from ? 1 : a.to < b.to ? -1 : a.to > b.to ? 1 : 0);
}

function snapshot(state, params, store) {
  const matchesNode = (hop) => params.node === null || sameIdentity(hop, params.node);
  const traces = [];
  let truncated = false;
  const deque = store.byType.get(TRACE);
  if (deque) {
    let scanned = 0;
    deque.forEachNewest((tx) => {
      if (++scanned > SCAN_LIMIT) { truncated = true; return false; }
      if (tx.trace !== null && tx.trace.hashes.some(matchesNode)) traces.push(traceRow(tx, store));
      return traces.length < params.limit;
    });
  }
  // The busiest links (bounded insertion: O(links), no sort of all of them).
  const best = [];
  for (const link of state.links.values()) {
    if (matchesNode(link.from) || matchesNode(link.to)) keepBest(best, link, params.limit, linkOrder);
  }
  return {
    units: {
      hops: 'per hop of the route: its hash and the SNR (dB) at which it heard the previous one (null: not reached)',
      links: 'hop -> next hop, counted once per trace journey; meanSnr in dB as measured by the receiving hop',
    },
    stored: deque ? deque.length : 0,
    journeys: state.journeys.size,
    traces,
    truncated,
    links: best.map((link) => ({ from: link.from, to: link.to, count: link.count, meanSnr: meanSnr(link), lastSeen: link.lastSeen })),
  };
}

module.exports = defineView({
  name: 'traces',
  description: 'TRACE packets as their per-hop SNR path, and SNR per traced link.',
  params: {
    // Only traces whose route passes a hop matching this key or prefix.
    node: { type: 'string', maxLength: 64, pattern: HEX_RE, lowerCase: true },
    limit: { type: 'int', min: 1, max: 200, default: 50 },
  },
  createState,
  apply,
  evict,
  snapshot,
});
