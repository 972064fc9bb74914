'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { createEngine } = require('../../imports/core/engine');
const { simulatedReports, seededRandom } = require('../helpers/mesh');
const { rawHex } = require('../../imports/core/store');

const INDEXES = ['byHash', 'byObserver', 'byNode', 'byPrefix', 'byChannel', 'byType'];

function filledEngine(options = {}, count = 3000) {
  const { reports, channels } = simulatedReports({ seed: 21, count });
  const engine = createEngine({ channels, ...options });
  for (const report of reports) engine.ingest(report);
  return { engine, reports, channels };
}

test('one transmission heard by several observers is stored once, with every observation', () => {
  const { engine } = filledEngine({}, 2000);
  const { store } = engine;
  let multi = 0;
  for (const tx of store.transmissions()) {
    assert.equal(store.byHash.get(tx.hash), tx);
    if (new Set(tx.observations.map((o) => o.observer.id)).size > 1) multi++;
  }
  assert.ok(multi > 10, 'the simulator has transmissions heard by several observers');
  assert.equal(store.stats().duplicates + store.size, store.stats().ingested);
  assert.equal(store.observationCount, store.transmissions().reduce((n, tx) => n + tx.observations.length, 0));
});

test('a transmission keeps 64 observations: further reports of it are counted as dropped, not stored, and change no view', () => {
  const { reports, channels } = simulatedReports({ seed: 4, count: 50 });
  const engine = createEngine({ channels });
  const { store } = engine;
  const { raw, time } = reports.find((report) => engine.ingest(report).isNew);
  const tx = store.transmissions().find((stored) => stored.raw === Buffer.from(raw, 'hex').toString('latin1'));
  const versions = () => store.views.map((view) => view.version);
  let stored = tx.observations.length;
  let dropped = 0;
  for (let i = 0; i < 80; i++) {
    const viewVersions = versions();
    const result = engine.ingest({ raw, observerId: `cap-observer-${i}`, snr: 5, rssi: -90, time: time + i });
    assert.equal(result.error, undefined);
    if (stored < 64) {
      stored++;
      assert.notEqual(result.observation, null);
    } else {
      dropped++;
      assert.equal(result.observation, null, `report ${i} is past the cap`);
      assert.deepEqual(versions(), viewVersions, 'no view changed');
    }
  }
  assert.equal(tx.observations.length, 64);
  assert.equal(store.counters.observationsDropped, dropped);
  assert.ok(dropped > 0);
  assert.equal(store.observationCount, store.transmissions().reduce((n, stored) => n + stored.observations.length, 0));
  while (store.size > 0) store.evictOldest();
  assert.equal(store.memory.part('packets').bytes, 0);
});

test('evicting everything leaves no trace in any index or view', () => {
  const { engine, channels } = filledEngine();
  const { store } = engine;
  while (store.size > 0) store.evictOldest();
  for (const index of INDEXES) assert.equal(store[index].size, 0, `${index} is empty`);
  assert.equal(store.fifo.length, 0);
  assert.equal(store.observationCount, 0);
  assert.equal(store.bytes, 0, 'the byte estimate returns to zero');
  // Every budgeted part (packets, indexes, observers, stubs, each view's state) is back to zero:
  // nothing that grows with input outlives the packets it describes.
  for (const [part, bytes] of Object.entries(store.memory.summary().parts)) {
    if (part !== 'directory') assert.equal(bytes, 0, `${part} is back to zero`);
  }
  assert.equal(store.stubs.size, 0, 'stubs go with the last packet naming their prefix');
  assert.equal(store.directory.idleObservers.size, store.observers.size, 'every observer is idle');
  // Every view now says what a view over no packets says (the directory of nodes and observers
  // outlives packets, so compare against an engine that has the same directory).
  const empty = createEngine({ channels });
  for (const node of store.nodes.values()) empty.store.directory.addNode(node);
  for (const [id, observer] of store.observers) empty.store.observers.set(id, observer);
  const now = Date.now();
  for (const [name, view] of engine.views) {
    let params = {};
    if (name === 'node') params = { pubKey: store.nodes.keys().next().value };
    if (name === 'channelMessages') params = { channel: '00' };
    assert.deepEqual(view.snapshot(params, now), empty.view(name).snapshot(params, now), `${name} is back to empty`);
  }
});

test('the memory budget holds after every insert, and eviction is oldest first', () => {
  const budget = 400 * 1024;
  const { reports, channels } = simulatedReports({ seed: 22, count: 4000 });
  const engine = createEngine({ channels, store: { memoryBudgetBytes: budget } });
  const { store } = engine;
  let lastEvictedSeq = 0;
  const originalEvict = store.evictOldest.bind(store);
  store.evictOldest = () => {
    const tx = originalEvict();
    assert.ok(tx.seq > lastEvictedSeq, 'evicted in insertion order');
    lastEvictedSeq = tx.seq;
    return tx;
  };
  for (const report of reports) {
    engine.ingest(report);
    assert.ok(store.bytes <= budget, `estimate ${store.bytes} within budget ${budget}`);
    assert.equal(store.bytes, store.memory.total - store.memory.part('directory').bytes, 'the budget covers every part but the capped directory');
  }
  assert.ok(store.stats().evicted > 0, 'the budget forced evictions');
  // The estimate equals a recount from what is stored (no drift from insert/evict asymmetry).
  const e = store.options.estimatedBytes;
  // Shared paths are charged once, by the interner that keeps them while a stored packet carries them.
  let recount = store.paths.bytes;
  for (const tx of store.transmissions()) {
    recount += e.transmission + tx.raw.length + (tx.advert ? e.advert + (tx.advert.name ? tx.advert.name.length : 0) : 0);
    if (tx.message) recount += e.message + tx.message.text.length + (tx.message.sender ? tx.message.sender.length : 0);
    if (tx.trace) recount += e.trace + tx.trace.hashes.length * 4 * e.hop;
    recount += tx.observations.length * e.observation + (tx.observations.length >= 3 ? 48 : 0);
  }
  assert.equal(store.memory.part('packets').bytes, recount);
});

test('the same stored packets charge the same bytes whatever came and went before (a reload evicts to the live window)', () => {
  const { reports, channels } = simulatedReports({ seed: 12, count: 3000 });
  const live = createEngine({ channels, store: { memoryBudgetBytes: 300 * 1024 } });
  const reportsOf = new Map(); // hash -> its reports since it was last stored anew
  for (const report of reports) {
    const result = live.ingest(report);
    if (!result.observation) continue;
    if (result.isNew) reportsOf.set(result.tx.hash, []);
    reportsOf.get(result.tx.hash).push(report);
  }
  assert.ok(live.store.counters.evicted > 0);
  // A store that saw only the stored packets: none of the paths the evicted ones carried.
  const fresh = createEngine({ channels });
  for (const report of live.store.transmissions().flatMap((tx) => reportsOf.get(tx.hash)).sort((a, b) => a.time - b.time)) fresh.ingest(report);
  assert.equal(fresh.store.size, live.store.size);
  assert.deepEqual(fresh.store.memory.summary().parts.packets, live.store.memory.summary().parts.packets);
  assert.equal(fresh.store.paths.size, live.store.paths.size);
});

test('a count cap bounds the store too', () => {
  const { engine } = filledEngine({ store: { maxTransmissions: 100 } }, 2000);
  assert.equal(engine.store.size, 100);
});

test('indexes hold exactly the stored transmissions after random evictions', () => {
  const { reports, channels } = simulatedReports({ seed: 23, count: 3000 });
  const engine = createEngine({ channels });
  const { store } = engine;
  const random = seededRandom(5);
  for (const report of reports) {
    engine.ingest(report);
    if (random() < 0.2) store.evictOldest();
  }
  const stored = new Set(store.transmissions());
  for (const index of ['byObserver', 'byNode', 'byPrefix', 'byChannel', 'byType']) {
    for (const [key, deque] of store[index]) {
      const items = deque.toArray();
      for (let i = 0; i < items.length; i++) {
        assert.ok(stored.has(items[i]), `${index}[${key}] holds only stored transmissions`);
        if (i > 0) assert.ok(items[i - 1].seq < items[i].seq, `${index}[${key}] is in store order`);
      }
    }
  }
  for (const tx of stored) {
    assert.ok(store.byType.get(tx.payloadType).toArray().includes(tx));
    for (const o of tx.observations) assert.ok(store.byObserver.get(o.observer.id).toArray().includes(tx));
  }
});

test('bad input is counted with its reason and never loses good data', () => {
  const { reports, channels } = simulatedReports({ seed: 24, count: 200 });
  const engine = createEngine({ channels });
  const bad = [
    { raw: 'zz', observerId: 'o' }, { raw: '01', observerId: 'o' }, { raw: reports[0].raw },
    { raw: reports[0].raw, observerId: 'o', snr: Number.NaN }, { raw: '0545aabb', observerId: 'o' }, null,
  ];
  let accepted = 0;
  reports.forEach((report, i) => {
    if (i % 20 === 0) for (const input of bad) assert.ok(engine.ingest(input).error);
    if (!engine.ingest(report).error) accepted++;
  });
  assert.equal(accepted, reports.length);
  const { rejected, rejectReasons } = engine.store.stats();
  assert.equal(rejected, bad.length * 10);
  assert.deepEqual(Object.keys(rejectReasons).sort(), ['bad_snr', 'bad_observer', 'not_hex', 'too_short', 'truncated_path'].sort());
  // The raw a transmission keeps gives back the packet as hex.
  const tx = engine.store.fifo.first();
  assert.equal(rawHex(tx).length, tx.size * 2);
});
