'use strict';
/**
 * The engine: one packet store with every analytics view attached. This is what the Meteor
 * server, the tests and the benchmarks all build on.
 *
 * Every view takes `region` (an observer region): `engine.views` holds each view wrapped by
 * analytics/region-scope.js, which answers a snapshot with a region from a region-scoped
 * instance of the view (created on demand, bounded, charged to the store's memory budget)
 * unless the view handles `region` itself.
 */
const { PacketStore } = require('./store');
const { createKeyring, PUBLIC_CHANNEL } = require('./decode');
const { VIEW_DEFINITIONS } = require('./analytics');
const { RegionScopes } = require('./analytics/region-scope');

/**
 * options: { channels, store (PacketStore options), views (names to build; all by default),
 * regionScope ({ maxInstances, idleMs, clock }: see REGION_SCOPE_DEFAULTS), now }.
 */
function createEngine(options = {}) {
  const keyring = createKeyring(options.channels || [PUBLIC_CHANNEL]);
  const store = new PacketStore({ ...options.store, keyring, now: options.now });
  const views = new Map();
  const only = options.views ? new Set(options.views) : null;
  const definitions = VIEW_DEFINITIONS.filter((definition) => !only || only.has(definition.name));
  const regionScopes = new RegionScopes(store, definitions, options.regionScope || {});
  for (const definition of definitions) {
    const view = store.addView(definition.create(store));
    views.set(definition.name, regionScopes.wrap(definition, view));
  }
  store.addView(regionScopes.feeder);
  return {
    store,
    keyring,
    views,
    regionScopes,
    ingest: (report) => store.ingest(report),
    view(name) {
      const view = views.get(name);
      if (!view) throw new Error(`unknown view "${name}"; known: ${Array.from(views.keys()).join(', ')}`);
      return view;
    },
    snapshot(name, params, now) {
      return this.view(name).snapshot(params, now);
    },
  };
}

module.exports = { createEngine };
