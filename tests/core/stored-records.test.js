'use strict';
// The compact storage of issue 8 against plain recomputation: records read back exactly what
// decode.js decoded and what the report said; SeqIndex and HashIndex answer like an array and a Map.
const test = require('node:test');
const assert = require('node:assert/strict');
const { createSimulator } = require('../../imports/core/simulate');
const { parseObserverMessage } = require('../../imports/core/observer-message');
const { decodePacket } = require('../../imports/core/decode');
const { createEngine } = require('../../imports/core/engine');
const { StoredObservation, packSignal } = require('../../imports/core/stored-records');
const { SeqDeque, SeqIndex } = require('../../imports/core/deque');
const { HashIndex } = require('../../imports/core/hash-index');
const { PathInterner } = require('../../imports/core/path-interner');
const { rawHex } = require('../../imports/core/store');

const HEADER_FIELDS = ['hash', 'routeType', 'payloadType', 'payloadVersion', 'transportCodes', 'hashSize', 'hopCount', 'path', 'size', 'payloadOffset', 'advert', 'srcHash', 'destHash', 'channelHash', 'message', 'trace', 'ackChecksum', 'controlSubtype'];

function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
}

function simulatedEngine(profile, count) {
  const sim = createSimulator({ seed: 31, profile });
  const channels = sim.channels.map((c) => ({ name: c.name, key: c.key }));
  const engine = createEngine({ channels, views: [] });
  const reports = [];
  for (const message of sim.messages(count)) {
    const { report } = parseObserverMessage(message.topic, JSON.stringify(message.payload), Date.parse(message.payload.timestamp));
    reports.push(report);
    engine.ingest(report);
  }
  return { engine, reports, channels };
}

test('a stored transmission reads back every field decode.js gives, and each observation its report', () => {
  for (const profile of ['default', 'large']) {
    const { engine, reports } = simulatedEngine(profile, 6000);
    const { store } = engine;
    for (const tx of store.transmissions()) {
      const { packet } = decodePacket(rawHex(tx), store.decodeOptions.keyring ? { keyring: store.decodeOptions.keyring } : {});
      for (const field of HEADER_FIELDS) {
        if (field === 'advert' && packet.advert) {
          for (const key of Object.keys(packet.advert)) if (key !== 'signatureValid') assert.deepEqual(tx.advert[key], packet.advert[key], `advert.${key}`);
        } else if (field === 'path') {
          assert.deepEqual(tx.path, packet.path);
        } else {
          assert.deepEqual(tx[field], packet[field], `${profile} ${field} of ${tx.hash}`);
        }
      }
      assert.equal(tx.observations[0], tx, 'a transmission is its own first observation');
      assert.equal(tx.observations.length, tx.observationCount);
    }
    // Every stored observation against the report it came from (reports of one hash in order).
    const byHash = new Map();
    for (const report of reports) {
      const { packet } = decodePacket(report.raw.toLowerCase());
      if (!byHash.has(packet.hash)) byHash.set(packet.hash, []);
      byHash.get(packet.hash).push({ report, path: packet.path });
    }
    for (const tx of store.transmissions()) {
      const sent = byHash.get(tx.hash);
      tx.observations.forEach((observation, i) => {
        const { report, path } = sent[i];
        assert.equal(observation.observer.id, report.observerId);
        assert.equal(observation.time, report.time);
        assert.equal(observation.snr, report.snr ?? null);
        assert.equal(observation.rssi, report.rssi ?? null);
        assert.equal(observation.score, report.score ?? null);
        assert.equal(observation.direction, 'rx');
        assert.deepEqual(observation.path, path);
        if (i > 0) assert.equal(tx.observations.lastIndexOf(observation), i);
      });
    }
  }
});

test('signals outside the packed form are kept exactly', () => {
  const cases = [
    [7.25, -110, 216, 'rx'], [null, null, null, 'rx'], [-32, -200, 0, 'rx'], [32, 0, 1000, 'rx'],
    [7.3, -110, 216, 'rx'], [-0, -1, 1, 'rx'], [1, -0, 1, 'rx'], [1, -90.5, 1, 'rx'], [1, -90, 12.5, 'rx'], [1, -90, 1, 'tx'], [40, -90, 1, 'rx'],
  ];
  for (const [snr, rssi, score, direction] of cases) {
    const observation = new StoredObservation(null, 1748779202318, packSignal(snr, rssi, score, direction), []);
    assert.ok(Object.is(observation.snr, snr), `snr ${snr}`);
    assert.ok(Object.is(observation.rssi, rssi), `rssi ${rssi}`);
    assert.ok(Object.is(observation.score, score), `score ${score}`);
    assert.equal(observation.direction, direction);
    assert.equal(observation.time, 1748779202318);
  }
  assert.equal(typeof packSignal(7.25, -110, 216, 'rx'), 'number', 'usual values pack into a small integer');
  // Times far from the first one stored are exact too (kept as heap numbers).
  for (const time of [0, 1748779202318 + 90 * 86400000, 1748779202318 - 90 * 86400000]) {
    assert.equal(new StoredObservation(null, time, 0, []).time, time);
  }
});

test('SeqIndex answers like an array of the indexed transmissions under random inserts and evictions', () => {
  const random = seededRandom(9);
  const fifo = new SeqDeque();
  const indexes = [new SeqIndex(fifo), new SeqIndex(fifo), new SeqIndex(fifo)];
  const truth = indexes.map(() => []);
  let seq = 0;
  const recent = [];
  for (let step = 0; step < 20000; step++) {
    if (random() < 0.45 || fifo.length === 0) {
      const tx = { seq: ++seq, time: seq * 10 };
      fifo.insert(tx);
      recent.push(tx);
      if (recent.length > 50) recent.shift();
    }
    // Index a recent (possibly older) stored transmission: late observations arrive out of order.
    const candidates = recent.filter((tx) => tx.seq >= fifo.first().seq);
    const tx = candidates[Math.floor(random() * candidates.length)];
    const which = Math.floor(random() * indexes.length);
    const inserted = indexes[which].insert(tx);
    assert.equal(inserted, !truth[which].includes(tx));
    if (inserted) {
      truth[which].push(tx);
      truth[which].sort((a, b) => a.seq - b.seq);
    }
    if (random() < 0.4 && fifo.length > 1) {
      const oldest = fifo.first();
      indexes.forEach((index, i) => {
        assert.equal(index.removeOldest(oldest), truth[i][0] === oldest);
        if (truth[i][0] === oldest) truth[i].shift();
      });
      fifo.removeOldest(oldest);
    }
    if (step % 997 === 0) {
      indexes.forEach((index, i) => {
        assert.deepEqual(index.toArray(), truth[i]);
        assert.equal(index.length, truth[i].length);
        assert.equal(index.first(), truth[i][0]);
        assert.equal(index.last(), truth[i][truth[i].length - 1]);
        const newest = [];
        index.forEachNewest((t) => { newest.push(t); });
        assert.deepEqual(newest, truth[i].slice().reverse());
        const t = truth[i].length ? truth[i][Math.floor(truth[i].length / 2)].time : 0;
        assert.equal(index.lowerBoundTime(t), truth[i].filter((x) => x.time < t).length);
      });
    }
  }
});

for (const [label, options] of [['', {}], [' with narrow offsets (rebased and widened often, the tag shrinking)', { minOffsetBits: 3 }]]) test(`HashIndex answers like a Map of the stored transmissions${label}`, () => {
  const random = seededRandom(4);
  const fifo = new SeqDeque();
  const index = new HashIndex(fifo, options);
  const bitsSeen = new Set();
  const truth = new Map();
  let seq = 0;
  const hex = () => Math.floor(random() * 2 ** 32).toString(16).padStart(8, '0');
  for (let step = 0; step < 30000; step++) {
    if (random() < 0.55 || fifo.length === 0) {
      // Some hashes share their first 8 hex digits (the slot key) to exercise probing.
      const high = random() < 0.1 && truth.size ? truth.keys().next().value.slice(0, 8) : hex();
      const hash = high + hex();
      if (truth.has(hash)) continue;
      const [hashHigh, hashLow] = [parseInt(high, 16) | 0, parseInt(hash.slice(8), 16) | 0];
      const tx = { seq: ++seq, hash, hashHigh, hashLow };
      fifo.insert(tx);
      index.set(hash, tx);
      truth.set(hash, tx);
    } else {
      const oldest = fifo.first();
      assert.equal(index.deleteTransmission(oldest), true);
      fifo.removeOldest(oldest);
      truth.delete(oldest.hash);
    }
    bitsSeen.add(index.offsetBits);
    if (step % 101 === 0) {
      assert.equal(index.size, truth.size);
      for (const [hash, tx] of truth) assert.equal(index.get(hash), tx);
      assert.equal(index.get(hex() + hex()), undefined);
      assert.equal(index.has('not a hash'), false);
      assert.equal(index.get(undefined), undefined);
    }
  }
  assert.deepEqual(Array.from(index.values()), Array.from(truth.values()));
  if (options.minOffsetBits) assert.ok(bitsSeen.size > 1, `offsets widened (seen ${[...bitsSeen]})`);
  else assert.deepEqual([...bitsSeen], [24]);
});

test('the path interner shares equal hop lists while referenced, and charges a function of what is referenced', () => {
  const part = { bytes: 0, add(delta) { this.bytes += delta; } };
  const interner = new PathInterner({ part });
  const first = interner.intern(['ab', 'cd']);
  assert.equal(interner.intern(['ab', 'cd']), first);
  assert.equal(interner.retain(first), first);
  const other = interner.intern(['abc', 'd']);
  assert.notEqual(other, first);
  const once = part.bytes;
  const random = Array.from({ length: 100 }, (_, i) => interner.intern([i.toString(16).padStart(2, '0')]));
  assert.equal(interner.size, 102);
  // Released in any order, every path goes with its last reference and its bytes are refunded.
  for (const path of random.reverse()) interner.release(path);
  assert.equal(part.bytes, once);
  for (let i = 0; i < 3; i++) interner.release(first);
  assert.equal(interner.size, 1, 'the other path is still referenced');
  interner.release(other);
  assert.equal(interner.size, 0);
  assert.equal(part.bytes, 0, 'nothing referenced, nothing charged');
  assert.deepEqual(interner.intern(['ab', 'cd']), ['ab', 'cd']);
});
