'use strict';
/** The directory's caps and age-out (imports/core/directory.js): nothing grows without bound. */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createEngine } = require('../../imports/core/engine');
const { hostileStream } = require('../../imports/core/simulate/hostile');
const { simulatedReports } = require('../helpers/mesh');

const DAY = 24 * 3600e3;

test('the node cap holds under a flood of random-key adverts, least recently heard out first', () => {
  const engine = createEngine({ store: { directory: { maxNodes: 300 } } });
  let accepted = 0;
  for (const report of hostileStream('randomAdverts', { seed: 2, count: 3000 })) if (!engine.ingest(report).error) accepted++;
  const { directory } = engine.store.stats();
  assert.ok(accepted > 600, `enough distinct keys to pass the cap twice (${accepted})`);
  assert.ok(directory.nodes <= 300 * 1.05 + 16, `nodes ${directory.nodes} within the cap (plus the sweep's slack)`);
  assert.ok(directory.nodesOverCap > 0, 'the cap evicted nodes, and counted them');
  // Every prefix-index bucket holds only nodes still in the directory.
  for (const index of engine.store.directory.byPrefix) {
    for (const bucket of index.values()) for (const node of bucket) assert.equal(engine.store.nodes.get(node.pubKey), node);
  }
});

test('the node cap follows the budget: a quarter of it at most', () => {
  const engine = createEngine({ store: { memoryBudgetBytes: 1024 * 1024 } });
  assert.ok(engine.store.directory.options.maxNodes < 1000, `cap ${engine.store.directory.options.maxNodes} for a 1 MB budget`);
});

test('idle observers are capped and age out; observers with stored packets stay', () => {
  const engine = createEngine({ store: { memoryBudgetBytes: 2 * 1024 * 1024, directory: { maxIdleObservers: 50 } } });
  for (const report of hostileStream('randomObservers', { seed: 4, count: 4000 })) engine.ingest(report);
  const { store } = engine;
  assert.ok(store.directory.idleObservers.size <= 50, 'idle observers within their cap');
  for (const observer of store.observers.values()) {
    if (observer.stored > 0) assert.ok(!store.directory.idleObservers.has(observer.id), 'an observer with stored packets is not idle');
  }
  // Everything stored references an observer still in the directory.
  for (const tx of store.transmissions()) for (const o of tx.observations) assert.equal(store.observers.get(o.observer.id), o.observer);
});

test('nodes unheard for maxAgeMs leave at the next sweep; stubs go with the last packet naming them', () => {
  const { reports, channels } = simulatedReports({ seed: 8, count: 1500 });
  const engine = createEngine({ channels, store: { directory: { maxAgeMs: DAY, sweepEveryMs: 3600e3 } } });
  for (const report of reports) engine.ingest(report);
  const { store } = engine;
  assert.ok(store.nodes.size > 0 && store.stubs.size >= 0);
  const last = store.lastTime;
  store.directory.sweep(last + 2 * DAY);
  assert.equal(store.nodes.size, 0, 'every node unheard for two days is gone');
  for (const index of store.directory.byPrefix) assert.equal(index.size, 0, 'and out of the prefix index');
  assert.equal(store.stats().memoryParts.directory, 0, 'its memory refunded');
  while (store.size > 0) store.evictOldest();
  assert.equal(store.stubs.size, 0, 'no stub outlives the packets naming its prefix');
});

test('a node remembers at most 64 neighbours for hop resolution; further ones are ignored, and the directory is charged for the kept ones alone', () => {
  const engine = createEngine();
  const { store } = engine;
  const hex = (i) => i.toString(16).padStart(64, '0');
  const hub = store.restoreNode({ pubKey: hex(1), role: 'repeater', firstSeen: 0 });
  const others = Array.from({ length: 80 }, (_, i) => store.restoreNode({ pubKey: hex(1000 + i), role: 'repeater', firstSeen: 0 }));
  const part = store.directory.directoryPart;
  const before = part.bytes;
  for (const other of others) store.directory.learnAdjacency(hub, other);
  assert.equal(hub.neighbours.size, 64);
  assert.deepEqual([...hub.neighbours], others.slice(0, 64).map((node) => node.pubKey), 'the first 64 kept, later ones ignored');
  for (const other of others) assert.equal(other.neighbours.size, 1, 'each other node remembers the hub');
  // Learning a kept pair again changes nothing.
  const charged = part.bytes;
  store.directory.learnAdjacency(hub, others[3]);
  assert.equal(part.bytes, charged);
  assert.ok(charged > before);
});

test('the directory logs node changes (added, removed, renamed, re-roled, moved) and learnt adjacency; a re-advert with the same identity is none', () => {
  const { simulatedWorld, churnNode, seededRandom } = require('../helpers/mesh');
  const { CHANGE_LOG_SIZE, ChangeLog } = require('../../imports/core/directory');
  const { reports, channels } = simulatedReports({ seed: 3, count: 1500 });
  const engine = createEngine({ channels, views: [] });
  const directory = engine.store.directory;
  let added = 0;
  let adjacency = 0;
  for (const report of reports) {
    const nodes = directory.nodes.size;
    const links = directory.adjacencyChanges.version;
    const version = directory.nodesVersion;
    engine.ingest(report);
    added += directory.nodes.size - nodes;
    adjacency += directory.adjacencyChanges.version - links;
    assert.equal(directory.nodesVersion - version, directory.nodes.size - nodes, 'during the stream a node change is a node learnt');
  }
  assert.ok(added > 20 && adjacency > 20, `${added} nodes, ${adjacency} adjacency changes`);
  const world = simulatedWorld({ seed: 3 });
  const random = seededRandom(9);
  const heard = reports[reports.length - 1];
  for (const [kind, moves] of [['same', 0], ['moved', 1], ['renamed', 1], ['re-roled', 1], ['removed', 1], ['same', 0]]) {
    const version = directory.nodesVersion;
    const key = churnNode(engine, world, kind, random, heard);
    assert.equal(directory.nodesVersion - version, moves, kind);
    assert.deepEqual(directory.nodeChanges.since(version), moves ? [key] : [], kind);
  }
  // The log answers for its last CHANGE_LOG_SIZE changes, oldest first; further back, null.
  const log = new ChangeLog();
  for (let i = 1; i <= CHANGE_LOG_SIZE + 3; i++) log.add(`k${i}`);
  assert.deepEqual(log.since(log.version - 2), [`k${CHANGE_LOG_SIZE + 2}`, `k${CHANGE_LOG_SIZE + 3}`]);
  assert.equal(log.since(log.version - CHANGE_LOG_SIZE).length, CHANGE_LOG_SIZE);
  assert.equal(log.since(log.version - CHANGE_LOG_SIZE)[0], 'k4');
  assert.equal(log.since(log.version - CHANGE_LOG_SIZE - 1), null);
  assert.deepEqual(log.since(log.version), []);
});
