'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const neighbours = require('../../../imports/core/analytics/neighbours');
const { checkAgainstBruteForce, assertClose } = require('../../helpers/mesh');

const withoutUnits = ({ units, ...figures }) => figures;
const isHex = (text) => /^[0-9a-fA-F]+$/.test(text);

/** Known nodes for a key, by scanning the whole directory. */
function bruteKnown(store, key) {
  const matches = isHex(key) && key.length % 2 === 0 && key.length >= 2 ? Array.from(store.nodes.values()).filter((node) => node.pubKey.startsWith(key)) : [];
  matches.sort((a, b) => (a.pubKey < b.pubKey ? -1 : 1));
  return { matchCount: matches.length, nodes: matches.slice(0, 5).map((node) => ({ pubKey: node.pubKey, name: node.name, role: node.role })) };
}

/** Every link of every stored non-TRACE observation, recounted from scratch. */
function bruteLinks(store) {
  const links = new Map(); // "a\0b" (a < b) -> { a, b, count, lastSeen, snrs }
  let observations = 0;
  const add = (x, y, time, snr) => {
    if (x === y) return;
    const [a, b] = x < y ? [x, y] : [y, x];
    const key = `${a}\u0000${b}`;
    if (!links.has(key)) links.set(key, { a, b, count: 0, lastSeen: 0, snrs: [] });
    const link = links.get(key);
    link.count++;
    link.lastSeen = Math.max(link.lastSeen, time);
    if (snr !== null) link.snrs.push(snr);
  };
  for (const tx of store.transmissions()) {
    if (tx.payloadType === 9) continue;
    for (const o of tx.observations) {
      observations++;
      const observer = isHex(o.observer.id) ? o.observer.id.toLowerCase() : o.observer.id;
      for (let i = 1; i < o.path.length; i++) add(o.path[i - 1], o.path[i], tx.time, null);
      const from = o.path.length ? o.path[o.path.length - 1] : (tx.advert ? tx.advert.pubKey : tx.srcHash);
      if (from !== null) add(from, observer, tx.time, o.snr);
    }
  }
  return { links, observations };
}

const row = (link) => ({ count: link.count, lastSeen: link.lastSeen, snrCount: link.snrs.length, meanSnr: link.snrs.length ? link.snrs.reduce((s, v) => s + v, 0) / link.snrs.length : null });
const byCount = (a, b) => b.count - a.count || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

function bruteNeighbours(store, params) {
  const { links, observations } = bruteLinks(store);
  const keys = new Map(); // key -> [{ other, link }]
  for (const link of links.values()) {
    for (const [key, other] of [[link.a, link.b], [link.b, link.a]]) {
      if (!keys.has(key)) keys.set(key, []);
      keys.get(key).push({ other, link });
    }
  }
  const total = (key) => keys.get(key).reduce((s, { link }) => s + link.count, 0);
  if (params.node !== null) {
    const wanted = params.node.length > 6 ? [params.node, params.node.slice(0, 2), params.node.slice(0, 4), params.node.slice(0, 6)] : [params.node];
    return {
      node: params.node,
      keys: wanted.filter((key) => keys.has(key)).map((key) => ({
        key,
        count: total(key),
        neighbourCount: keys.get(key).length,
        known: bruteKnown(store, key),
        neighbours: keys.get(key).map(({ other, link }) => ({ key: other, ...row(link), known: bruteKnown(store, other) })).sort(byCount).slice(0, params.limit),
      })),
    };
  }
  const nodes = Array.from(keys.keys()).map((key) => ({
    key,
    count: total(key),
    neighbourCount: keys.get(key).length,
    lastSeen: Math.max(...keys.get(key).map(({ link }) => link.lastSeen)),
    known: bruteKnown(store, key),
  })).sort(byCount).slice(0, params.limit);
  const edges = Array.from(links.values()).map((link) => ({ key: `${link.a}\u0000${link.b}`, link }))
    .sort((x, y) => y.link.count - x.link.count || (x.key < y.key ? -1 : 1)).slice(0, params.limit)
    .map(({ link }) => ({ a: link.a, b: link.b, ...row(link) }));
  return { observations, keyCount: keys.size, linkCount: links.size, nodes, links: edges };
}

/** Node params taken from the data: an observer key, a hop prefix, a known node's full key. */
function paramsFor(store) {
  const list = [{}, { limit: 3 }, { limit: 500 }];
  const last = store.fifo.last();
  if (last) {
    const o = last.observations[0];
    list.push({ node: o.observer.id, limit: 10 });
    if (o.path.length) list.push({ node: o.path[o.path.length - 1] });
  }
  const hopTx = store.transmissions().reverse().find((tx) => tx.observations.some((o) => o.path.length > 1));
  if (hopTx) list.push({ node: hopTx.observations.find((o) => o.path.length > 1).path[1] });
  const someNode = store.nodes.size ? Array.from(store.nodes.keys())[store.nodes.size >> 1] : null;
  if (someNode) list.push({ node: someNode }, { node: someNode.slice(0, 2), limit: 5 });
  list.push({ node: 'ffffff' });
  return list;
}

test('neighbours equals a brute-force recomputation after random inserts and evictions', () => {
  checkAgainstBruteForce({ view: 'neighbours', bruteForce: bruteNeighbours, paramsList: paramsFor, project: withoutUnits });
});

test('neighbours stays exact on other seeds', () => {
  for (const seed of [4, 13]) checkAgainstBruteForce({ view: 'neighbours', bruteForce: bruteNeighbours, paramsList: paramsFor, seed, count: 3000, checks: 4, project: withoutUnits, largeProfile: false });
});

test('neighbours frees every key, link and byte once every transmission is evicted', () => {
  const engine = checkAgainstBruteForce({ view: 'neighbours', bruteForce: bruteNeighbours, paramsList: [{}], checks: 2, project: withoutUnits, largeProfile: false });
  const state = engine.view('neighbours').state;
  assert.ok(state.keys.size > 0 && state.part.bytes > 0);
  while (engine.store.size) engine.store.evictOldest();
  assert.equal(state.keys.size, 0);
  assert.equal(state.links, 0);
  assert.equal(state.observations, 0);
  assert.equal(state.part.bytes, 0);
});

test('neighbours added to a filled store equals one fed live, and a node subscription is scoped', () => {
  const engine = checkAgainstBruteForce({ view: 'neighbours', bruteForce: bruteNeighbours, paramsList: [{}], checks: 3, project: withoutUnits, largeProfile: false });
  const live = engine.view('neighbours');
  const late = engine.store.addView(neighbours.create(engine.store));
  assertClose(late.snapshot({}), live.snapshot({}));
  const key = Array.from(live.state.keys.keys())[0];
  assertClose(late.snapshot({ node: key }), live.snapshot({ node: key }));
  // A node nobody hears keeps its version while other traffic arrives.
  const before = live.versionFor({ node: 'abcdef' });
  engine.store.evictOldest();
  assert.equal(live.versionFor({ node: 'abcdef' }), before);
});

test('a watched key\'s version moves when a report or an eviction touches it, and only then', () => {
  const { PacketStore } = require('../../../imports/core/store');
  const store = new PacketStore({ maxTransmissions: 2 });
  const view = store.addView(neighbours.create(store));
  const t0 = Date.UTC(2026, 0, 1);
  // GRP_TXT floods (header 0x15) with two one-byte hops, distinct payloads.
  const flood = (hops, payload) => `1502${hops}11${payload}5566`;
  const watched = view.versionFor({ node: 'aa' });
  store.ingest({ raw: flood('bbcc', '01020304'), observerId: 'obs1', time: t0 });
  assert.equal(view.versionFor({ node: 'aa' }), watched, 'a report without aa leaves its version');
  assert.ok(view.versionFor({ node: 'bb' }) >= 0);
  store.ingest({ raw: flood('aabb', '01020305'), observerId: 'obs1', time: t0 + 1000 });
  const afterApply = view.versionFor({ node: 'aa' });
  assert.ok(afterApply > watched, 'a report with aa moves its version');
  const bbBefore = view.versionFor({ node: 'bb' });
  // The third transmission evicts the first (bb, cc): bb moves, aa does not.
  store.ingest({ raw: flood('ddee', '01020306'), observerId: 'obs1', time: t0 + 2000 });
  assert.ok(view.versionFor({ node: 'bb' }) > bbBefore, 'evicting a report with bb moves its version');
  assert.equal(view.versionFor({ node: 'aa' }), afterApply, 'neither the new report nor the eviction names aa');
});
