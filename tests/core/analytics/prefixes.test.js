'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { checkAgainstBruteForce } = require('../../helpers/mesh');

const withoutUnits = ({ units, ...figures }) => figures;
const brief = (node) => ({ pubKey: node.pubKey, name: node.name, role: node.role });
const byPubKey = (a, b) => (a.pubKey < b.pubKey ? -1 : 1);

/** Stored transmissions carrying `prefix` as a hop of any observed path, the source or the destination. */
function bruteTraffic(store, prefix) {
  return store.transmissions().filter((tx) => tx.srcHash === prefix || tx.destHash === prefix || tx.observations.some((o) => o.path.includes(prefix))).length;
}

function brutePrefixes(store, params) {
  const nodes = Array.from(store.nodes.values()).filter((node) => params.role === 'any' || node.role === params.role);
  const groups = (hashSize) => {
    const map = new Map();
    for (const node of nodes) {
      const prefix = node.pubKey.slice(0, hashSize * 2);
      if (!map.has(prefix)) map.set(prefix, []);
      map.get(prefix).push(node);
    }
    return map;
  };
  const sizes = [1, 2, 3].map((hashSize) => {
    const map = groups(hashSize);
    const shared = Array.from(map.entries()).filter(([, list]) => list.length > 1)
      .map(([prefix, list]) => ({ prefix, nodeCount: list.length, traffic: bruteTraffic(store, prefix), nodes: list.slice().sort(byPubKey).slice(0, 10).map(brief) }));
    shared.sort((a, b) => b.traffic - a.traffic || b.nodeCount - a.nodeCount || (a.prefix < b.prefix ? -1 : 1));
    return {
      hashSize,
      possible: 256 ** hashSize,
      used: map.size,
      ambiguous: shared.length,
      nodesInAmbiguous: shared.reduce((s, row) => s + row.nodeCount, 0),
      ambiguousTraffic: shared.reduce((s, row) => s + row.traffic, 0),
      collisions: shared.slice(0, params.limit),
    };
  });
  const firstBytes = new Set(nodes.map((node) => node.pubKey.slice(0, 2)));
  const free = [];
  for (let value = 0; value < 256; value++) {
    const prefix = value.toString(16).padStart(2, '0');
    if (!firstBytes.has(prefix)) free.push({ prefix, traffic: bruteTraffic(store, prefix) });
  }
  free.sort((a, b) => a.traffic - b.traffic || (a.prefix < b.prefix ? -1 : 1));
  let lookup = null;
  if (params.prefix !== null) {
    lookup = { prefix: params.prefix, sizes: [] };
    for (let hashSize = 1; hashSize <= 3 && hashSize * 2 <= params.prefix.length; hashSize++) {
      const part = params.prefix.slice(0, hashSize * 2);
      const list = nodes.filter((node) => node.pubKey.startsWith(part)).sort(byPubKey);
      lookup.sizes.push({ hashSize, prefix: part, nodeCount: list.length, traffic: bruteTraffic(store, part), nodes: list.slice(0, 10).map(brief) });
    }
  }
  return {
    role: params.role,
    knownNodes: nodes.length,
    sizes,
    free: { count: free.length, unused: free.filter((row) => row.traffic === 0).length, prefixes: free.slice(0, params.limit) },
    lookup,
  };
}

function paramsFor(store) {
  const list = [{}, { role: 'repeater' }, { limit: 1 }, { limit: 256, role: 'repeater' }];
  const keys = Array.from(store.nodes.keys());
  if (keys.length) list.push({ prefix: keys[0] }, { prefix: keys[keys.length - 1].slice(0, 4), role: 'repeater' }, { prefix: keys[0].slice(0, 2).toUpperCase() });
  const last = store.fifo.last();
  const hop = last && last.observations.flatMap((o) => o.path)[0];
  if (hop) list.push({ prefix: hop });
  return list;
}

test('prefixes equals a brute-force grouping of the directory after random inserts and evictions', () => {
  checkAgainstBruteForce({ view: 'prefixes', bruteForce: brutePrefixes, paramsList: paramsFor, project: withoutUnits });
});

test('the mesh has ambiguous 1-byte prefixes and still free ones, and an odd prefix is refused', () => {
  const engine = checkAgainstBruteForce({ view: 'prefixes', bruteForce: brutePrefixes, paramsList: [{}], checks: 2, project: withoutUnits, largeProfile: false });
  const snapshot = engine.view('prefixes').snapshot({});
  assert.ok(snapshot.sizes[0].ambiguous > 0, 'some 1-byte prefixes are shared');
  assert.ok(snapshot.sizes[0].collisions.every((row) => row.nodeCount >= 2));
  assert.equal(snapshot.free.count + snapshot.sizes[0].used, 256);
  assert.throws(() => engine.view('prefixes').normalizeParams({ prefix: 'abc' }), /must match/);
});

test('prefixes follows the directory report by report (figures kept between snapshots only while it is unchanged)', () => {
  const { simulatedReports, assertClose } = require('../../helpers/mesh');
  const { createEngine } = require('../../../imports/core/engine');
  for (const profile of ['default', 'large']) {
    const { reports, channels } = simulatedReports({ seed: 5, count: 1500, profile });
    const engine = createEngine({ channels, views: ['prefixes'], store: { maxTransmissions: 300 } });
    const view = engine.view('prefixes');
    let checked = 0;
    for (let i = 0; i < reports.length; i++) {
      engine.ingest(reports[i]);
      if (i % 15 !== 0) continue;
      for (const params of [{}, { role: 'repeater', limit: 5 }]) {
        assertClose(withoutUnits(view.snapshot(params)), brutePrefixes(engine.store, view.normalizeParams(params)), `${profile} report ${i} ${JSON.stringify(params)}`);
      }
      checked++;
    }
    assert.ok(checked > 90 && engine.store.nodes.size > 5);
  }
});

test('prefixes follows node changes: re-adverts keep the directory figures, moves, renames, re-roles and removals redo them, exactly', () => {
  const { simulatedReports, assertClose, simulatedWorld, churnThrough, seededRandom } = require('../../helpers/mesh');
  const { createEngine } = require('../../../imports/core/engine');
  const { reports, channels } = simulatedReports({ seed: 13, count: 1500 });
  const engine = createEngine({ channels, views: ['prefixes'] });
  const view = engine.view('prefixes');
  let kept = 0;
  let figures = null;
  churnThrough({
    engine, world: simulatedWorld({ seed: 13 }), reports, random: seededRandom(23),
    beforeChange: () => {
      view.snapshot({ role: 'repeater' });
      figures = view.state.byRole.get('repeater');
    },
    afterChange: (kind, step) => {
      view.state.at = Date.now(); // the 1 s safety net must not decide here: the node version does
      for (const params of [{}, { role: 'repeater', limit: 5 }]) {
        assertClose(withoutUnits(view.snapshot(params)), brutePrefixes(engine.store, view.normalizeParams(params)), `step ${step} (${kind}) ${JSON.stringify(params)}`);
      }
      if (kind === 'same') {
        assert.equal(view.state.byRole.get('repeater'), figures, `step ${step}: a re-advert redid the directory figures`);
        kept++;
      } else assert.notEqual(view.state.byRole.get('repeater'), figures, `step ${step}: ${kind} kept the directory figures`);
    },
  });
  assert.ok(kept > 3);
});
