'use strict';
/**
 * The dashboard's pages in one list, read by the navigation bar (SECTIONS), the Analytics
 * page's tabs (ANALYTICS_TABS) and the Ctrl+K palette (PALETTE_PAGES), so a new page or tab is
 * added once. Plain data (no React): the Analytics page maps each tab id to its component, and
 * tests/ui checks the three lists agree.
 */

/** The Analytics page's tabs, in order; the tab is the URL's /analytics/:id. */
const ANALYTICS_TABS = Object.freeze([
  { id: 'rf', label: 'RF' },
  { id: 'topology', label: 'Topology' },
  { id: 'channels', label: 'Channels' },
  { id: 'hash-sizes', label: 'Hash sizes' },
  { id: 'subpaths', label: 'Subpaths' },
  { id: 'distances', label: 'Distances' },
  { id: 'observers', label: 'Observers' },
].map((tab) => Object.freeze({ ...tab, to: `/analytics/${tab.id}` })));

/**
 * The navigation bar's sections: `to` is where the link goes, `prefix` the paths it is current
 * for (its own path and below it), `exact` when only its own path counts.
 */
const SECTIONS = Object.freeze([
  { to: '/', label: 'Overview', exact: true },
  { to: '/live', label: 'Live' },
  { to: '/packets', label: 'Packets' },
  { to: '/nodes', label: 'Nodes' },
  { to: '/map', label: 'Map' },
  { to: '/channels', label: 'Channels' },
  { to: ANALYTICS_TABS[0].to, label: 'Analytics', prefix: '/analytics', tabs: ANALYTICS_TABS },
  { to: '/perf', label: 'Perf' },
].map(Object.freeze));

/** Is `section` the current one for `path`? */
function isCurrentSection(section, path) {
  if (section.exact) return path === section.to;
  const prefix = section.prefix || section.to;
  return path === prefix || path.startsWith(`${prefix}/`);
}

/** Every page the palette offers: each section, a section with tabs as one entry per tab. */
const PALETTE_PAGES = Object.freeze(SECTIONS.flatMap((section) => (section.tabs
  ? section.tabs.map((tab) => Object.freeze({ label: `${section.label}: ${tab.label}`, to: tab.to }))
  : [Object.freeze({ label: section.label, to: section.to })])));

module.exports = { SECTIONS, ANALYTICS_TABS, PALETTE_PAGES, isCurrentSection };
