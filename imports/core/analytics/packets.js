'use strict';
/**
 * packets: recent transmissions, newest first, grouped by hash (one row per transmission with
 * how many observers heard it and the longest path any of them reported), with filters.
 * With `hash` set, the one row also carries `detail`: the byte range of every field. With `node`
 * set, each row carries `nodeMatch`: the longest path naming the node and where (nodePathMatch).
 *
 * No state of its own: the store's indexes (by hash, observer, node, payload type, time) are
 * the state, so this view picks the smallest index that answers the filter and walks it
 * newest-first until `limit` rows match. Cost is O(limit) for indexed filters; a filter on
 * region or route alone walks the FIFO (bounded by `scanLimit`, reported as `truncated`).
 *
 * `filter` is a packet filter expression (imports/core/packet-filter.js), ANDed with the other
 * params and evaluated here on the server, so it serves a live subscription like any param. A
 * filter that does not parse is refused by normalizeParams (ParamError naming the position);
 * a top-level `type == X` in it walks that type's index instead of the FIFO.
 */
const { defineView, wrapNormalizeParams, ParamError } = require('./view');
const { compileFilter, FILTER_LIMITS } = require('../packet-filter');
const { layout, PAYLOAD_TYPE_IDS } = require('../decode');
const { forEachNewestMerged } = require('../deque');
const { rawHex } = require('../store');

const SCAN_LIMIT = 200000;
const HEX_RE = /^[0-9a-fA-F]+$/;
// Compiled filters by text: a live subscription re-runs its snapshot on every packet.
const COMPILED_LIMIT = 256;
const compiled = new Map();

/** The compiled filter for `text` (null for none); throws ParamError when it does not parse. */
function filterOf(text) {
  if (text === null || text.trim() === '') return null;
  let result = compiled.get(text);
  if (!result) {
    result = compileFilter(text);
    if (compiled.size >= COMPILED_LIMIT) compiled.delete(compiled.keys().next().value);
    compiled.set(text, result);
  }
  if (result.error) throw new ParamError('packets', 'filter', `does not parse: ${result.error.message}`);
  return result;
}

/** Index keys a `node` search reads: a full key's 1-, 2- and 3-byte prefixes; a short one is itself. */
function nodeKeysOf(node) {
  return node.length >= 8 ? [node.slice(0, 2), node.slice(0, 4), node.slice(0, 6)] : [node];
}

/**
 * Why a node search matched a transmission through a path: the longest observed path with a hop
 * among `keys`, and the indexes of those hops; null when no path names it (its advert, src or
 * dest hash matched, which the row's What shows). The row shows this path instead of only the
 * longest: a repeater often relayed just a shorter copy, and an operator searching for it wants
 * those packets listed (not dropped) and to see where it sits in them.
 */
function nodePathMatch(tx, keys) {
  let best = null;
  for (const observation of tx.observations) {
    const path = observation.path;
    if (best !== null && path.length <= best.length) continue;
    for (const hop of path) {
      if (keys.includes(hop)) {
        best = path;
        break;
      }
    }
  }
  if (best === null) return null;
  const hops = [];
  for (let i = 0; i < best.length; i++) if (keys.includes(best[i])) hops.push(i);
  return { path: best, hops };
}

function summarize(tx, nodeKeys = null) {
  let longestPath = tx.path;
  const observers = new Set();
  const regions = new Set();
  let bestSnr = null;
  for (const observation of tx.observations) {
    observers.add(observation.observer.id);
    if (observation.observer.region) regions.add(observation.observer.region);
    if (observation.path.length > longestPath.length) longestPath = observation.path;
    if (observation.snr !== null && (bestSnr === null || observation.snr > bestSnr)) bestSnr = observation.snr;
  }
  return {
    hash: tx.hash,
    time: tx.time,
    lastTime: tx.observations.length ? tx.observations[tx.observations.length - 1].time : tx.time,
    routeType: tx.routeType,
    payloadType: tx.payloadType,
    payloadVersion: tx.payloadVersion,
    size: tx.size,
    hashSize: tx.hashSize,
    hopCount: tx.hopCount,
    observationCount: tx.observations.length,
    observerCount: observers.size,
    observers: Array.from(observers),
    regions: Array.from(regions),
    longestPath,
    bestSnr,
    srcHash: tx.srcHash,
    destHash: tx.destHash,
    channelHash: tx.channelHash,
    advert: tx.advert ? { pubKey: tx.advert.pubKey, name: tx.advert.name, role: tx.advert.role } : null,
    message: tx.message ? { channel: tx.message.channel, sender: tx.message.sender, text: tx.message.text } : null,
    ...(nodeKeys === null ? null : { nodeMatch: nodePathMatch(tx, nodeKeys) }),
  };
}

function matches(tx, params, filter) {
  if (params.type !== null && tx.payloadType !== params.type) return false;
  if (params.route !== null && tx.routeType !== params.route) return false;
  if (params.since !== null && tx.time < params.since) return false;
  if (params.until !== null && tx.time > params.until) return false;
  if (params.observer !== null && !tx.observations.some((o) => o.observer.id === params.observer)) return false;
  if (params.region !== null && !tx.observations.some((o) => o.observer.region === params.region)) return false;
  if (params.text !== null && !matchesText(tx, params.text)) return false;
  if (filter !== null && !filter.test(tx)) return false;
  return true;
}

function matchesText(tx, text) {
  if (tx.hash.startsWith(text)) return true;
  if (tx.advert && tx.advert.name && tx.advert.name.toLowerCase().includes(text)) return true;
  if (tx.message) {
    if (tx.message.sender && tx.message.sender.toLowerCase().includes(text)) return true;
    if (tx.message.text && tx.message.text.toLowerCase().includes(text)) return true;
  }
  return false;
}

const definition = defineView({
  name: 'packets',
  description: 'Recent transmissions grouped by hash, with filters; one packet with its byte layout.',
  params: {
    type: { type: 'int', min: 0, max: 15 },
    route: { type: 'int', min: 0, max: 3 },
    region: { type: 'string', maxLength: 64 },
    observer: { type: 'string', maxLength: 128 },
    node: { type: 'string', maxLength: 64, pattern: HEX_RE, lowerCase: true },
    hash: { type: 'string', maxLength: 16, pattern: HEX_RE, lowerCase: true },
    // Case-insensitive text in an advert name, a channel message's sender or text, or a hash prefix.
    text: { type: 'string', maxLength: 64, lowerCase: true },
    since: { type: 'number', min: 0 },
    until: { type: 'number', min: 0 },
    limit: { type: 'int', min: 1, max: 500, default: 50 },
    // Wireshark-style expression: `type == GRP_TXT && hops >= 3 && observer ~ "Peak"`.
    filter: { type: 'string', maxLength: FILTER_LIMITS.maxLength },
  },
  createState: () => ({}),
  apply: () => true,
  evict: () => true,
  snapshot(state, params, store) {
    const filter = filterOf(params.filter);
    if (params.hash !== null) {
      const tx = store.byHash.get(params.hash);
      if (!tx || !matches(tx, params, filter)) return { packets: [], truncated: false };
      const row = summarize(tx);
      const raw = rawHex(tx);
      const { fields } = layout(raw, { keyring: store.keyring });
      row.detail = {
        raw,
        fields,
        observations: tx.observations.map((o) => ({
          observer: o.observer.id, region: o.observer.region, time: o.time, snr: o.snr, rssi: o.rssi, score: o.score, direction: o.direction, path: o.path,
        })),
        transportCodes: tx.transportCodes,
        trace: tx.trace,
        ackChecksum: tx.ackChecksum,
        advert: tx.advert,
      };
      return { packets: [row], truncated: false };
    }
    // Pick the narrowest index that every matching transmission must be in.
    let source = store.fifo;
    const nodeKeys = params.node === null ? null : nodeKeysOf(params.node);
    if (params.node !== null) {
      // A full key: its adverts and its 1-, 2- and 3-byte prefixes; a short one: that prefix.
      const deques = nodeKeys.map((key) => store.byPrefix.get(key)).filter(Boolean);
      const adverts = params.node.length >= 8 ? store.byNode.get(params.node) : null;
      if (adverts) deques.push(adverts);
      source = { forEachNewest: (visit) => forEachNewestMerged(deques, visit) };
    } else if (params.observer !== null) {
      source = store.byObserver.get(params.observer);
    } else if (params.type !== null) {
      source = store.byType.get(params.type);
    } else if (filter !== null && filter.hints.type !== null) {
      source = store.byType.get(filter.hints.type);
    }
    const packets = [];
    let scanned = 0;
    let truncated = false;
    if (source) {
      source.forEachNewest((tx) => {
        if (++scanned > SCAN_LIMIT) { truncated = true; return false; }
        if (params.since !== null && tx.time < params.since) return false; // newest-first: older ones follow
        if (matches(tx, params, filter)) packets.push(summarize(tx, nodeKeys));
        return packets.length < params.limit;
      });
    }
    return { packets, truncated };
  },
});

/**
 * normalizeParams also parses `filter`, so a bad expression is a bad parameter (400 over REST,
 * bad-params from a method or subscription) with its position, not a failed snapshot.
 */
function withFilterChecked(normalize) {
  return (raw) => {
    const params = normalize(raw);
    filterOf(params.filter);
    return params;
  };
}
wrapNormalizeParams(definition, withFilterChecked);

module.exports = definition;
module.exports.PAYLOAD_TYPE_IDS = PAYLOAD_TYPE_IDS;
