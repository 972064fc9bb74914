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
