'use strict';
/**
 * The one page list (imports/ui/lib/pages.js) read by the navigation, the Analytics tabs and the
 * Ctrl+K palette; the Distances tab's bars and the km format; favourites asked by key.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { SECTIONS, ANALYTICS_TABS, PALETTE_PAGES, isCurrentSection } = require('../../imports/ui/lib/pages');
const { paletteResults } = require('../../imports/ui/lib/palette');
const { distanceBars } = require('../../imports/ui/lib/distance-bars');
const { formatKm } = require('../../imports/ui/lib/format');
const { favouritesParams, favouriteMatches } = require('../../imports/ui/lib/favourites');
const { VIEWS_BY_NAME } = require('../../imports/core/analytics');

const ROOT = path.resolve(__dirname, '../..');

test('pages: one list for the navigation, the Analytics tabs and the palette', () => {
  const sectionPaths = SECTIONS.map((section) => section.to);
  assert.equal(new Set(sectionPaths).size, sectionPaths.length, 'no section twice');
  const analytics = SECTIONS.find((section) => section.prefix === '/analytics');
  assert.equal(analytics.tabs, ANALYTICS_TABS);
  assert.equal(analytics.to, ANALYTICS_TABS[0].to, 'the Analytics link opens its first tab');
  // The palette offers every section without tabs, and every tab, each once.
  const expected = [...SECTIONS.filter((section) => !section.tabs).map((section) => section.to), ...ANALYTICS_TABS.map((tab) => tab.to)].sort();
  assert.deepEqual(PALETTE_PAGES.map((page) => page.to).sort(), expected);
  assert.ok(PALETTE_PAGES.some((page) => page.label === 'Analytics: Distances' && page.to === '/analytics/distances'));
  assert.deepEqual(paletteResults('distan').map((result) => result.to), ['/analytics/distances']);
  for (const tab of ANALYTICS_TABS) assert.match(tab.id, /^[a-z-]+$/);
});

test('pages: the current section follows the path', () => {
  const byLabel = Object.fromEntries(SECTIONS.map((section) => [section.label, section]));
  assert.equal(isCurrentSection(byLabel.Overview, '/'), true);
  assert.equal(isCurrentSection(byLabel.Overview, '/nodes'), false, 'Overview is current on / only');
  assert.equal(isCurrentSection(byLabel.Nodes, '/nodes/ab12'), true);
  assert.equal(isCurrentSection(byLabel.Nodes, '/nodesx'), false);
  assert.equal(isCurrentSection(byLabel.Analytics, '/analytics/distances'), true);
  assert.equal(isCurrentSection(byLabel.Analytics, '/analytics'), true);
  assert.equal(isCurrentSection(byLabel.Live, '/analytics/rf'), false);
});

test('pages: every Analytics tab has its component in AnalyticsPage.jsx and nothing else repeats the list', () => {
  const page = fs.readFileSync(path.join(ROOT, 'imports/ui/pages/AnalyticsPage.jsx'), 'utf8');
  const components = page.slice(page.indexOf('const COMPONENTS'), page.indexOf('};', page.indexOf('const COMPONENTS')));
  for (const tab of ANALYTICS_TABS) {
    const key = /^[a-z]+$/.test(tab.id) ? `${tab.id}:` : `'${tab.id}':`;
    assert.ok(components.includes(key), `AnalyticsPage.jsx maps tab "${tab.id}" to a component`);
  }
  const navBar = fs.readFileSync(path.join(ROOT, 'imports/ui/components/NavBar.jsx'), 'utf8');
  assert.doesNotMatch(navBar, /'\/live'/, 'NavBar reads its sections from lib/pages.js');
  const palette = fs.readFileSync(path.join(ROOT, 'imports/ui/lib/palette.js'), 'utf8');
  assert.doesNotMatch(palette, /'\/analytics\//, 'the palette reads its pages from lib/pages.js');
});

test('distances: bars per km bin by links or sightings, with both figures and the share in the tooltip', () => {
  const histogram = [
    { bin: '0-1', links: 2, sightings: 10 }, { bin: '1-2', links: 0, sightings: 0 }, { bin: '2-5', links: 1, sightings: 30 },
    { bin: '5-10', links: 1, sightings: 0 }, { bin: '10-20', links: 0, sightings: 0 }, { bin: '20-40', links: 0, sightings: 0 },
    { bin: '40-80', links: 0, sightings: 0 }, { bin: '80+', links: 0, sightings: 0 },
  ];
  const links = distanceBars(histogram, 'links');
  assert.deepEqual(links.map((bar) => bar.value), [2, 0, 1, 1, 0, 0, 0, 0]);
  assert.deepEqual(links.map((bar) => bar.label), ['0-1', '1-2', '2-5', '5-10', '10-20', '20-40', '40-80', '80+']);
  assert.equal(links[0].title, '0-1 km: 2 links (50.0%); 2 links, 10 sightings');
  const sightings = distanceBars(histogram, 'sightings');
  assert.deepEqual(sightings.map((bar) => bar.value), [10, 0, 30, 0, 0, 0, 0, 0]);
  assert.equal(sightings[2].title, '2-5 km: 30 sightings (75.0%); 1 links, 30 sightings');
  assert.deepEqual(distanceBars(null, 'links'), []);
  assert.match(distanceBars([{ bin: '0-1', links: 0, sightings: 0 }], 'links')[0].title, /\(0\.0%\)/, 'no NaN share on an empty mesh');
});

test('distances: the tab reads the fields the view sends', () => {
  const distances = VIEWS_BY_NAME.get('distances');
  assert.ok(distances, 'the distances view exists');
  const tab = fs.readFileSync(path.join(ROOT, 'imports/ui/pages/analytics/DistancesTab.jsx'), 'utf8');
  for (const field of ['links', 'sightings', 'meanKm', 'medianKm', 'histogram', 'longest', 'observations']) assert.match(tab, new RegExp(`data\\.${field}\\b`));
  assert.equal(distances.paramsSpec.limit.max, 200, 'the tab offers limits up to 200');
});

test('formatKm: metres under 1 km, then fewer decimals as links grow', () => {
  assert.equal(formatKm(0.4321), '432 m');
  assert.equal(formatKm(4.256), '4.26 km');
  assert.equal(formatKm(12.34), '12.3 km');
  assert.equal(formatKm(1423.6), '1,424 km');
  assert.equal(formatKm(null), '—');
  assert.equal(formatKm(NaN), '—');
});

test('favourites: asked by key (one subscription per set), rows matched by key or prefix, the rest missing', () => {
  assert.equal(favouritesParams([]), null);
  assert.deepEqual(favouritesParams(['cd34', 'ab12', 'cd34']), { keys: 'ab12,cd34', sort: 'lastSeen', limit: 500 });
  assert.deepEqual(favouritesParams(['ab12', 'cd34']), favouritesParams(['cd34', 'ab12']));
  const rows = [{ pubKey: 'ab12ff' }, { pubKey: 'ef56' }];
  assert.deepEqual(favouriteMatches(rows, ['ab12', 'cd34']), { rows: [rows[0]], missing: ['cd34'] });
});
