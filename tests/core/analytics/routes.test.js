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
