'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { seededRandom } = require('../../helpers/mesh');
const {
  MATCHED, HOP, KNOWN_KEYS_SIZE, Matches, ObservationPeers, KnownKeys, matchStatic, matchPathSlots,
} = require('../../../imports/core/analytics/observation-keys');

const HOPS = ['a1', 'a2', 'b3', 'c4', 'a1b2', 'c4d5e6']; // few keys: paths repeat and cross

let nextSeq = 0;

function randomTransmission(random) {
  const pick = () => HOPS[Math.floor(random() * HOPS.length)];
  const kind = random();
  return {
    advert: kind < 0.25 ? { pubKey: `${pick()}${'0'.repeat(10)}` } : null,
    srcHash: kind >= 0.25 && kind < 0.7 ? pick() : null,
    destHash: kind >= 0.45 && kind < 0.7 ? pick() : null,
    seq: ++nextSeq, // the store's sequence number: KnownKeys slots by it
    observations: [],
  };
}

function randomPath(random, tx) {
  const earlier = tx.observations;
  // Sometimes the very array an earlier observation carries (a shared, interned path).
  if (earlier.length > 0 && random() < 0.3) return earlier[Math.floor(random() * earlier.length)].path;
  return Array.from({ length: Math.floor(random() * 5) }, () => HOPS[Math.floor(random() * HOPS.length)]);
}

/** Key -> flags named by tx's observations [0, index), from the definition. */
function bruteUnion(tx, index) {
  const union = new Map();
  if (index === 0) return union;
  const name = (key, flags) => union.set(key, (union.get(key) || 0) | flags);
  if (tx.advert) name(tx.advert.pubKey, MATCHED);
  // src and dest hashes are named as address keys (`@` and the hash), apart from the same bytes as a hop.
  if (tx.srcHash !== null) name(`@${tx.srcHash}`, MATCHED);
  if (tx.destHash !== null) name(`@${tx.destHash}`, MATCHED);
  for (let i = 0; i < index; i++) for (const hop of tx.observations[i].path) name(hop, MATCHED | HOP);
  return union;
}

function asMap(matches) {
  const map = new Map();
  for (let m = 0; m < matches.size; m++) map.set(matches.keys[m], matches.flags[m]);
  return map;
}

test('known keys give the keys of a transmission\'s earlier observations, also once its entry has gone or the caller is out of step', () => {
  for (const capacity of [1, 2, 3, KNOWN_KEYS_SIZE]) {
    const random = seededRandom(capacity);
    const known = new KnownKeys(capacity);
    const live = [];
    let rebuilt = 0;
    for (let step = 0; step < 4000; step++) {
      if (live.length < 6 || random() < 0.2) live.push(randomTransmission(random));
      const tx = live[Math.floor(random() * live.length)];
      const path = randomPath(random, tx);
      tx.observations.push({ path });
      const index = tx.observations.length - 1;
      const wasKept = known.holds(tx);
      const union = known.before(tx, index);
      if (!wasKept && index > 0) rebuilt++;
      assert.deepEqual(asMap(union), bruteUnion(tx, index), `capacity ${capacity} step ${step}`);
      const own = matchPathSlots(path, matchStatic(tx, new Matches()), []);
      known.advance(union, own, index);
      // A late caller asks about an earlier observation: matched again, and right.
      if (random() < 0.05 && index > 0) {
        const earlier = Math.floor(random() * index);
        assert.deepEqual(asMap(known.before(tx, earlier)), bruteUnion(tx, earlier), `capacity ${capacity} step ${step}, late`);
      }
      if (random() < 0.05) known.forget(live.splice(Math.floor(random() * live.length), 1)[0]);
      if (live.length > 12) live.shift();
    }
    if (capacity < 4) assert.ok(rebuilt > 100, `capacity ${capacity}: ${rebuilt} unions rebuilt from the observations`);
  }
});

test('observation peers: hops next to a key, the first hop for the origin, src and dest for each other; never the key itself, each once', () => {
  const random = seededRandom(5);
  const peers = new ObservationPeers();
  for (let round = 0; round < 3000; round++) {
    const tx = randomTransmission(random);
    const path = randomPath(random, tx);
    const slots = [];
    const own = matchPathSlots(path, matchStatic(tx, new Matches()), slots);
    peers.collect(tx, path, own, slots);
    // The definition, in the order it lists them.
    const expected = new Map();
    const meet = (key, peer) => {
      if (key === peer) return;
      if (!expected.has(key)) expected.set(key, []);
      if (!expected.get(key).includes(peer)) expected.get(key).push(peer);
    };
    for (let i = 0; i < path.length; i++) {
      if (i > 0) meet(path[i], path[i - 1]);
      if (i < path.length - 1) meet(path[i], path[i + 1]);
    }
    const src = tx.srcHash !== null ? `@${tx.srcHash}` : null;
    const dest = tx.destHash !== null ? `@${tx.destHash}` : null;
    if (path.length > 0) {
      if (src !== null) meet(src, path[0]);
      if (tx.advert) meet(tx.advert.pubKey, path[0]);
    }
    if (src !== null && dest !== null) {
      meet(src, dest);
      meet(dest, src);
    }
    for (let m = 0; m < own.size; m++) {
      const listed = peers.lists[m].slice(0, peers.counts[m]).map((slot) => own.keys[slot]);
      assert.deepEqual(listed, expected.get(own.keys[m]) || [], `round ${round}, key ${own.keys[m]}, path ${path}`);
    }
  }
});
