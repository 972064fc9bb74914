'use strict';
const test = require('node:test');
const { checkAgainstBruteForce } = require('../../helpers/mesh');

function bruteObservers(store, params, now) {
  const hourAgo = now - 3600e3;
  const observers = [];
  for (const observer of store.observers.values()) {
    if (params.region && observer.region !== params.region) continue;
    const heard = store.transmissions().filter((tx) => tx.observations.some((o) => o.observer === observer));
    observers.push({
      id: observer.id, name: observer.name, region: observer.region, firstSeen: observer.firstSeen, lastSeen: observer.lastSeen,
      packets: heard.length, packetsLastHour: heard.filter((tx) => tx.time >= hourAgo).length,
    });
  }
  observers.sort((a, b) => b.lastSeen - a.lastSeen || (a.id < b.id ? -1 : 1));
  return { observers };
}

test('observers equals a brute-force recount after random inserts and evictions', () => {
  checkAgainstBruteForce({ view: 'observers', bruteForce: bruteObservers, paramsList: [{}, { region: 'SFO' }, { region: 'nowhere' }] });
});
