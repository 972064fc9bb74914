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

// The multi-byte list's three outcomes, built by hand: the simulated meshes used above (1,500
// large-profile reports) have no two known repeaters sharing a 2-byte prefix.
test('hashSizes multiByte: a 2-byte prefix of two repeaters is ambiguous, a companion is never the forwarder, a node listed with both hash sizes', () => {
  const crypto = require('crypto');
  const { createEngine } = require('../../../imports/core/engine');
  const { keyPairFromSeed, advertAppData, advertSigner, signAdvert, pathLenByte, packetHex, ROUTE, ROLE_IDS } = require('../../../imports/core/simulate/packets');
  const seedOf = (n) => crypto.createHash('sha256').update(`hash-sizes multiByte ${n}`).digest();
  // Two keys sharing their first two bytes: a birthday search over a few hundred seeded keys.
  const byPrefix = new Map();
  let twins = null;
  for (let n = 0; twins === null; n++) {
    const pair = keyPairFromSeed(seedOf(n));
    const prefix = pair.publicKey.toString('hex', 0, 2);
    if (byPrefix.has(prefix)) twins = [byPrefix.get(prefix), pair];
    else byPrefix.set(prefix, pair);
  }
  const lone = keyPairFromSeed(seedOf('lone repeater'));
  const companion = keyPairFromSeed(seedOf('companion'));
  const engine = createEngine();
  const now = Date.now();
  let at = now - 60000;
  const ingest = (raw) => {
    const result = engine.ingest({ raw, observerId: 'obs1', region: 'TEST', snr: 5, rssi: -90, time: at++ });
    assert.equal(result.error, undefined, JSON.stringify(result.error));
  };
  const advertise = (pair, role, name) => {
    const payload = signAdvert(advertSigner(pair, advertAppData(ROLE_IDS[role], name, null, null)), Math.floor(at / 1000));
    ingest(packetHex({ routeType: ROUTE.FLOOD, payloadType: 4, pathLength: 0, payload }));
  };
  advertise(twins[0], 'repeater', 'Twin A');
  advertise(twins[1], 'repeater', 'Twin B');
  advertise(lone, 'repeater', 'Lone');
  advertise(companion, 'companion', 'Phone');
  const hop = (pair, bytes) => pair.publicKey.toString('hex', 0, bytes).toUpperCase();
  const request = (hashSize, hops, n) => ingest(packetHex({
    routeType: ROUTE.FLOOD, payloadType: 0, pathLength: pathLenByte(hashSize, hops.length), pathHex: hops.join(''), payload: Buffer.from([1, 2, n, n >> 8, 9, 9, 9, 9]),
  }));
  request(2, [hop(twins[0], 2), hop(lone, 2)], 1);
  request(2, [hop(lone, 2), hop(companion, 2)], 2);
  request(3, [hop(lone, 3), 'ABCDEF'], 3);
  const { multiByte } = engine.snapshot('hashSizes', {});
  assert.deepEqual(multiByte.nodes.map((node) => [node.name, node.hashSizes, node.prefixes.length, node.count]), [['Lone', [2, 3], 2, 3]]);
  assert.equal(multiByte.ambiguousCount, 1);
  assert.equal(multiByte.ambiguous[0].hop, hop(twins[0], 2).toLowerCase());
  assert.equal(multiByte.ambiguous[0].candidateCount, 2);
  assert.deepEqual(multiByte.ambiguous[0].candidates.map((node) => node.name).sort(), ['Twin A', 'Twin B']);
  // The companion's 2-byte prefix and a 3-byte hop no known node has.
  assert.equal(multiByte.unresolvedPrefixes, 2);
  assert.equal(multiByte.unresolvedCount, 2);
  assertClose(withoutUnits(engine.snapshot('hashSizes', {})), bruteHashSizes(engine.store));
});
