'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const topology = require('../../../imports/core/analytics/topology');
const { checkAgainstBruteForce, assertClose, bruteResolve } = require('../../helpers/mesh');
const { resolvePath } = require('../../../imports/core/hop-resolver');

const withoutUnits = ({ units, ...figures }) => figures;

/** Nodes named by a hop prefix, looked up by scanning the whole node directory. */

/**
 * A pair's ends as the resolver answers for the two-hop path alone (hop-resolver.js has its own
 * tests of how it resolves; this checks that the view asks it about each listed pair, unanchored).
 */
function resolvedEnds(store, hops) {
  // Past the cap on combinations, an end is resolved only when one repeater carries its hash.
  const [from, to] = hops.map((hop) => bruteResolve(store, hop));
  if (from.candidateCount * to.candidateCount > topology.MAX_PAIR_COMBINATIONS) {
    const byPrefix = (row) => (row.node === null ? null : { ...row.node, by: 'prefix' });
    return { from: byPrefix(from), to: byPrefix(to) };
  }
  return Object.fromEntries(resolvePath(store, hops, {}).map((entry, i) => [i === 0 ? 'from' : 'to',
    entry.status === 'resolved' ? { pubKey: entry.node.pubKey, name: entry.node.name, role: entry.node.role, by: entry.by } : null]));
}

function top(counts, limit) {
  return Array.from(counts.entries()).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, limit);
}

function hopStats(list) {
  if (!list.length) return { count: 0, mean: null, median: null, max: null };
  const sorted = list.slice().sort((a, b) => a - b);
  const n = sorted.length;
  return {
    count: n,
    mean: sorted.reduce((s, v) => s + v, 0) / n,
    median: n % 2 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2,
    max: sorted[n - 1],
  };
}

function bruteTopology(store, params = { pairs: 15 }) {
  const hopLists = [];
  const hopCounts = new Map();
  const pairCounts = new Map();
  const byHops = new Map();
  const observers = new Map();
  let traceObservations = 0;
  const add = (map, key) => map.set(key, (map.get(key) || 0) + 1);
  for (const tx of store.transmissions()) {
    for (const o of tx.observations) {
      if (tx.payloadType === 9) { traceObservations++; continue; }
      const h = o.path.length;
      hopLists.push(h);
      o.path.forEach((hop, i) => {
        add(hopCounts, hop);
        if (i > 0) add(pairCounts, `${o.path[i - 1]},${hop}`);
      });
      if (!byHops.has(h)) byHops.set(h, { hops: h, observations: 0, snrs: [] });
      byHops.get(h).observations++;
      if (o.snr !== null) byHops.get(h).snrs.push(o.snr);
      if (!observers.has(o.observer.id)) observers.set(o.observer.id, { observer: o.observer, hops: [], heard: new Set() });
      observers.get(o.observer.id).hops.push(h);
      for (const hop of o.path) observers.get(o.observer.id).heard.add(hop);
    }
  }
  const figures = hopStats(hopLists);
  const distribution = [];
  for (let h = 0; figures.max !== null && h <= figures.max; h++) distribution.push({ hops: h, count: hopLists.filter((x) => x === h).length });
  const hopRow = (hop) => ({ hop, hashSize: hop.length / 2, ...bruteResolve(store, hop) });
  return {
    observations: hopLists.length,
    traceObservations,
    hops: { ...figures, distribution },
    repeaters: top(hopCounts, 20).map(([hop, count]) => ({ ...hopRow(hop), count })),
    pairs: top(pairCounts, params.pairs).map(([pair, count]) => ({ pair, from: hopRow(pair.split(',')[0]), to: hopRow(pair.split(',')[1]), count, resolved: resolvedEnds(store, pair.split(',')) })),
    hopsVsSnr: Array.from(byHops.values()).sort((a, b) => a.hops - b.hops).map((row) => ({
      hops: row.hops, observations: row.observations, snrCount: row.snrs.length, meanSnr: row.snrs.length ? row.snrs.reduce((s, v) => s + v, 0) / row.snrs.length : null,
    })),
    observers: Array.from(observers.entries()).map(([id, row]) => {
      const own = hopStats(row.hops);
      return { id, name: row.observer.name, region: row.observer.region, observations: row.hops.length, distinctHops: row.heard.size, meanHops: own.mean, maxHops: own.max };
    }).sort((a, b) => b.observations - a.observations || (a.id < b.id ? -1 : 1)),
  };
}

test('topology equals a brute-force recomputation after random inserts and evictions', () => {
  checkAgainstBruteForce({ view: 'topology', bruteForce: bruteTopology, paramsList: [{}, undefined, { pairs: 3 }, { pairs: 200 }], project: withoutUnits });
});

test('topology stays exact on other seeds', () => {
  for (const seed of [2, 11]) checkAgainstBruteForce({ view: 'topology', bruteForce: bruteTopology, seed, count: 4000, checks: 5, project: withoutUnits });
});

test('topology returns to empty once every transmission is evicted', () => {
  const engine = checkAgainstBruteForce({ view: 'topology', bruteForce: bruteTopology, checks: 2, project: withoutUnits });
  while (engine.store.size) engine.store.evictOldest();
  const state = engine.view('topology').state;
  assert.equal(state.hopCounts.size, 0);
  assert.equal(state.pairs, 0);
  assert.equal(state.observers.size, 0);
  assert.equal(state.observations + state.traceObservations, 0);
  assert.ok(state.snrByHops.every((mean) => mean.count === 0 && mean.gridSum === 0));
});

test('topology added to a filled store equals one fed live', () => {
  const engine = checkAgainstBruteForce({ view: 'topology', bruteForce: bruteTopology, checks: 3, project: withoutUnits });
  const late = engine.store.addView(topology.create(engine.store));
  assertClose(late.snapshot({}), engine.view('topology').snapshot({}));
});

test('on the large mesh, pairs whose shared 1-byte hashes the prefix cannot resolve are resolved by radio range', () => {
  const { createEngine } = require('../../../imports/core/engine');
  const { simulatedReports } = require('../../helpers/mesh');
  const { reports, channels } = simulatedReports({ seed: 5, count: 20000, profile: 'large', simulator: { startupAdverts: true } });
  const engine = createEngine({ views: ['topology'], channels });
  for (const report of reports) engine.ingest(report);
  const { pairs } = engine.snapshot('topology', { pairs: 200 });
  let byPrefix = 0;
  let byRange = 0;
  for (const pair of pairs) {
    for (const end of ['from', 'to']) {
      // A hop one repeater carries is that repeater in both answers; no other is called 'prefix'.
      const row = pair[end];
      const resolved = pair.resolved[end];
      assert.equal(row.node !== null, resolved !== null && resolved.by === 'prefix', `${pair.pair} ${end}`);
      if (row.node !== null) assert.equal(resolved.pubKey, row.node.pubKey);
    }
    if (pair.from.node && pair.to.node) byPrefix++;
    if (pair.resolved.from && pair.resolved.to) byRange++;
  }
  assert.ok(pairs.length === 200, `${pairs.length} pairs`);
  // What the map can draw: far more pairs with both ends resolved than by the prefix alone.
  assert.ok(byRange >= byPrefix + 20, `both ends resolved: ${byRange} with range, ${byPrefix} by prefix alone`);
});

test('a pair whose hashes many repeaters share is resolved by prefix alone (the snapshot stays bounded)', () => {
  const { createEngine } = require('../../../imports/core/engine');
  const { hostileStream } = require('../../../imports/core/simulate/hostile');
  const { simulatedReports } = require('../../helpers/mesh');
  const { reports, channels } = simulatedReports({ seed: 5, count: 6000, profile: 'large', simulator: { startupAdverts: true } });
  const engine = createEngine({ views: ['topology'], channels });
  // A directory flooded with random-key adverts: about 10 repeaters per 1-byte hash.
  for (const { expect, case: label, ...report } of hostileStream('randomAdverts', { seed: 3, count: 15000 })) engine.ingest(report);
  for (const report of reports) engine.ingest(report);
  const { pairs } = engine.snapshot('topology', { pairs: 200 });
  let capped = 0;
  for (const pair of pairs) {
    if (pair.from.candidateCount * pair.to.candidateCount <= topology.MAX_PAIR_COMBINATIONS) continue;
    capped++;
    for (const end of ['from', 'to']) {
      const resolved = pair.resolved[end];
      assert.ok(resolved === null || resolved.by === 'prefix', `${pair.pair} ${end}: ${resolved && resolved.by}`);
    }
  }
  assert.ok(capped > 0, 'some busy pairs are over the cap');
});
