'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('crypto');
const { checkAgainstBruteForce } = require('../../helpers/mesh');
const { createEngine } = require('../../../imports/core/engine');
const { channelKeyFromName } = require('../../../imports/core/decode');

/** Brute force: every stored decrypted message of the channel, folded by identity, newest first. */
function bruteMessages(store, params) {
  const isHash = /^[0-9a-fA-F]{2}$/.test(params.channel);
  const wanted = (tx) => tx.message && (isHash ? tx.channelHash === params.channel.toLowerCase() : tx.message.channel === params.channel);
  const groups = new Map();
  for (const tx of store.transmissions()) {
    if (!wanted(tx)) continue;
    const m = tx.message;
    const key = JSON.stringify([tx.channelHash, m.channel, m.sender, m.timestamp, m.text]);
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(tx);
  }
  const messages = Array.from(groups.values())
    .filter((copies) => params.before === null || copies[0].time < params.before)
    .sort((a, b) => b[0].seq - a[0].seq)
    .slice(0, params.limit)
    .map((copies) => {
      const observations = copies.flatMap((tx) => tx.observations);
      const snrs = observations.map((o) => o.snr).filter((snr) => snr !== null);
      const m = copies[0].message;
      return {
        channelHash: copies[0].channelHash,
        channel: m.channel,
        sender: m.sender,
        text: m.text,
        textType: m.textType,
        timestamp: m.timestamp,
        repeats: copies.length,
        hashes: copies.map((tx) => tx.hash),
        firstHeard: copies[0].time,
        lastHeard: Math.max(...observations.map((o) => o.time)),
        observers: [...new Set(observations.map((o) => o.observer.id))].sort(),
        observations: observations.length,
        bestSnr: snrs.length ? Math.max(...snrs) : null,
        hopCounts: [...new Set(observations.map((o) => o.path.length))].sort((a, b) => a - b),
      };
    });
  let hashes;
  let name;
  if (isHash) {
    hashes = [params.channel.toLowerCase()];
    const keys = store.keyring.byHash.get(hashes[0]) || [];
    name = keys.length ? keys.map((k) => k.name).join(' / ') : null;
  } else {
    hashes = [...store.keyring.byHash].filter(([, keys]) => keys.some((k) => k.name === params.channel)).map(([hash]) => hash);
    name = params.channel;
  }
  return { channel: { hashes, name }, messages, nextBefore: messages.length === params.limit ? messages[messages.length - 1].firstHeard : null };
}

function paramsFor(store) {
  const list = [];
  const names = [...store.keyring.byHash.values()].flat().map((k) => k.name);
  for (const name of names) list.push({ channel: name }, { channel: name, limit: 3 });
  const hashes = [...store.byChannel.keys()];
  for (const hash of hashes) list.push({ channel: hash, limit: 200 });
  const busiest = hashes.sort((a, b) => store.byChannel.get(b).length - store.byChannel.get(a).length)[0] || '00';
  const txs = store.transmissions();
  const middle = txs.length ? txs[Math.floor(txs.length / 2)].time : 0;
  list.push({ channel: busiest.toUpperCase(), limit: 1 }, { channel: busiest, before: middle }, { channel: busiest, before: middle, limit: 2 },
    { channel: names[0], before: middle, limit: 5 }, { channel: '#nobody-has-this-key' }, { channel: 'zz' });
  return list;
}

test('channelMessages equals a brute-force fold after random inserts and evictions', () => {
  for (const seed of [7, 19]) {
    checkAgainstBruteForce({ view: 'channelMessages', bruteForce: bruteMessages, paramsList: paramsFor, seed, count: 4000 });
  }
});

// ---- Retries: the same message sent again with a new attempt number (new ciphertext) ----

const CHANNEL = '#retries';

/** A FLOOD GRP_TXT packet as a MeshCore radio builds it; `attempt` lives in the flags' low bits. */
function groupText({ sender, text, timestamp, attempt = 0, hops = [] }) {
  const key = channelKeyFromName(CHANNEL);
  const hash = crypto.createHash('sha256').update(key).digest()[0];
  const body = Buffer.from(`${sender}: ${text}`, 'utf8');
  const plain = Buffer.alloc(Math.ceil((5 + body.length) / 16) * 16);
  plain.writeUInt32LE(timestamp, 0);
  plain[4] = attempt & 0x03;
  body.copy(plain, 5);
  const cipher = crypto.createCipheriv('aes-128-ecb', key, null);
  cipher.setAutoPadding(false);
  const ciphertext = Buffer.concat([cipher.update(plain), cipher.final()]);
  const secret = Buffer.alloc(32);
  key.copy(secret);
  const mac = crypto.createHmac('sha256', secret).update(ciphertext).digest().subarray(0, 2);
  const header = Buffer.from([(5 << 2) | 1, hops.length, ...hops]);
  return Buffer.concat([header, Buffer.from([hash]), mac, ciphertext]).toString('hex');
}

test('channelMessages folds retries, unions observers, scopes changes to the channel and undoes on eviction', () => {
  const engine = createEngine({ channels: [CHANNEL, '#other'], views: ['channelMessages'] });
  const view = engine.view('channelMessages');
  const { store } = engine;
  const t0 = Date.UTC(2026, 2, 29, 12);
  const hello = { sender: 'Alice', text: 'hello 👋', timestamp: 1774800000 };
  engine.ingest({ raw: groupText({ ...hello, attempt: 0 }), observerId: 'obsA', snr: 4, time: t0 });
  engine.ingest({ raw: groupText({ ...hello, attempt: 0, hops: [0x12, 0x34] }), observerId: 'obsB', snr: 9.5, time: t0 + 100 });
  engine.ingest({ raw: groupText({ ...hello, attempt: 1, hops: [0x12] }), observerId: 'obsC', snr: -3, time: t0 + 5000 });
  engine.ingest({ raw: groupText({ sender: 'Bob', text: 'hi', timestamp: 1774800010 }), observerId: 'obsA', time: t0 + 6000 });

  const hash = store.fifo.last().channelHash;
  const { messages, channel } = view.snapshot({ channel: CHANNEL });
  assert.deepEqual(channel, { hashes: [hash], name: CHANNEL });
  assert.equal(messages.length, 2);
  assert.equal(messages[0].sender, 'Bob');
  const folded = messages[1];
  assert.equal(folded.repeats, 2);
  assert.equal(folded.hashes.length, 2);
  assert.notEqual(folded.hashes[0], folded.hashes[1]);
  assert.deepEqual(folded.observers, ['obsA', 'obsB', 'obsC']);
  assert.equal(folded.observations, 3);
  assert.equal(folded.bestSnr, 9.5);
  assert.deepEqual(folded.hopCounts, [0, 1, 2]);
  assert.equal(folded.firstHeard, t0);
  assert.equal(folded.lastHeard, t0 + 5000);
  assert.deepEqual(view.snapshot({ channel: hash }).messages, messages);

  // Paging: before Bob's message only the folded one is left.
  assert.deepEqual(view.snapshot({ channel: hash, limit: 1 }).nextBefore, t0 + 6000);
  assert.deepEqual(view.snapshot({ channel: hash, before: t0 + 6000 }).messages, [folded]);

  // Only subscribers of this channel are told; another channel's version stays put.
  const versions = { byHash: view.versionFor({ channel: hash }), byName: view.versionFor({ channel: CHANNEL }), other: view.versionFor({ channel: '#other' }) };
  engine.ingest({ raw: groupText({ sender: 'Bob', text: 'hi', timestamp: 1774800010 }), observerId: 'obsD', time: t0 + 7000 });
  assert.ok(view.versionFor({ channel: hash }) > versions.byHash);
  assert.ok(view.versionFor({ channel: CHANNEL }) > versions.byName);
  assert.equal(view.versionFor({ channel: '#other' }), versions.other);
  assert.deepEqual(view.snapshot({ channel: CHANNEL }).messages[0].observers, ['obsA', 'obsD']);

  // Evicting the first copy leaves the retry alone; evicting everything empties the state.
  store.evictOldest();
  const afterOne = view.snapshot({ channel: CHANNEL }).messages[1];
  assert.equal(afterOne.repeats, 1);
  assert.deepEqual(afterOne.observers, ['obsC']);
  assert.equal(afterOne.firstHeard, t0 + 5000);
  store.evictOldest();
  store.evictOldest();
  assert.equal(view.state.messages.size, 0);
  assert.deepEqual(view.snapshot({ channel: CHANNEL }).messages, []);
});

test('channelMessages requires a channel and caps the limit', () => {
  const engine = createEngine({ views: ['channelMessages'] });
  const view = engine.view('channelMessages');
  assert.throws(() => view.snapshot({}), /channel.*required/);
  assert.throws(() => view.snapshot({ channel: 'Public', limit: 201 }), /at most 200/);
});

test('channelMessages keeps two messages apart when their identity keys collide', () => {
  const { identityKey } = require('../../../imports/core/analytics/channel-messages');
  const hash = crypto.createHash('sha256').update(channelKeyFromName(CHANNEL)).digest()[0].toString(16).padStart(2, '0');
  const keyOf = (text) => identityKey({ channelHash: hash, message: { timestamp: 1774800000, sender: 'Carol', text, channel: CHANNEL } });
  // The key has 30 bits: a few ten thousand texts give a collision (birthday bound).
  const seen = new Map();
  let pair = null;
  for (let i = 0; !pair; i++) {
    const text = `m${i}`;
    const key = keyOf(text);
    if (seen.has(key)) pair = [seen.get(key), text];
    else seen.set(key, text);
  }
  const engine = createEngine({ channels: [CHANNEL], views: ['channelMessages'] });
  const view = engine.view('channelMessages');
  const t0 = Date.UTC(2026, 2, 29, 12);
  const [a, b] = pair;
  engine.ingest({ raw: groupText({ sender: 'Carol', text: a, timestamp: 1774800000 }), observerId: 'obsA', time: t0 });
  engine.ingest({ raw: groupText({ sender: 'Carol', text: b, timestamp: 1774800000 }), observerId: 'obsB', time: t0 + 1 });
  engine.ingest({ raw: groupText({ sender: 'Carol', text: a, timestamp: 1774800000, attempt: 1 }), observerId: 'obsC', time: t0 + 2 });
  const { messages } = view.snapshot({ channel: CHANNEL });
  assert.deepEqual(messages.map((m) => [m.text, m.repeats, m.observers]), [[b, 1, ['obsB']], [a, 2, ['obsA', 'obsC']]]);
  engine.store.evictOldest();
  assert.deepEqual(view.snapshot({ channel: CHANNEL }).messages.map((m) => [m.text, m.repeats]), [[a, 1], [b, 1]]);
  engine.store.evictOldest();
  engine.store.evictOldest();
  assert.equal(view.state.messages.size, 0);
});

test('scope lists past their 1,024 cached channel names and 256 hashes per name: built per call, the same content', () => {
  const { scopesOf, scopeCacheSize } = require('../../../imports/core/analytics/channel-messages');
  const txOf = (name, hash) => ({ channelHash: hash, message: { channel: name } });
  const hashOf = (i) => (i % 256).toString(16).padStart(2, '0');
  for (let i = 0; i < 1100; i++) {
    const name = `cap-channel-${i}`;
    const first = scopesOf(txOf(name, hashOf(i)));
    assert.deepEqual(first, [hashOf(i), `name:${name}`]);
    assert.ok(Object.isFrozen(first));
    // Asked again: the kept list while the cache has room, an equal one past it.
    assert.deepEqual(scopesOf(txOf(name, hashOf(i))), first);
    if (i < 900) assert.equal(scopesOf(txOf(name, hashOf(i))), first, `name ${i} kept`);
  }
  assert.ok(scopeCacheSize() <= 1024, `${scopeCacheSize()} names kept`);
  // One name under 300 hashes: 256 kept, the rest built per call.
  for (let h = 0; h < 300; h++) {
    const hash = h.toString(16).padStart(3, '0');
    assert.deepEqual(scopesOf(txOf('cap-channel-0', hash)), [hash, 'name:cap-channel-0']);
  }
});
