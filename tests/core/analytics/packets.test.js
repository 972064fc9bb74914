'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { checkAgainstBruteForce } = require('../../helpers/mesh');
const packetsView = require('../../../imports/core/analytics/packets');

/** Filter expressions with the same test written out by hand over the stored transmission. */
const sameIdentity = (a, b) => (a.length <= b.length ? b.startsWith(a) : a.startsWith(b));
const FILTERS = {
  'type == GRP_TXT && hops >= 1': (tx) => tx.payloadType === 5 && tx.observations.some((o) => o.path.length >= 1),
  'snr < -5 || rssi > -70': (tx) => tx.observations.some((o) => o.snr !== null && o.snr < -5) || tx.observations.some((o) => o.rssi !== null && o.rssi > -70),
  '!(type == ADVERT) && hops == 0': (tx) => tx.payloadType !== 4 && tx.observations.some((o) => o.path.length === 0),
  'route == DIRECT || size > 100': (tx) => tx.routeType === 2 || tx.size > 100,
  'region == SFO && hashSize >= 2': (tx) => tx.observations.some((o) => o.observer.region === 'SFO') && tx.hashSize >= 2,
  '(observer ~ "ridge" || observer ~ "4ec1") && snr >= 0': (tx) => tx.observations.some((o) => ['ridge', '4ec1'].some((part) => o.observer.id.toLowerCase().includes(part) || (o.observer.name || '').toLowerCase().includes(part)))
    && tx.observations.some((o) => o.snr !== null && o.snr >= 0),
  'channel && !(text ~ "E")': (tx) => (tx.channelHash !== null || Boolean(tx.message && tx.message.channel)) && !(tx.message && tx.message.text && tx.message.text.toLowerCase().includes('e')),
  'type == TRACE': (tx) => tx.payloadType === 9,
};

/** `path contains <hop>` and `node == <key>`, for a hop and a key taken from the data. */
function dataFilters(store) {
  const last = store.fifo.last();
  const hop = last && last.observations.flatMap((o) => o.path)[0];
  const someNode = store.nodes.size ? Array.from(store.nodes.keys())[0] : null;
  const filters = {};
  if (hop) filters[`path contains ${hop}`] = (tx) => tx.observations.some((o) => o.path.some((h) => sameIdentity(h, hop)));
  if (someNode) {
    filters[`node == ${someNode.slice(0, 2)} && type != ADVERT`] = (tx) => tx.payloadType !== 4 && [tx.srcHash, tx.destHash, ...tx.observations.flatMap((o) => o.path)]
      .some((ref) => ref && sameIdentity(ref, someNode.slice(0, 2)));
    filters[`node == ${someNode}`] = (tx) => [tx.advert && tx.advert.pubKey, tx.srcHash, tx.destHash, ...tx.observations.flatMap((o) => o.path)]
      .some((ref) => ref && sameIdentity(ref, someNode));
  }
  return filters;
}
const predicates = new Map(Object.entries(FILTERS));

/** Brute force: filter every stored transmission, newest first, and take `limit`. */
function brutePackets(store, params) {
  const filterMatches = params.filter === null || params.filter.trim() === '' ? () => true : predicates.get(params.filter);
  const nodeMatches = (tx) => {
    if (params.node === null) return true;
    const n = params.node;
    const prefixes = n.length >= 8 ? [n.slice(0, 2), n.slice(0, 4), n.slice(0, 6)] : [n];
    const refs = [tx.srcHash, tx.destHash, ...tx.observations.flatMap((o) => o.path)];
    return (tx.advert && tx.advert.pubKey === n) || refs.some((r) => r && prefixes.includes(r));
  };
  const rows = store.transmissions().reverse().filter((tx) =>
    (params.hash === null || tx.hash === params.hash)
    && (params.type === null || tx.payloadType === params.type)
    && (params.route === null || tx.routeType === params.route)
    && (params.since === null || tx.time >= params.since)
    && (params.until === null || tx.time <= params.until)
    && (params.observer === null || tx.observations.some((o) => o.observer.id === params.observer))
    && (params.region === null || tx.observations.some((o) => o.observer.region === params.region))
    && (params.text === null || [tx.hash.startsWith(params.text) ? params.text : '', tx.advert?.name, tx.message?.sender, tx.message?.text]
      .some((field) => typeof field === 'string' && field !== '' && field.toLowerCase().includes(params.text)))
    && nodeMatches(tx)
    && filterMatches(tx));
  return rows.slice(0, params.limit).map((tx) => tx.hash);
}

test('packets list equals a brute-force filter after random inserts and evictions', () => {
  const view = 'packets';
  checkAgainstBruteForce({
    view,
    // Compare the hashes listed (row contents are a pure function of the transmission).
    bruteForce: (store, params) => ({ packets: brutePackets(store, params) }),
    project: (snapshot) => ({ packets: snapshot.packets.map((row) => row.hash) }),
    paramsList: (store) => {
      const last = store.fifo.last();
      const someNode = store.nodes.size ? Array.from(store.nodes.keys())[0] : null;
      return [{}, { type: 4 }, { type: 5, limit: 7 }, { route: 1 }, { region: 'SFO', limit: 20 }, { observer: last ? last.observations[0].observer.id : 'x' },
        { since: last ? last.time - 600e3 : 0 }, { text: 'a' }, { text: 'peak', limit: 5 }, { text: last ? last.hash.slice(0, 4) : 'ff' }, { hash: last ? last.hash : '00' }, ...(someNode ? [{ node: someNode }, { node: someNode.slice(0, 2) }] : []),
        ...filterParams(store, last)];
    },
    store: {},
  });
});

/** Every filter alone, with a limit, combined with other params, and on the one-packet path. */
function filterParams(store, last) {
  for (const [text, predicate] of Object.entries(dataFilters(store))) predicates.set(text, predicate);
  const texts = Array.from(predicates.keys());
  return [
    ...texts.map((filter) => ({ filter, limit: 500 })),
    ...texts.map((filter) => ({ filter, limit: 9 })),
    { filter: 'snr < -5 || rssi > -70', type: 5 },
    { filter: 'type == GRP_TXT && hops >= 1', region: 'SFO', limit: 20 },
    { filter: 'type == TRACE', since: last ? last.time - 3600e3 : 0 },
    { filter: 'route == DIRECT || size > 100', hash: last ? last.hash : '00' },
    { filter: '   ' },
  ];
}

test('filter expressions equal hand-written predicates on other seeds', () => {
  for (const seed of [3, 19]) {
    checkAgainstBruteForce({
      view: 'packets', seed, count: 2500, checks: 4, largeProfile: false,
      bruteForce: (store, params) => ({ packets: brutePackets(store, params) }),
      project: (snapshot) => ({ packets: snapshot.packets.map((row) => row.hash) }),
      paramsList: (store) => filterParams(store, store.fifo.last()),
    });
  }
});

test('a filter that does not parse is a bad parameter naming its position', () => {
  for (const normalize of [packetsView.normalizeParams, packetsView.create({}).normalizeParams]) {
    assert.throws(() => normalize({ filter: 'type == GRP_TXT && hops >=' }), { name: 'ParamError', message: `packets: parameter "filter" does not parse: at 27: expected a value after '>='` });
    assert.throws(() => normalize({ filter: 'x'.repeat(513) }), { name: 'ParamError', message: 'packets: parameter "filter" must be at most 512 characters' });
    assert.equal(normalize({ filter: 'snr < -5' }).filter, 'snr < -5');
  }
});

test('one packet carries its byte layout, covering every byte once', () => {
  const engine = checkAgainstBruteForce({ view: 'packets', bruteForce: () => null, paramsList: [], checks: 1 });
  for (const tx of engine.store.transmissions().slice(-50)) {
    const row = engine.view('packets').snapshot({ hash: tx.hash }).packets[0];
    assert.equal(row.hash, tx.hash);
    let expectedStart = 0;
    for (const field of row.detail.fields) {
      assert.equal(field.start, expectedStart, `${field.name} starts where the previous field ended`);
      expectedStart = field.end + 1;
    }
    assert.equal(expectedStart, tx.size, 'fields cover the whole packet');
  }
});

test('a filter works as a live subscription through the publish hub, and a bad one is refused', () => {
  const { PublishHub } = require('../../../imports/core/publish-hub');
  const { createEngine } = require('../../../imports/core/engine');
  const { simulatedReports } = require('../../helpers/mesh');
  const { reports, channels } = simulatedReports({ seed: 3, count: 1200 });
  const engine = createEngine({ channels, views: ['packets'] });
  const hub = new PublishHub((name) => engine.views.get(name), { publishIntervalMs: 0 });
  const documents = [];
  const sink = { added: (id, fields) => documents.push(fields), changed: (id, fields) => documents.push(fields), removed: () => {} };
  const filter = 'type == GRP_TXT && hops >= 1';
  hub.subscribe('packets', { filter, limit: 500 }, sink);
  for (const report of reports) {
    engine.ingest(report);
    if (engine.store.observationCount % 200 === 0) hub.tick();
  }
  hub.tick();
  const latest = documents.filter((fields) => fields.packets).pop().packets.map((row) => row.hash);
  assert.ok(latest.length > 0);
  assert.deepEqual(latest, brutePackets(engine.store, { ...packetsView.normalizeParams({ filter, limit: 500 }) }));
  assert.throws(() => hub.subscribe('packets', { filter: 'hops >= && x' }, sink), { name: 'ParamError', message: /at 9: expected a value after '>=', got '&&'/ });
  hub.stop && hub.stop();
});

test('a node search shows why each row matched: the longest path naming the node, even when a longer one does not', () => {
  const { createEngine } = require('../../../imports/core/engine');
  const { simulatedReports } = require('../../helpers/mesh');
  const { reports, channels } = simulatedReports({ seed: 5, count: 3000 });
  const engine = createEngine({ channels, views: ['packets'] });
  for (const report of reports) engine.ingest(report);
  const { store } = engine;
  // A hop heard in some transmission only on a path shorter than its longest: it matched invisibly before.
  let hop = null;
  for (const tx of store.transmissions()) {
    const longest = tx.observations.reduce((best, o) => (o.path.length > best.length ? o.path : best), tx.path);
    const hidden = tx.observations.flatMap((o) => o.path).find((h) => h.length === 2 && !longest.includes(h));
    if (hidden) { hop = hidden; break; }
  }
  assert.ok(hop, 'the simulated mesh has a hop heard only on a shorter copy');
  const view = engine.views.get('packets');
  const { packets } = view.snapshot({ node: hop, limit: 500 });
  assert.ok(packets.length > 0);
  let shorter = 0;
  for (const row of packets) {
    const tx = store.byHash.get(row.hash);
    const naming = tx.observations.map((o) => o.path).filter((path) => path.includes(hop));
    if (naming.length === 0) {
      // Matched by its src or dest hash, which the row's What shows.
      assert.equal(row.nodeMatch, null);
      assert.ok(tx.srcHash === hop || tx.destHash === hop, `${row.hash} matched ${hop} somewhere`);
      continue;
    }
    assert.equal(row.nodeMatch.path.length, Math.max(...naming.map((path) => path.length)));
    assert.ok(row.nodeMatch.hops.length > 0 && row.nodeMatch.hops.every((i) => row.nodeMatch.path[i] === hop));
    if (row.nodeMatch.path.length < row.longestPath.length && !row.longestPath.includes(hop)) shorter++;
  }
  assert.ok(shorter > 0, 'some row matches only through a path shorter than its longest');
  // Without a node search rows carry no nodeMatch.
  const plain = view.snapshot({ limit: 5 });
  assert.ok(plain.packets.every((row) => !('nodeMatch' in row)));
});
