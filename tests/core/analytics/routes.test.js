'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { resolvePath } = require('../../../imports/core/hop-resolver');
const { PAYLOAD_TYPES, ROUTE_TYPES } = require('../../../imports/core/decode');
const { checkAgainstBruteForce, simulatedReports } = require('../../helpers/mesh');
const { createEngine } = require('../../../imports/core/engine');

const DAY = 24 * 3600e3;
const isPlaced = (n) => n && typeof n.lat === 'number' && typeof n.lon === 'number' && (n.lat !== 0 || n.lon !== 0);
const brief = (n) => (n ? { pubKey: n.pubKey, name: n.name || null, role: n.role || null, lat: isPlaced(n) ? n.lat : null, lon: isPlaced(n) ? n.lon : null } : null);

/** The range by a full scan of the stored transmissions, each route built from its definition. */
function bruteRoutes(store, params, now) {
  const from = params.from === null ? now - DAY : params.from;
  const to = params.to === null ? Infinity : params.to;
  const inRange = store.transmissions().filter((tx) => tx.time >= from && tx.time <= to);
  const chosen = inRange.slice().sort((a, b) => b.seq - a.seq).slice(0, params.limit);
  const routes = chosen.map((tx) => {
    const longest = Math.max(...tx.observations.map((o) => o.path.length));
    const observation = tx.observations.find((o) => o.path.length === longest);
    const source = tx.advert ? store.nodes.get(tx.advert.pubKey) || null
      : tx.srcHash ? (() => { const all = Array.from(store.nodes.values()).filter((n) => n.pubKey.startsWith(tx.srcHash)); return all.length === 1 ? all[0] : null; })() : null;
    const observerNode = store.nodes.get(observation.observer.id.toLowerCase()) || null;
    const hops = tx.payloadType === 9 || observation.path.length === 0 ? [] : resolvePath(store, observation.path, { observerId: observation.observer.id, sourceKey: source ? source.pubKey : null, routeType: tx.routeType })
      .map((e) => ({ hop: e.hop, status: e.status, candidates: e.candidates.length, ...(e.status === 'resolved' ? brief(e.node) : { pubKey: null, name: null, role: null, lat: null, lon: null }) }));
    return {
      hash: tx.hash, time: tx.time, payloadType: tx.payloadType, type: PAYLOAD_TYPES[tx.payloadType] || String(tx.payloadType), route: ROUTE_TYPES[tx.routeType] || String(tx.routeType),
      observers: tx.observations.length, source: brief(source),
      observer: { id: observation.observer.id, name: observation.observer.name, region: observation.observer.region, lat: isPlaced(observerNode) ? observerNode.lat : null, lon: isPlaced(observerNode) ? observerNode.lon : null },
      hops,
    };
  });
  const all = store.transmissions();
  return {
    from, to: to === Infinity ? null : to, inRange: inRange.length, truncated: inRange.length > routes.length,
    oldest: all.length ? all[0].time : null, newest: all.length ? all[all.length - 1].time : null, routes,
  };
}

function paramsFor(store) {
  const all = store.transmissions();
  if (all.length === 0) return [{}];
  const mid = all[all.length >> 1].time;
  const quarter = all[all.length >> 2].time;
  return [{}, { limit: 5 }, { from: quarter, to: mid }, { from: mid, to: mid }, { from: 0, limit: 2000 }, { from: mid + 1e9 }, { to: quarter, limit: 7 }];
}

test('routes equals a brute-force range scan after random inserts and evictions', () => {
  checkAgainstBruteForce({ view: 'routes', bruteForce: bruteRoutes, paramsList: paramsFor });
});

test('routes stays exact with its memo of resolved routes capped at 3 (the least recently used out at every snapshot)', () => {
  const engine = checkAgainstBruteForce({
    view: 'routes', bruteForce: bruteRoutes, paramsList: paramsFor, seed: 19, count: 2000, checks: 4,
    prepare: (fresh) => { fresh.view('routes').state.maxMemoRoutes = 3; },
  });
  const { state } = engine.view('routes');
  assert.ok(state.memo.size + state.weighedMemo.size <= 3, `${state.memo.size} + ${state.weighedMemo.size} routes kept`);
});

test('routes resolve hops to placed repeaters on the simulated mesh, and refuse bad params', () => {
  const { reports, channels } = simulatedReports({ seed: 5, count: 3000 });
  const engine = createEngine({ channels, views: ['routes'] });
  for (const report of reports) engine.ingest(report);
  const snapshot = engine.snapshot('routes', { from: 0, limit: 2000 }, engine.store.lastTime);
  const hops = snapshot.routes.flatMap((route) => route.hops);
  assert.ok(hops.length > 100);
  const resolved = hops.filter((hop) => hop.status === 'resolved');
  assert.ok(resolved.length / hops.length > 0.5, `most hops resolve (${resolved.length}/${hops.length})`);
  assert.ok(resolved.every((hop) => hop.role === 'repeater' && hop.pubKey.startsWith(hop.hop)));
  assert.ok(resolved.some((hop) => hop.lat !== null));
  assert.throws(() => engine.snapshot('routes', { limit: 5000 }), /at most 2000/);
  assert.throws(() => engine.snapshot('routes', { from: 'soon' }), /finite number/);
});

test('routes follows node changes report by report: a re-advert redoes no route, a move, rename, re-role or removal only those that read the node', () => {
  const { simulatedWorld, churnThrough, seededRandom, assertClose } = require('../../helpers/mesh');
  for (const { profile, count } of [{ profile: 'default', count: 1500 }, { profile: 'large', count: 2500 }]) {
    const { reports, channels } = simulatedReports({ seed: 13, count, profile });
    const engine = createEngine({ channels, views: ['routes'] });
    const view = engine.view('routes');
    const params = { from: 0, limit: 300 };
    const snapshot = () => {
      view.state.memoAt = Date.now(); // the 1 s safety net must not decide here: the node checks do
      return view.snapshot(params, engine.store.lastTime);
    };
    let previous = null;
    const kept = { same: 0, moved: 0, renamed: 0, 're-roled': 0, removed: 0 };
    const redone = { ...kept };
    churnThrough({
      engine, world: simulatedWorld({ seed: 13, profile }), reports, random: seededRandom(17),
      beforeChange: () => { previous = snapshot(); },
      afterChange: (kind, step, key) => {
        const next = snapshot();
        assertClose(next, bruteRoutes(engine.store, view.normalizeParams(params), engine.store.lastTime), `${profile} step ${step} (${kind})`);
        const before = new Map(previous.routes.map((route) => [route.hash, route]));
        for (const route of next.routes) {
          const earlier = before.get(route.hash);
          if (earlier === undefined || earlier.observers !== route.observers) continue;
          if (route === earlier) kept[kind]++;
          else redone[kind]++;
          // A route redone after a re-advert, or one kept that reads the changed node, is a miss.
          if (kind === 'same') assert.equal(route, earlier, `${profile} step ${step}: a re-advert redid a route`);
          const reads = route.hops.some((hop) => key.startsWith(hop.hop)) || (route.source && route.source.pubKey === key) || (route.observer && route.observer.id.toLowerCase() === key);
          if (reads && kind !== 'same') assert.notEqual(route, earlier, `${profile} step ${step} (${kind}): a route reading ${key} was kept`);
        }
      },
    });
    for (const kind of ['moved', 'renamed', 're-roled', 'removed']) assert.ok(kept[kind] > 0 && redone[kind] > 0, `${profile} ${kind}: ${kept[kind]} routes kept, ${redone[kind]} redone`);
    assert.ok(kept.same > 100, `${profile}: ${kept.same} routes kept across re-adverts`);
  }
});

test('routes redoes a weighed route when a neighbour that places one of its unplaced candidates moves', () => {
  const crypto = require('crypto');
  const { assertClose } = require('../../helpers/mesh');
  const { keyPairFromSeed, advertAppData, advertSigner, signAdvert, pathLenByte, packetHex, ROUTE, ROLE_IDS } = require('../../../imports/core/simulate/packets');
  // Keys by first byte: two repeaters sharing one ('xx': Hidden, no position, and Rival, 60 km
  // east), and five more with first bytes of their own.
  const pairs = [];
  const firstBytes = new Map();
  for (let n = 0; pairs.length < 7; n++) {
    const pair = keyPairFromSeed(crypto.createHash('sha256').update(`routes weighed ${n}`).digest());
    const first = pair.publicKey[0];
    if (pairs.length === 0 || (pairs.length === 1 ? first === pairs[0].publicKey[0] : !firstBytes.has(first))) {
      pairs.push(pair);
      firstBytes.set(first, pair);
    }
  }
  const [hidden, rival, start, near1, near2, observer] = pairs;
  const engine = createEngine({ views: ['routes'] });
  const origin = { lat: 47.5, lon: -122.3 };
  const at = (kmEast) => ({ lat: origin.lat, lon: origin.lon + kmEast / (111.2 * Math.cos(origin.lat * Math.PI / 180)) });
  let time = Date.UTC(2026, 10, 1, 12);
  const ingest = (raw, observerId = 'obs1') => {
    const result = engine.ingest({ raw, observerId, region: 'TEST', snr: 5, rssi: -90, time: time++ });
    assert.equal(result.error, undefined, JSON.stringify(result.error));
  };
  const advertise = (pair, role, name, place) => {
    const payload = signAdvert(advertSigner(pair, advertAppData(ROLE_IDS[role], name, place ? place.lat : null, place ? place.lon : null)), Math.floor(time / 1000) + time % 1000);
    ingest(packetHex({ routeType: ROUTE.FLOOD, payloadType: 4, pathLength: 0, payload }));
  };
  advertise(hidden, 'repeater', 'Hidden', null);
  advertise(rival, 'repeater', 'Rival', at(60));
  advertise(start, 'repeater', 'Start', at(0));
  advertise(near1, 'repeater', 'Near 1', at(1));
  advertise(near2, 'repeater', 'Near 2', at(2));
  advertise(observer, 'companion', 'Observer', at(0.5));
  const node = (pair) => engine.store.nodes.get(pair.publicKey.toString('hex'));
  engine.store.directory.learnAdjacency(node(hidden), node(near1));
  engine.store.directory.learnAdjacency(node(hidden), node(near2));
  const hop = (pair) => pair.publicKey.toString('hex', 0, 1).toUpperCase();
  ingest(packetHex({ routeType: ROUTE.FLOOD, payloadType: 0, pathLength: pathLenByte(1, 2), pathHex: hop(start) + hop(hidden), payload: Buffer.from([1, 2, 3, 4, 9, 9, 9, 9]) }), observer.publicKey.toString('hex').toUpperCase());
  const view = engine.view('routes');
  const params = { from: 0, limit: 50 };
  const snapshot = () => {
    view.state.memoAt = Date.now(); // the 1 s safety net must not decide here: the node checks do
    return view.snapshot(params, engine.store.lastTime);
  };
  const routeOfRequest = (answer) => answer.routes.find((route) => route.payloadType === 0);
  const before = routeOfRequest(snapshot());
  assert.equal(before.hops[1].name, 'Hidden', 'placed between its two neighbours, next to the path');
  assert.equal(view.state.weighedMemo.size, 1);
  // Its neighbours move 150 km west: Hidden, placed among them, is now out of range; Rival is not.
  advertise(near1, 'repeater', 'Near 1', at(-150));
  advertise(near2, 'repeater', 'Near 2', at(-151));
  const after = snapshot();
  assert.equal(routeOfRequest(after).hops[1].name, 'Rival');
  assertClose(after, bruteRoutes(engine.store, view.normalizeParams(params), engine.store.lastTime));
});
