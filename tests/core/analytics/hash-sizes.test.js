'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const hashSizes = require('../../../imports/core/analytics/hash-sizes');
const { checkAgainstBruteForce, assertClose, bruteResolve } = require('../../helpers/mesh');
const { bruteNewest, bruteChoose, bruteDescribe, bruteRows, checkStretched } = require('./bucket-brute');

const BUCKETS = ['auto', 'minute', '5min', '15min', 'hour'];

const withoutUnits = ({ units, ...figures }) => figures;


const byCount = (key) => (a, b) => b.count - a.count || (a[key] < b[key] ? -1 : 1);

function bruteHashSizes(store, params = { bucket: 'auto' }) {
  const bySize = { 1: 0, 2: 0, 3: 0 };
  const times = [];
  let oldest = null;
  const hopCounts = new Map();
  let transmissions = 0;
  for (const tx of store.transmissions()) {
    if (oldest === null || tx.time < oldest) oldest = tx.time;
    const heard = tx.observations.filter((o) => o.path.length > 0);
    if (heard.length === 0) continue;
    transmissions++;
    const size = heard[0].path[0].length / 2;
    bySize[size]++;
    times.push({ time: tx.time, add: (row) => { row[size - 1]++; } });
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
  const bucket = bruteChoose(params.bucket, oldest, bruteNewest(store));
  const perBucket = Array.from(bruteRows(times, bucket, bruteNewest(store), 3), ([time, row]) => ({ time, bySize: { 1: row[0], 2: row[1], 3: row[2] } }));
  const nodeList = Array.from(nodes.values()).map((n) => ({ ...n, hashSizes: Array.from(n.hashSizes).sort(), prefixes: n.prefixes.sort() })).sort(byCount('pubKey'));
  return {
    transmissions,
    distribution: [1, 2, 3].map((hashSize) => ({ hashSize, transmissions: bySize[hashSize], share: transmissions ? bySize[hashSize] / transmissions : 0 })),
    bucket: bruteDescribe(bucket, params.bucket, bruteNewest(store)),
    perBucket,
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
  checkAgainstBruteForce({ view: 'hashSizes', bruteForce: bruteHashSizes, paramsList: [{}, undefined, ...BUCKETS.map((bucket) => ({ bucket }))], project: withoutUnits });
});

test('hashSizes buckets stay exact over days: every size, windows folding into hours', () => {
  const autoSizes = new Set();
  for (const stretch of [4, 20, 45, 300]) {
    const { seen } = checkStretched({ view: 'hashSizes', bruteForce: bruteHashSizes, paramsList: BUCKETS.map((bucket) => ({ bucket })), stretch, project: withoutUnits });
    for (const size of seen) autoSizes.add(size);
  }
  assert.deepEqual([...autoSizes].sort(), ['15min', '5min', 'hour', 'minute']);
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
  assert.deepEqual(state.perTime.rowCounts(), { minute: 0, '5min': 0, hour: 0 });
  assert.equal(engine.store.memory.part('hashSizes').bytes, 0);
  assert.equal(state.hopCounts.size, 0);
});

test('hashSizes added to a filled store equals one fed live', () => {
  const engine = checkAgainstBruteForce({ view: 'hashSizes', bruteForce: bruteHashSizes, checks: 3, project: withoutUnits });
  const late = engine.store.addView(hashSizes.create(engine.store));
  assertClose(late.snapshot({}), engine.view('hashSizes').snapshot({}));
});
