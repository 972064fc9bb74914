'use strict';
/**
 * observers: every observer (a repeater or companion reporting over MQTT) with its region,
 * first and last seen, transmissions it heard that are still stored, and those in the last hour.
 * Counts come from the store's per-observer index, so eviction is reflected with no extra state.
 */
const { defineView, HOUR_MS } = require('./view');

module.exports = defineView({
  name: 'observers',
  description: 'Observers with region, first/last seen, packet counts.',
  params: {
    region: { type: 'string', maxLength: 64 },
  },
  createState: () => ({}),
  apply: () => true,
  evict: () => true,
  snapshot(state, params, store, now) {
    const hourAgo = now - HOUR_MS;
    const observers = [];
    for (const observer of store.observers.values()) {
      if (params.region && observer.region !== params.region) continue;
      const heard = store.byObserver.get(observer.id);
      observers.push({
        id: observer.id,
        name: observer.name,
        region: observer.region,
        firstSeen: observer.firstSeen,
        lastSeen: observer.lastSeen,
        packets: heard ? heard.length : 0,
        packetsLastHour: heard ? heard.length - heard.lowerBoundTime(hourAgo) : 0,
      });
    }
    observers.sort((a, b) => b.lastSeen - a.lastSeen || (a.id < b.id ? -1 : 1));
    return { observers };
  },
});
