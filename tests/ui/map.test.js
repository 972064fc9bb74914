'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const {
  lonLatToWorld, worldToLonLat, fitView, worldToScreen, zoomAt, screenToWorld, tilesFor, tileUrlFor, TILE_SIZE,
} = require('../../imports/ui/lib/projection');
const { buildMapData } = require('../../imports/ui/lib/map-data');

test('projection: Web Mercator round-trips and puts (0,0) in the middle of the world', () => {
  assert.deepEqual(lonLatToWorld(0, 0), [0.5, 0.5]);
  for (const [lon, lat] of [[-122.4, 37.7], [151.2, -33.9], [0, 60]]) {
    const [x, y] = lonLatToWorld(lon, lat);
    const [lon2, lat2] = worldToLonLat(x, y);
    assert.ok(Math.abs(lon - lon2) < 1e-9 && Math.abs(lat - lat2) < 1e-9);
  }
});

test('projection: a fitted view shows every point inside the padding', () => {
  const points = [[-122.5, 37.3], [-121.8, 37.9], [-122.1, 37.5]].map(([lon, lat]) => lonLatToWorld(lon, lat));
  const view = fitView(points, 800, 500, 40);
  for (const [x, y] of points) {
    const [sx, sy] = worldToScreen(view, 800, 500, x, y);
    assert.ok(sx >= 39.9 && sx <= 760.1 && sy >= 39.9 && sy <= 460.1, `${sx},${sy} outside`);
  }
  const zoomed = zoomAt(view, 800, 500, 100, 100, 2);
  const before = screenToWorld(view, 800, 500, 100, 100);
  const after = screenToWorld(zoomed, 800, 500, 100, 100);
  assert.ok(Math.abs(before[0] - after[0]) < 1e-12 && Math.abs(before[1] - after[1]) < 1e-12, 'zoom keeps the point under the cursor');
});

test('tiles: the zoom nearest the view, covering the screen, URL template filled', () => {
  const view = { centerX: 0.5, centerY: 0.5, scale: TILE_SIZE * 4 }; // zoom 2: 4x4 tiles of 256 px
  const tiles = tilesFor(view, 512, 512, 'https://t/{z}/{x}/{y}.png');
  assert.equal(tiles.length, 4);
  assert.ok(tiles.every((t) => t.url.startsWith('https://t/2/') && t.size === 256));
  assert.equal(tileUrlFor('https://{s}.t/{z}/{x}/{y}', 3, 1, 2), 'https://a.t/3/1/2');
});

test('map data: nodes with positions; links only between two placed, uniquely resolved nodes, undirected', () => {
  const nodes = [
    { pubKey: 'aa', name: 'A', role: 'repeater', lat: 37.5, lon: -122.1, status: 'active' },
    { pubKey: 'bb', name: 'B', role: 'repeater', lat: 37.6, lon: -122.2, status: 'active' },
    { pubKey: 'cc', name: 'C', role: 'companion', lat: null, lon: null, status: 'active' },
    { pubKey: 'dd', name: 'D', role: 'room', lat: 0, lon: 0, status: 'silent' },
  ];
  const hop = (pubKey) => ({ node: pubKey ? { pubKey } : null });
  const pairs = [
    { from: hop('aa'), to: hop('bb'), count: 10 },
    { from: hop('bb'), to: hop('aa'), count: 5 },
    { from: hop('aa'), to: hop('cc'), count: 7 },
    { from: hop(null), to: hop('bb'), count: 3 },
  ];
  const { points, links, unplacedPairs } = buildMapData(nodes, pairs);
  assert.deepEqual(points.map((p) => p.pubKey), ['aa', 'bb']);
  assert.equal(links.length, 1);
  assert.equal(links[0].count, 15);
  assert.equal(unplacedPairs, 2);
});

test('map links: pairs drawn from the topology view\'s resolved ends; a nearest-fit end makes a link likely', () => {
  const nodes = [
    { pubKey: 'aa11', name: 'A', role: 'repeater', lat: 47.5, lon: -122.1, status: 'active' },
    { pubKey: 'bb22', name: 'B', role: 'repeater', lat: 47.6, lon: -122.2, status: 'active' },
    { pubKey: 'cc33', name: 'C', role: 'repeater', lat: 47.7, lon: -122.3, status: 'active' },
  ];
  // Shared 1-byte hashes: the prefix names no single node (node null), the pair resolution does.
  const shared = (hop) => ({ hop, node: null });
  const end = (pubKey, by) => ({ pubKey, name: pubKey, role: 'repeater', by });
  const pairs = [
    { pair: 'aa,bb', from: shared('aa'), to: shared('bb'), count: 9, resolved: { from: end('aa11', 'range'), to: end('bb22', 'nearest') } },
    { pair: 'bb,aa', from: shared('bb'), to: shared('aa'), count: 4, resolved: { from: end('bb22', 'range'), to: end('aa11', 'range') } },
    { pair: 'bb,cc', from: shared('bb'), to: shared('cc'), count: 6, resolved: { from: end('bb22', 'nearest'), to: end('cc33', 'prefix') } },
    { pair: 'cc,dd', from: shared('cc'), to: shared('dd'), count: 5, resolved: { from: end('cc33', 'prefix'), to: null } },
  ];
  const { links, unplacedPairs } = buildMapData(nodes, pairs);
  assert.equal(unplacedPairs, 1, 'an end left ambiguous is not drawn');
  assert.deepEqual(links.map((link) => [link.key, link.count, link.by, link.likely]), [
    ['aa11|bb22', 13, 'range', false], // both directions summed; as sure as its surer pair
    ['bb22|cc33', 6, 'nearest', true], // as sure as its weaker end
  ]);
});
