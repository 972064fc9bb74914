'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { checkAgainstBruteForce, packetsOfNodeByKey: packetsOfNode } = require('../../helpers/mesh');
const { nodeStatus } = require('../../../imports/core/node-status');


function bruteNodes(store, params, now) {
  const statusCounts = { active: 0, degraded: 0, silent: 0 };
  let rows = [];
  for (const node of store.nodes.values()) {
    const status = nodeStatus(node, now);
    statusCounts[status]++;
    rows.push({
      pubKey: node.pubKey, name: node.name, role: node.role, lat: node.lat, lon: node.lon, firstSeen: node.firstSeen, lastSeen: node.lastSeen, status,
      packets: packetsOfNode(store, node.pubKey).length,
      adverts: store.transmissions().filter((tx) => tx.advert && tx.advert.pubKey === node.pubKey).length,
    });
  }
  if (params.role) rows = rows.filter((row) => row.role === params.role);
  if (params.status) rows = rows.filter((row) => row.status === params.status);
  if (params.heardWithinHours !== null) rows = rows.filter((row) => now - row.lastSeen <= params.heardWithinHours * 3600e3);
  if (params.search) {
    const q = params.search.toLowerCase();
    rows = rows.filter((row) => (row.name || '').toLowerCase().includes(q) || (/^[0-9a-f]+$/.test(q) && row.pubKey.startsWith(q)));
  }
  const order = params.order || (params.sort === 'name' ? 'asc' : 'desc');
  const value = (row) => (params.sort === 'name' ? (row.name || '').toLowerCase() : row[params.sort]);
  rows.sort((a, b) => {
    const va = value(a);
    const vb = value(b);
    if (va !== vb) return (va < vb ? -1 : 1) * (order === 'asc' ? 1 : -1);
    return a.pubKey < b.pubKey ? -1 : 1;
  });
  return { total: rows.length, statusCounts, nodes: rows.slice(params.offset, params.offset + params.limit) };
}

test('nodes equals a brute-force recount after random inserts and evictions', () => {
  checkAgainstBruteForce({
    view: 'nodes',
    bruteForce: bruteNodes,
    paramsList: (store) => {
      const some = Array.from(store.nodes.values()).find((node) => node.name) || { pubKey: 'ab', name: 'x' };
      return [
        {}, { sort: 'name' }, { sort: 'packets' }, { sort: 'packets', order: 'asc', limit: 5, offset: 2 }, { sort: 'lastSeen', order: 'asc' },
        { search: some.name.slice(1, 4).toUpperCase() }, { search: some.pubKey.slice(0, 4) }, { search: some.pubKey.slice(0, 2).toUpperCase(), sort: 'name', order: 'desc' },
        { role: 'repeater' }, { role: 'companion', sort: 'packets' }, { status: 'active' }, { status: 'degraded', role: 'companion' }, { heardWithinHours: 0.5 }, { limit: 3, offset: 1 }, { offset: 10000 },
      ];
    },
  });
});

test('nodes rejects a limit above 500 and unknown parameters', (t) => {
  const engine = checkAgainstBruteForce({ view: 'nodes', bruteForce: () => null, paramsList: [], checks: 1, count: 200 });
  assert.throws(() => engine.snapshot('nodes', { limit: 501 }), /at most 500/);
  assert.throws(() => engine.snapshot('nodes', { sort: 'size' }), /must be one of/);
  assert.throws(() => engine.snapshot('nodes', { color: 'red' }), /not accepted/);
});

/** The brute force of `keys`: the rows whose public key starts with one of the listed prefixes. */
function bruteNodesWithKeys(store, params, now) {
  const all = bruteNodes(store, { ...params, limit: Number.MAX_SAFE_INTEGER, offset: 0 }, now);
  const keys = params.keys === null ? null : params.keys.split(',');
  const rows = keys === null ? all.nodes : all.nodes.filter((row) => keys.some((key) => row.pubKey.startsWith(key)));
  return { total: rows.length, statusCounts: all.statusCounts, nodes: rows.slice(params.offset, params.offset + params.limit) };
}

test('nodes with keys (favourites): full keys and prefixes, beyond the 500 most recent, equal a brute-force recount', () => {
  checkAgainstBruteForce({
    view: 'nodes',
    bruteForce: bruteNodesWithKeys,
    paramsList: (store) => {
      // The least recently heard nodes: the ones a `limit: 500` list by last heard leaves out first.
      const oldest = Array.from(store.nodes.values()).sort((a, b) => a.lastSeen - b.lastSeen || (a.pubKey < b.pubKey ? -1 : 1));
      const some = oldest.slice(0, 5).map((node) => node.pubKey);
      const one = some[0] || 'ab';
      return [
        { keys: some.join(',') },
        { keys: some.map((key) => key.toUpperCase()).reverse().join(', ') },
        { keys: some, sort: 'name', limit: 2 },
        { keys: [one.slice(0, 2)] },
        { keys: `${one.slice(0, 6)},${one},${one.slice(0, 4)}`, role: 'repeater' },
        { keys: 'ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff' },
        { keys: some.join(','), status: 'silent', sort: 'packets' },
      ];
    },
  });
});

test('nodes keys: bounded and validated with clear errors; any order or case is one set', () => {
  const engine = checkAgainstBruteForce({ view: 'nodes', bruteForce: () => null, paramsList: [], checks: 1, count: 200, largeProfile: false });
  const view = engine.view('nodes');
  const many = Array.from({ length: 201 }, (unused, i) => i.toString(16).padStart(4, '0'));
  assert.throws(() => view.normalizeParams({ keys: many }), /nodes: parameter "keys" lists 201 keys; at most 200/);
  assert.throws(() => view.normalizeParams({ keys: many.join(',') }), /lists 201 keys; at most 200/);
  assert.throws(() => view.normalizeParams({ keys: 'a8f1,zz12' }), /parameter "keys" entry 2 \("zz12"\) is not a public key or prefix \(2 to 64 hex digits\)/);
  assert.throws(() => view.normalizeParams({ keys: 'a' }), /entry 1 \("a"\)/);
  assert.throws(() => view.normalizeParams({ keys: 'a8,' }), /entry 2 \(""\)/);
  assert.throws(() => view.normalizeParams({ keys: 'f'.repeat(65) }), /entry 1/);
  assert.throws(() => view.normalizeParams({ keys: [12] }), /must be a list of strings/);
  assert.throws(() => view.normalizeParams({ keys: 'a8'.repeat(7000) }), /at most 13000 characters/);
  assert.throws(() => engine.snapshot('nodes', { keys: 'xyz' }), /is not a public key or prefix/);
  assert.equal(view.normalizeParams({ keys: ['B2', 'a8f1', 'b2'] }).keys, 'a8f1,b2');
  assert.equal(view.normalizeParams({ keys: ' b2 , A8F1' }).keys, 'a8f1,b2');
  const all = many.slice(0, 200);
  assert.equal(engine.snapshot('nodes', { keys: all }).nodes.length, engine.snapshot('nodes', { keys: all.join(',') }).nodes.length);
});

test('a companion sharing its first key byte with a repeater is not credited with the repeater\'s relays; the repeater is, and both with packets addressed to that byte', () => {
  const { keyPairFromSeed, advertAppData, advertSigner, signAdvert, packetHex, ROUTE, ROLE_IDS } = require('../../../imports/core/simulate/packets');
  const { createEngine } = require('../../../imports/core/engine');
  // Two keys with the same first byte (found by trying seeds: one in 256 shares it).
  const keyOf = (n) => keyPairFromSeed(Buffer.alloc(32, 0).fill(n >> 8, 0, 1).fill(n & 0xff, 1, 2));
  const repeaterKeys = keyOf(1);
  const byte = repeaterKeys.publicKey[0];
  let companionKeys = null;
  for (let n = 2; companionKeys === null; n++) if (keyOf(n).publicKey[0] === byte) companionKeys = keyOf(n);
  const hex = (value) => value.toString(16).padStart(2, '0').toUpperCase();
  const other = (byte + 1) & 0xff;
  const third = (byte + 2) & 0xff;
  const engine = createEngine({ views: ['nodes', 'node'] });
  let time = Date.UTC(2026, 10, 1);
  const report = (raw) => {
    const result = engine.ingest({ raw, observerId: 'obs1', snr: 4, rssi: -90, time: time += 1000 });
    assert.equal(result.error, undefined, JSON.stringify(result.error));
  };
  const advert = (keys, role, name) => packetHex({ routeType: ROUTE.FLOOD, payloadType: 4, pathLength: 0, payload: signAdvert(advertSigner(keys, advertAppData(ROLE_IDS[role], name, null, null)), 100) });
  // A direct message (TXT_MSG: dest, src, MAC, one cipher block), relayed through `path` (1-byte hops).
  const message = (dest, src, path, salt) => packetHex({ routeType: ROUTE.FLOOD, payloadType: 2, pathLength: path.length, pathHex: path.map(hex).join(''), payload: Buffer.from([dest, src, salt, 0, ...Array(16).fill(salt)]) });
  report(advert(repeaterKeys, 'repeater', 'R'));
  report(advert(companionKeys, 'companion', 'C'));
  for (let i = 0; i < 10; i++) report(message(other, third, [other, byte, third], i + 1)); // relayed by the repeater
  report(message(byte, other, [], 99)); // addressed to the shared first byte: either node's
  const rows = new Map(engine.view('nodes').snapshot({ limit: 10 }).nodes.map((row) => [row.name, row]));
  assert.equal(rows.get('R').packets, 1 + 10 + 1, 'the repeater: its advert, its relays, the message to its byte');
  assert.equal(rows.get('C').packets, 1 + 1, 'the companion: its advert and the message to its byte, none of the relays');
  const companion = engine.view('node').snapshot({ pubKey: companionKeys.publicKey.toString('hex') }, time + 1000);
  assert.equal(companion.health.packets, 2);
  assert.equal(companion.analytics.relayed, 0);
  const repeater = engine.view('node').snapshot({ pubKey: repeaterKeys.publicKey.toString('hex') }, time + 1000);
  assert.equal(repeater.analytics.relayed, 10);
  // The repeater's hop peers name repeaters only; the message's sender is an address peer of the byte.
  const peers = new Map(repeater.analytics.topPeers.map((peer) => [peer.peer, peer]));
  assert.equal(peers.get(hex(other).toLowerCase()).count, 10);
  assert.equal(peers.get(hex(other).toLowerCase()).address, false);
  assert.equal(peers.get(`@${hex(other).toLowerCase()}`).count, 1);
  assert.equal(peers.get(`@${hex(other).toLowerCase()}`).address, true);
});
