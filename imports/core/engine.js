'use strict';
/**
 * The engine: one packet store with every analytics view attached. This is what the Meteor
 * server, the tests and the benchmarks all build on.
 */
const { PacketStore } = require('./store');
const { createKeyring, PUBLIC_CHANNEL } = require('./decode');
const { VIEW_DEFINITIONS } = require('./analytics');

function createEngine(options = {}) {
  const keyring = createKeyring(options.channels || [PUBLIC_CHANNEL]);
  const store = new PacketStore({ ...options.store, keyring, now: options.now });
  const views = new Map();
  const only = options.views ? new Set(options.views) : null;
  for (const definition of VIEW_DEFINITIONS) {
    if (only && !only.has(definition.name)) continue;
    views.set(definition.name, store.addView(definition.create(store)));
  }
  return {
    store,
    keyring,
    views,
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
