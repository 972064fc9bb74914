'use strict';
/**
 * Plain logic behind issue 12's dashboard features: the region scope (sticky `?region=` and
 * which views get it), the theme's first choice, favourites in localStorage, and the Ctrl+K
 * palette's requests, results and keys.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { withStickyParams, withQueryParam, queryParam } = require('../../imports/ui/lib/router');
const { regionViewsFromSpec, scopeParams, regionsOf, FALLBACK_REGION_VIEWS } = require('../../imports/ui/lib/region-scope');
const { initialTheme, otherTheme, browserTheme, THEME_STORAGE_KEY } = require('../../imports/ui/lib/theme');
const { parseFavourites, toggleFavourite, favouriteRows, MAX_FAVOURITES } = require('../../imports/ui/lib/favourites');
const { paletteRequests, paletteResults, moveSelection, isPaletteShortcut, PALETTE_PAGES } = require('../../imports/ui/lib/palette');
const { buildOpenApiDocument } = require('../../imports/core/openapi');
const { VIEW_DEFINITIONS } = require('../../imports/core/analytics');

test('router: the region follows every link unless the link sets one; query params set and removed', () => {
  assert.equal(withStickyParams('/nodes', '?region=SFO'), '/nodes?region=SFO');
  assert.equal(withStickyParams('/nodes', ''), '/nodes');
  assert.equal(withStickyParams('/nodes?region=SJC', '?region=SFO'), '/nodes?region=SJC', 'an explicit region wins');
  assert.equal(withStickyParams('/packets/ab?x=1', '?region=S%20F&other=2'), '/packets/ab?x=1&region=S+F', 'only sticky params travel');
  assert.equal(queryParam(withStickyParams('/', '?region=a%26b').split('?')[1], 'region'), 'a&b', 'encoded both ways');
  assert.equal(withQueryParam('?a=1', 'region', 'SFO'), '?a=1&region=SFO');
  assert.equal(withQueryParam('?region=SFO', 'region', ''), '');
  assert.equal(queryParam('', 'region'), '');
});

test('region scope: the views taking `region` come from the server contract; only those get it', () => {
  const document = buildOpenApiDocument({ views: VIEW_DEFINITIONS });
  const fromSpec = regionViewsFromSpec(document);
  // Whatever the server's views accept today (packets and observers at least; every view once
  // region scoping covers them all), the client reads exactly the views whose contract lists it.
  const known = new Set(VIEW_DEFINITIONS.map((definition) => definition.name));
  for (const name of fromSpec) assert.ok(known.has(name), `${name} is a view`);
  for (const name of FALLBACK_REGION_VIEWS) assert.ok(fromSpec.includes(name), `${name} takes region`);
  for (const [path, item] of Object.entries(document.paths)) {
    const name = path.replace('/api/views/', '');
    if (!path.startsWith('/api/views/') || !known.has(name)) continue;
    const listed = item.get.parameters.some((parameter) => parameter.name === 'region');
    assert.equal(fromSpec.includes(name), listed, `${name}: region listed = scoped`);
  }
  assert.equal(regionViewsFromSpec(null), null);
  assert.equal(regionViewsFromSpec({ paths: 3 }), null);
  assert.deepEqual(regionViewsFromSpec({ paths: { '/api/views/x': { get: { parameters: [{ name: 'region', in: 'query' }] } }, '/api/health': {} } }), ['x']);

  const params = { limit: 5 };
  assert.deepEqual(scopeParams('packets', params, 'SFO', ['packets']), { limit: 5, region: 'SFO' });
  assert.equal(scopeParams('stats', params, 'SFO', ['packets']), params, 'a view without region is asked as before');
  assert.equal(scopeParams('packets', params, '', ['packets']), params, 'no region chosen');
  assert.deepEqual(scopeParams('packets', { region: 'SJC' }, 'SFO', ['packets']), { region: 'SJC' }, 'an explicit region wins');
  assert.deepEqual(scopeParams('observers', undefined, 'SFO', ['observers']), { region: 'SFO' });
  assert.deepEqual(regionsOf([{ region: 'b' }, { region: 'a' }, { region: null }, { region: 'b' }]), ['a', 'b']);
});

test('region scope: a region no observer reports is called unknown (not shown as an empty mesh), once the regions are read', () => {
  const { isUnknownRegion, unknownFilterRegions } = require('../../imports/ui/lib/region-scope');
  const known = ['LAX', 'SFO'];
  assert.equal(isUnknownRegion('NOWHERE', known), true);
  assert.equal(isUnknownRegion('SFO', known), false);
  assert.equal(isUnknownRegion('sfo', known), true, 'the scope compares exactly, as the views do');
  assert.equal(isUnknownRegion('', known), false, 'no scope');
  assert.equal(isUnknownRegion('NOWHERE', null), false, 'not before the observers list has loaded');
  assert.equal(isUnknownRegion('SFO', []), true, 'no observer has reported a region yet');
  // A filter compares case-insensitively, ~ as a substring; != and other fields are not region tests.
  assert.deepEqual(unknownFilterRegions('type == ADVERT && region == "Nowhere"', known), ['nowhere']);
  assert.deepEqual(unknownFilterRegions("region == sfo || region ~ 'LA' || region ~ bay", known), ['bay']);
  assert.deepEqual(unknownFilterRegions('region != NOWHERE && observer ~ "region"', known), []);
  assert.deepEqual(unknownFilterRegions('region == NOWHERE', null), []);
  assert.deepEqual(unknownFilterRegions('', known), []);
});

test('theme: a stored choice wins, else the system preference; dark by default', () => {
  assert.equal(initialTheme('light', false), 'light');
  assert.equal(initialTheme('dark', true), 'dark');
  assert.equal(initialTheme(null, true), 'light');
  assert.equal(initialTheme('purple', false), 'dark');
  assert.equal(otherTheme('dark'), 'light');
  assert.equal(otherTheme('light'), 'dark');
  const fakeWindow = (stored, prefersLight) => ({
    localStorage: { getItem: (key) => (key === THEME_STORAGE_KEY ? stored : null) },
    matchMedia: (query) => ({ matches: prefersLight && query.includes('light') }),
  });
  assert.equal(browserTheme(fakeWindow(null, true)), 'light');
  assert.equal(browserTheme(fakeWindow('dark', true)), 'dark');
  assert.equal(browserTheme({ localStorage: { getItem() { throw new Error('blocked'); } } }), 'dark');
  assert.equal(browserTheme(null), 'dark');
});

test('favourites: parsing never throws and keeps valid distinct keys; toggling adds and removes', () => {
  assert.deepEqual(parseFavourites(null), []);
  assert.deepEqual(parseFavourites('{bad json'), []);
  assert.deepEqual(parseFavourites('{"a":1}'), []);
  assert.deepEqual(parseFavourites(JSON.stringify(['AB12', 'ab12', 'zz', 5, null, 'cd34'])), ['ab12', 'cd34']);
  const many = Array.from({ length: MAX_FAVOURITES + 10 }, (_, i) => i.toString(16).padStart(4, '0'));
  assert.equal(parseFavourites(JSON.stringify(many)).length, MAX_FAVOURITES);
  let keys = toggleFavourite([], 'AB12');
  assert.deepEqual(keys, ['ab12']);
  keys = toggleFavourite(keys, 'cd34');
  assert.deepEqual(toggleFavourite(keys, 'ab12'), ['cd34']);
  assert.equal(toggleFavourite(keys, 'not hex'), keys, 'an invalid key changes nothing');
  const rows = [{ pubKey: 'ab12' }, { pubKey: 'ef56' }, { pubKey: 'cd34' }];
  assert.deepEqual(favouriteRows(rows, ['cd34', 'ab12']), [rows[0], rows[2]]);
});

test('palette: what a query asks the server for', () => {
  assert.deepEqual(paletteRequests('  '), { query: '', nodes: null, packets: null });
  const byName = paletteRequests('Peak');
  assert.deepEqual(byName.nodes, { search: 'peak', sort: 'lastSeen', limit: 6 });
  assert.equal(byName.packets, null, 'words are not hashes');
  assert.deepEqual(paletteRequests('A8F1').packets, { text: 'a8f1', limit: 6 }, 'a hex prefix of 4+ digits looks up packet hashes');
  assert.equal(paletteRequests('a8').packets, null, 'two hex digits are a node prefix, not a packet');
  assert.deepEqual(paletteRequests('0123456789abcdef').packets, { hash: '0123456789abcdef' });
});

test('palette: results in groups, packets only when their hash matches, channels by name or hash', () => {
  const nodes = [{ pubKey: 'a8f1' + '0'.repeat(60), name: 'Peak Repeater', role: 'repeater' }];
  const packets = [{ hash: 'a8f1000000000000' }, { hash: 'ffff000000000000', advert: null }];
  const channels = [{ hash: '11', name: '#test', messages: 3 }, { hash: 'a8', name: null, messages: 1 }];
  const results = paletteResults('a8f1', { nodes, packets, channels });
  assert.deepEqual(results.map((r) => r.kind), ['node', 'packet']);
  assert.equal(results[0].to, `/nodes/${nodes[0].pubKey}`);
  assert.equal(results[1].to, '/packets/a8f1000000000000');
  assert.deepEqual(paletteResults('#tes', { channels }).map((r) => r.to), ['/channels/11']);
  assert.deepEqual(paletteResults('a8', { channels }).map((r) => r.to), ['/channels/a8']);
  assert.deepEqual(paletteResults('perf').map((r) => r.to), ['/perf']);
  assert.equal(paletteResults('').length, 6, 'an empty query offers pages');
  for (const page of PALETTE_PAGES) assert.match(page.to, /^\//);
});

test('palette: arrow keys wrap, the selection stays in range, Ctrl+K and Cmd+K open it', () => {
  assert.equal(moveSelection(0, 'ArrowDown', 3), 1);
  assert.equal(moveSelection(2, 'ArrowDown', 3), 0);
  assert.equal(moveSelection(0, 'ArrowUp', 3), 2);
  assert.equal(moveSelection(5, null, 3), 2);
  assert.equal(moveSelection(1, 'ArrowDown', 0), 0);
  assert.equal(isPaletteShortcut({ key: 'k', ctrlKey: true }), true);
  assert.equal(isPaletteShortcut({ key: 'K', metaKey: true }), true);
  assert.equal(isPaletteShortcut({ key: 'k' }), false);
  assert.equal(isPaletteShortcut({ key: 'k', ctrlKey: true, shiftKey: true }), false);
});
