'use strict';
/**
 * The radio: who can hear whom (the neighbour graph), how a packet spreads (flood tree,
 * fixed direct routes), which observers hear a transmission from whom, and the SNR/RSSI of
 * a link. Only repeaters relay, so floods and routes walk a repeater-only adjacency.
 */
const { distanceKm } = require('./world');

// LoRa SNR floor for SF11, the US default; used by the packet score like the firmware does.
const SNR_THRESHOLD_DB = -17.5;
// Direct routes are cached per (from, to); past this many the cache starts over (routes are
// recomputed identically, so this bounds memory without changing the stream).
const MAX_CACHED_ROUTES = 200000;

/**
 * Neighbour graph from radio range. Two fixes keep every packet deliverable: each
 * non-repeater gets its nearest repeater as a neighbour, and separate repeater clusters are
 * joined by their closest pair (a long link, as a well-placed hill site gives in reality).
 * Pairs in range are found through a grid of range-sized cells (O(n) rather than O(n^2)).
 */
function buildGraph(nodes, options) {
  const count = nodes.length;
  // One bit per ordered pair: 5,000 nodes take 3 MB.
  const adjacency = new Uint32Array(Math.ceil((count * count) / 32));
  const neighbours = nodes.map(() => []);
  const has = (a, b) => {
    const bit = a * count + b;
    return (adjacency[bit >>> 5] & (1 << (bit & 31))) !== 0;
  };
  const set = (a, b) => {
    const bit = a * count + b;
    adjacency[bit >>> 5] |= 1 << (bit & 31);
  };
  const link = (a, b) => {
    if (a === b || has(a, b)) return;
    set(a, b);
    set(b, a);
    neighbours[a].push(b);
    neighbours[b].push(a);
  };
  const highSite = (node) => node.role === 'repeater' || node.role === 'room';
  const cellKm = Math.max(options.repeaterRangeKm, options.nodeRangeKm);
  const cells = new Map();
  const cellOf = (v) => Math.floor(v / cellKm);
  for (const node of nodes) {
    const key = `${cellOf(node.x)},${cellOf(node.y)}`;
    if (!cells.has(key)) cells.set(key, []);
    cells.get(key).push(node.index);
  }
  for (let a = 0; a < count; a++) {
    const cx = cellOf(nodes[a].x);
    const cy = cellOf(nodes[a].y);
    for (let dx = -1; dx <= 1; dx++) {
      for (let dy = -1; dy <= 1; dy++) {
        const cell = cells.get(`${cx + dx},${cy + dy}`);
        if (!cell) continue;
        for (const b of cell) {
          if (b <= a) continue;
          const range = highSite(nodes[a]) && highSite(nodes[b]) ? options.repeaterRangeKm : options.nodeRangeKm;
          if (distanceKm(nodes[a], nodes[b]) <= range) link(a, b);
        }
      }
    }
  }
  const repeaters = nodes.filter((n) => n.role === 'repeater').map((n) => n.index);
  for (const node of nodes) {
    if (node.role === 'repeater' || neighbours[node.index].some((i) => nodes[i].role === 'repeater')) continue;
    let nearest = repeaters[0];
    for (const r of repeaters) if (distanceKm(node, nodes[r]) < distanceKm(node, nodes[nearest])) nearest = r;
    link(node.index, nearest);
  }
  // Join repeater components until one remains.
  for (;;) {
    const component = new Map();
    for (const start of repeaters) {
      if (component.has(start)) continue;
      const stack = [start];
      component.set(start, start);
      while (stack.length) {
        const u = stack.pop();
        for (const v of neighbours[u]) {
          if (nodes[v].role === 'repeater' && !component.has(v)) {
            component.set(v, start);
            stack.push(v);
          }
        }
      }
    }
    const first = component.get(repeaters[0]);
    let best = null;
    for (const a of repeaters) {
      if (component.get(a) !== first) continue;
      for (const b of repeaters) {
        if (component.get(b) === first) continue;
        const d = distanceKm(nodes[a], nodes[b]);
        if (!best || d < best.d) best = { a, b, d };
      }
    }
    if (!best) break;
    link(best.a, best.b);
  }
  for (const list of neighbours) list.sort((a, b) => a - b);
  return {
    neighbours,
    areNeighbours: has,
    distanceKm: (a, b) => distanceKm(nodes[a], nodes[b]),
  };
}

/**
 * Propagation over a graph, drawing its randomness from `traffic`. Returns
 *   flood(sender)      breadth-first flood tree in depth[] / parent[] (valid until the next call)
 *   route(from, to)    fixed shortest relay list (repeaters only), [] when neighbours
 *   hearings(tx)       [{ observer, transmitter, hops }] for each observer that hears tx
 *   linkSignal(from, toPoint, packetBytes) -> { snr, rssi, score }
 */
function createRadio({ nodes, graph, observers, options, traffic }) {
  const count = nodes.length;
  const isRepeater = new Uint8Array(count);
  for (const node of nodes) isRepeater[node.index] = node.role === 'repeater' ? 1 : 0;
  // Per node: its repeater neighbours (index order) and their positions in the full list, so
  // a flood scans only relays yet visits them in the same order as a scan of every neighbour.
  const relays = graph.neighbours.map((list) => list.filter((v) => isRepeater[v]));
  const relayPositions = graph.neighbours.map((list) => Int32Array.from(list.flatMap((v, k) => (isRepeater[v] ? [k] : []))));

  // Flood state, reused across transmissions: a generation stamp avoids clearing arrays.
  const seen = new Uint32Array(count);
  const depth = new Int32Array(count);
  const parent = new Int32Array(count);
  const queue = new Int32Array(count);
  let generation = 0;
  const routeCache = new Map();

  function visit(u, v) {
    if (seen[v] === generation) return false;
    seen[v] = generation;
    depth[v] = depth[u] + 1;
    parent[v] = u;
    return true;
  }

  function flood(sender) {
    generation++;
    seen[sender] = generation;
    depth[sender] = 0;
    parent[sender] = -1;
    let head = 0;
    let tail = 0;
    queue[tail++] = sender;
    while (head < tail) {
      const u = queue[head++];
      // A repeater that received the packet at depth d relays it (with d hashes) while d <= the limit.
      if (depth[u] > options.maxFloodHops) continue;
      const size = graph.neighbours[u].length;
      // A random starting point varies which equal-length branch wins, like real timing does.
      const start = size > 1 ? traffic.int(size) : 0;
      // Only relays matter downstream: non-repeaters never forward, and hearings() only
      // reads the sender and repeaters; so scan the relays from `start`, then wrap around.
      const list = relays[u];
      const positions = relayPositions[u];
      let first = 0;
      while (first < positions.length && positions[first] < start) first++;
      for (let k = first; k < list.length; k++) if (visit(u, list[k])) queue[tail++] = list[k];
      for (let k = 0; k < first; k++) if (visit(u, list[k])) queue[tail++] = list[k];
    }
  }

  /** Fixed shortest route (repeaters only) from one node to another; [] when neighbours. */
  function route(from, to) {
    const key = from * count + to;
    const cached = routeCache.get(key);
    if (cached) return cached;
    generation++;
    seen[from] = generation;
    parent[from] = -1;
    let head = 0;
    let tail = 0;
    queue[tail++] = from;
    let found = from === to;
    while (head < tail && !found) {
      const u = queue[head++];
      if (graph.areNeighbours(u, to)) {
        parent[to] = u;
        found = true;
        break;
      }
      for (const v of relays[u]) {
        if (seen[v] === generation) continue;
        seen[v] = generation;
        parent[v] = u;
        queue[tail++] = v;
      }
    }
    const path = [];
    if (found) for (let at = parent[to]; at !== from && at !== -1; at = parent[at]) path.push(at);
    path.reverse();
    if (routeCache.size >= MAX_CACHED_ROUTES) routeCache.clear();
    routeCache.set(key, path);
    return path;
  }

  /** Who can hear a transmission: each observer's first transmitter in range and its hop index. */
  function hearings(tx) {
    const heard = [];
    if (tx.mode === 'flood') {
      const sender = tx.sender;
      flood(sender);
      // A non-repeater sender is heard directly by the observers next to it.
      const senderIsRelay = isRepeater[sender] === 1;
      for (const observer of observers) {
        const host = observer.node;
        if (host === sender) continue;
        let best = -1;
        let ties = 0;
        // Candidates in index order: the host's relays, with the sender slotted in at its place.
        let senderPending = !senderIsRelay && graph.areNeighbours(host, sender);
        const list = relays[host];
        for (let k = 0; k <= list.length; k++) {
          let v;
          if (senderPending && (k === list.length || list[k] > sender)) {
            v = sender;
            senderPending = false;
            k--;
          } else if (k === list.length) {
            break;
          } else {
            v = list[k];
            if (seen[v] !== generation || (v !== sender && depth[v] > options.maxFloodHops)) continue;
          }
          if (best === -1 || depth[v] < depth[best]) { best = v; ties = 1; } else if (depth[v] === depth[best] && traffic.int(++ties) === 0) best = v;
        }
        if (best !== -1) heard.push({ observer, transmitter: best, hops: depth[best] });
      }
      return heard;
    }
    // Direct, zero-hop and trace: transmitters in order are the sender, then each relay.
    const path = tx.mode === 'zerohop' ? [] : tx.route;
    for (const observer of observers) {
      const host = observer.node;
      if (host === tx.sender) continue;
      for (let j = 0; j <= path.length; j++) {
        const transmitter = j === 0 ? tx.sender : path[j - 1];
        if (transmitter === host || !graph.areNeighbours(transmitter, host)) continue;
        heard.push({ observer, transmitter, hops: j });
        break;
      }
    }
    return heard;
  }

  function linkSignal(from, toPoint, packetBytes) {
    const d = distanceKm(nodes[from], toPoint) + 0.3;
    const fade = traffic.gaussian();
    const logD = Math.log10(d);
    let snr = 14 - 22 * logD + 2.5 * fade + traffic.gaussian() * 0.5;
    snr = Math.round(Math.max(-20, Math.min(15, snr)) * 4) / 4;
    const rssi = Math.round(Math.max(-125, Math.min(-40, -75 - 28 * logD + 3 * fade)));
    // The firmware's packet score: SNR margin over the SF threshold, less a length penalty.
    const margin = (snr - SNR_THRESHOLD_DB) / 10;
    const score = Math.round(Math.max(0, Math.min(1, margin * (1 - packetBytes / 256))) * 1000);
    return { snr, rssi, score };
  }

  return { isRepeater, flood, route, hearings, linkSignal, parent };
}

module.exports = { buildGraph, createRadio };
