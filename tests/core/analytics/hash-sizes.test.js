'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const hashSizes = require('../../../imports/core/analytics/hash-sizes');
const { checkAgainstBruteForce, assertClose, bruteResolve } = require('../../helpers/mesh');

const withoutUnits = ({ units, ...figures }) => figures;


const byCount = (key) => (a, b) => b.count - a.count || (a[key] < b[key] ? -1 : 1);

function bruteHashSizes(store) {
  const bySize = { 1: 0, 2: 0, 3: 0 };
  const hours = new Map();
  const hopCounts = new Map();
  let transmissions = 0;
  for (const tx of store.transmissions()) {
    const heard = tx.observations.filter((o) => o.path.length > 0);
    if (heard.length === 0) continue;
    transmissions++;
    const size = heard[0].path[0].length / 2;
    bySize[size]++;
    const hour = tx.time - (tx.time % 3600e3);
    if (!hours.has(hour)) hours.set(hour, { hour, bySize: { 1: 0, 2: 0, 3: 0 } });
    hours.get(hour).bySize[size]++;
    for (const o of heard) for (const hop of o.path) hopCounts.set(hop, (hopCounts.get(hop) || 0) + 1);
  }
  const hops = Array.from(hopCounts, ([hop, count]) => ({ hop, hashSize: hop.length / 2, count, ...bruteResolve(store, hop) }));
  const nodes = new Map();
  const ambiguous = [];
  let unresolvedPrefixes = 0;
  let unresolvedCount = 0;
  for (const row of hops) {
    if (row.hashSize === 1) continue;
    if (row.node) {
      if (!nodes.has(row.node.pubKey)) nodes.set(row.node.pubKey, { ...row.node, hashSizes: new Set(), prefixes: [], count: 0 });
      const entry = nodes.get(row.node.pubKey);
      entry.hashSizes.add(row.hashSize);
      entry.prefixes.push(row.hop);
      entry.count += row.count;
    } else if (row.candidateCount > 1) {
      ambiguous.push({ hop: row.hop, hashSize: row.hashSize, count: row.count, candidates: row.candidates, candidateCount: row.candidateCount });
    } else {
      unresolvedPrefixes++;
      unresolvedCount += row.count;
    }
  }
  const nodeList = Array.from(nodes.values()).map((n) => ({ ...n, hashSizes: Array.from(n.hashSizes).sort(), prefixes: n.prefixes.sort() })).sort(byCount('pubKey'));
  return {
    transmissions,
    distribution: [1, 2, 3].map((hashSize) => ({ hashSize, transmissions: bySize[hashSize], share: transmissions ? bySize[hashSize] / transmissions : 0 })),
    perHour: Array.from(hours.values()).sort((a, b) => a.hour - b.hour),
    hops: hops.sort(byCount('hop')).slice(0, 50),
    multiByte: {
      nodeCount: nodeList.length,
      nodes: nodeList.slice(0, 200),
      ambiguousCount: ambiguous.length,
      ambiguous: ambiguous.sort(byCount('hop')).slice(0, 200),
      unresolvedPrefixes,
      unresolvedCount,
    },
  };
}

test('hashSizes equals a brute-force recomputation after random inserts and evictions', () => {
  checkAgainstBruteForce({ view: 'hashSizes', bruteForce: bruteHashSizes, paramsList: [{}, undefined], project: withoutUnits });
});

test('hashSizes stays exact on other seeds', () => {
  for (const seed of [4, 9]) checkAgainstBruteForce({ view: 'hashSizes', bruteForce: bruteHashSizes, seed, count: 4000, checks: 5, project: withoutUnits });
});

test('hashSizes returns to empty once every transmission is evicted', () => {
  const engine = checkAgainstBruteForce({ view: 'hashSizes', bruteForce: bruteHashSizes, checks: 2, project: withoutUnits });
  while (engine.store.size) engine.store.evictOldest();
  const state = engine.view('hashSizes').state;
  assert.equal(state.transmissions, 0);
  assert.deepEqual(state.bySize, [0, 0, 0, 0]);
  assert.equal(state.perHour.size, 0);
  assert.equal(state.hopCounts.size, 0);
});

test('hashSizes added to a filled store equals one fed live', () => {
  const engine = checkAgainstBruteForce({ view: 'hashSizes', bruteForce: bruteHashSizes, checks: 3, project: withoutUnits });
  const late = engine.store.addView(hashSizes.create(engine.store));
  assertClose(late.snapshot({}), engine.view('hashSizes').snapshot({}));
});
