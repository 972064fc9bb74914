'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const observerView = require('../../../imports/core/analytics/observer');
const { observerStatusOf } = require('../../../imports/core/observer-status');
const { PAYLOAD_TYPES } = require('../../../imports/core/decode');
const { checkAgainstBruteForce, assertClose } = require('../../helpers/mesh');

const HOUR = 3600e3;
const EXAMPLE_SCAN = 5000;

/** Everything the observer view shows, recounted from the stored transmissions. */
function bruteObserver(store, params, now) {
  const { id } = params;
  if (id === null) {
    const lastHour = Math.floor(now / HOUR) * HOUR;
    return {
      found: false, observer: null, status: null, statusHistory: [], reports: 0, heard: 0,
      perHour: Array.from({ length: params.hours }, (_, i) => ({ hour: lastHour - (params.hours - 1 - i) * HOUR, count: 0 })),
      snr: { count: 0, mean: null, bins: [] }, onlyHeardHere: { count: 0, share: null, examples: [], examplesComplete: true },
    };
  }
  const all = store.transmissions();
  const mine = all.flatMap((tx) => tx.observations.filter((o) => o.observer.id === id));
  const heard = all.filter((tx) => tx.observations.some((o) => o.observer.id === id));
  const onlyMine = (tx) => tx.observations.every((o) => o.observer.id === id);
  const directory = store.observers.get(id) || null;
  const book = observerStatusOf(store);
  const status = book.latest(id);
  const found = Boolean(directory || mine.length || status);
  const lastHour = Math.floor(now / HOUR) * HOUR;
  const perHour = [];
  for (let h = params.hours - 1; h >= 0; h--) {
    const hour = lastHour - h * HOUR;
    perHour.push({ hour, count: mine.filter((o) => Math.floor(o.time / HOUR) * HOUR === hour).length });
  }
  const snrs = mine.map((o) => o.snr).filter(Number.isFinite);
  const bins = new Map();
  for (const snr of snrs) bins.set(Math.floor(snr), (bins.get(Math.floor(snr)) || 0) + 1);
  const uniqueCount = heard.filter(onlyMine).length;
  const newest = heard.slice().sort((a, b) => b.seq - a.seq);
  const scannedPool = newest.slice(0, EXAMPLE_SCAN);
  const examples = [];
  let scanned = 0;
  if (params.examples > 0 && uniqueCount > 0) {
    for (const tx of scannedPool) {
      if (examples.length >= params.examples) break;
      scanned++;
      if (!onlyMine(tx)) continue;
      examples.push({
        hash: tx.hash, time: tx.time, payloadType: tx.payloadType, type: PAYLOAD_TYPES[tx.payloadType] || String(tx.payloadType),
        hops: Math.max(0, ...tx.observations.map((o) => o.path.length)),
        snr: (tx.observations.find((o) => Number.isFinite(o.snr)) || { snr: null }).snr,
        reports: tx.observations.length,
      });
    }
  }
  return {
    found,
    observer: directory
      ? { id, name: directory.name, region: directory.region, firstSeen: directory.firstSeen, lastSeen: directory.lastSeen }
      : { id, name: null, region: status ? status.region : null, firstSeen: null, lastSeen: null },
    status,
    statusHistory: found ? book.history(id, 240) : [],
    reports: mine.length,
    heard: heard.length,
    perHour,
    snr: { count: snrs.length, mean: snrs.length ? snrs.reduce((s, v) => s + v, 0) / snrs.length : null, bins: Array.from(bins, ([snr, count]) => ({ snr, count })).sort((a, b) => a.snr - b.snr) },
    onlyHeardHere: {
      count: uniqueCount,
      share: heard.length ? uniqueCount / heard.length : null,
      examples,
      examplesComplete: examples.length >= Math.min(params.examples, uniqueCount) || scanned >= heard.length,
    },
  };
}

/** Every observer id seen so far (a few), plus one nobody knows. */
function paramsFor(store) {
  const ids = Array.from(store.observers.keys()).slice(0, 6);
  const list = ids.map((id, i) => (i % 2 ? { id, hours: 48, examples: 3 } : { id }));
  list.push({ id: 'NOBODY' }, { id: ids[0] || 'x', examples: 0 }, {});
  return list;
}

test('observer equals a brute-force recount after random inserts and evictions', () => {
  checkAgainstBruteForce({ view: 'observer', bruteForce: bruteObserver, paramsList: paramsFor });
});

test('observer stays exact on other seeds, with statuses recorded', () => {
  for (const seed of [3, 11]) {
    checkAgainstBruteForce({
      view: 'observer', seed, count: 2500, checks: 4, largeProfile: false,
      bruteForce: bruteObserver,
      paramsList: (store) => {
        const book = observerStatusOf(store);
        // Statuses arrive between checks (the book is the store's): some figures, some bad ones.
        Array.from(store.observers.keys()).slice(0, 3).forEach((id, i) => book.record({
          observerId: id, region: 'SFO', status: i === 2 ? 'offline' : 'online',
          details: { stats: { battery_mv: 4000 + i, noise_floor: i === 1 ? 'loud' : -110, uptime_secs: 100 * i } },
        }, 1000 + book.version));
        return paramsFor(store);
      },
    });
  }
});

test('observer frees every entry and byte once every transmission is evicted; versions are scoped', () => {
  const engine = checkAgainstBruteForce({ view: 'observer', bruteForce: bruteObserver, paramsList: paramsFor, checks: 2, largeProfile: false });
  const view = engine.view('observer');
  const state = view.state;
  assert.ok(state.observers.size > 0 && state.part.bytes > 0);
  const ids = Array.from(state.observers.keys());
  const before = view.versionFor({ id: 'NOBODY' });
  engine.store.evictOldest();
  assert.equal(view.versionFor({ id: 'NOBODY' }), before, 'an observer nobody hears keeps its version');
  // A status bumps every observer's version (the book is shared).
  state.statuses.record({ observerId: ids[0], status: 'online', details: {} }, Date.now());
  assert.ok(view.versionFor({ id: 'NOBODY' }) > before);
  while (engine.store.size) engine.store.evictOldest();
  assert.equal(state.observers.size, 0);
  assert.equal(state.part.bytes, 0);
});

test('observer added to a filled store equals one fed live; bad params are refused', () => {
  const engine = checkAgainstBruteForce({ view: 'observer', bruteForce: bruteObserver, paramsList: paramsFor, checks: 3, largeProfile: false });
  const live = engine.view('observer');
  const late = engine.store.addView(observerView.create(engine.store));
  for (const id of Array.from(engine.store.observers.keys())) assertClose(late.snapshot({ id }), live.snapshot({ id }));
  assert.equal(live.snapshot({}).found, false, 'no id: the empty answer');
  assert.throws(() => live.snapshot({ id: 5 }), /must be a string/);
  assert.throws(() => live.snapshot({ id: 'x'.repeat(200) }), /at most 128/);
  assert.throws(() => live.snapshot({ id: 'a', hours: 1000 }), /at most 168/);
});
