'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { checkAgainstBruteForce } = require('../../helpers/mesh');
const { codePointLength } = require('../../../imports/core/analytics/channel-analytics');
const { bruteNewest, bruteChoose, bruteDescribe, bruteFrom, SIZES, floorTo, checkStretched } = require('./bucket-brute');

const HOUR = 3600e3;

/** Brute force: recount every stored group transmission. */
function bruteAnalytics(store, params, now) {
  const txs = store.transmissions().filter((tx) => tx.channelHash !== null);
  const decrypted = txs.filter((tx) => tx.message);
  const dayAgo = now - 24 * HOUR;
  const hashes = [...new Set(txs.map((tx) => tx.channelHash))];
  const nameOf = (hash) => {
    const keys = store.keyring.byHash.get(hash) || [];
    return keys.length ? keys.map((k) => k.name).join(' / ') : null;
  };
  const recent = txs.filter((tx) => tx.time >= dayAgo);
  const activeChannels = new Set(recent.map((tx) => tx.channelHash)).size;
  const activeDecryptable = new Set(recent.filter((tx) => tx.message).map((tx) => tx.channelHash)).size;

  const senders = new Map();
  for (const tx of decrypted) {
    const { sender, channel } = tx.message;
    if (sender === null) continue;
    if (!senders.has(sender)) senders.set(sender, []);
    senders.get(sender).push(channel);
  }
  const byCountThenName = (a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
  const topSenders = [...senders].map(([sender, channels]) => [sender, channels.length, channels])
    .sort(byCountThenName).slice(0, 15)
    .map(([sender, messages, channels]) => {
      const perChannel = new Map();
      for (const name of channels) perChannel.set(name, (perChannel.get(name) || 0) + 1);
      return { sender, messages, channels: [...perChannel].sort(byCountThenName).map(([name, count]) => ({ name, messages: count })) };
    });

  // The last `hours` hours in buckets of the chosen size, no earlier than that size's window.
  const windowStart = Math.floor(now / HOUR) * HOUR - (params.hours - 1) * HOUR;
  const all = store.transmissions();
  const oldestStored = all.length ? Math.min(...all.map((tx) => tx.time)) : now;
  const size = bruteChoose(params.bucket, Math.max(windowStart, Math.min(oldestStored, now)), now, 60, bruteNewest(store));
  const ms = SIZES[size];
  const from = Math.max(windowStart, bruteFrom(size, bruteNewest(store)) ?? windowStart);
  const columns = Math.max(0, (floorTo(now, ms) - from) / ms + 1);
  const timeline = hashes.map((hash) => {
    const counts = [];
    for (let i = 0; i < columns; i++) {
      const start = from + i * ms;
      counts.push(txs.filter((tx) => tx.channelHash === hash && tx.time >= start && tx.time < start + ms).length);
    }
    return { hash, name: nameOf(hash), total: counts.reduce((a, b) => a + b, 0), counts };
  }).filter((row) => row.total > 0).sort((a, b) => b.total - a.total || (a.hash < b.hash ? -1 : 1));

  const lengths = [];
  for (let bin = 0; bin < 10; bin++) {
    const low = bin * 20;
    const high = bin === 9 ? Infinity : low + 19;
    const count = decrypted.filter((tx) => {
      const length = Array.from(tx.message.text).length;
      return length >= low && length <= high;
    }).length;
    lengths.push({ from: low, to: bin === 9 ? null : high, count });
  }

  return {
    channels: hashes.length,
    activeChannels,
    activeDecryptable,
    messages: txs.length,
    decrypted: decrypted.length,
    senders: senders.size,
    topSenders,
    timeline: { from, hours: params.hours, bucket: bruteDescribe(size, params.bucket, bruteNewest(store)), columns, channels: timeline },
    lengths,
  };
}

test('channelAnalytics equals a brute-force recount after random inserts and evictions', () => {
  for (const seed of [7, 13]) {
    checkAgainstBruteForce({
      view: 'channelAnalytics', bruteForce: bruteAnalytics, seed, count: 4000,
      paramsList: [{}, { hours: 48 }, { hours: 1 }, { hours: '6' }, ...BUCKETS.map((bucket) => ({ bucket })), { hours: 2, bucket: 'minute' }],
    });
  }
});

const BUCKETS = ['auto', 'minute', '5min', '15min', 'hour'];

test('channelAnalytics timeline buckets stay exact over days, every size and window', () => {
  const autoSizes = new Set();
  const paramsList = [...BUCKETS.map((bucket) => ({ bucket })), ...BUCKETS.map((bucket) => ({ bucket, hours: 3 })), ...BUCKETS.map((bucket) => ({ bucket, hours: 48 }))];
  for (const stretch of [2, 10, 30, 150]) {
    const { engine, seen } = checkStretched({ view: 'channelAnalytics', bruteForce: bruteAnalytics, paramsList, stretch });
    for (const size of seen) autoSizes.add(size);
    if (stretch === 150) {
      while (engine.store.size) engine.store.evictOldest();
      assert.equal(engine.store.memory.part('channelAnalytics').bytes, 0);
    }
  }
  assert.deepEqual([...autoSizes].sort(), ['15min', '5min', 'hour', 'minute']);
});

test('channelAnalytics counts characters, not UTF-16 units', () => {
  assert.equal(codePointLength('abc'), 3);
  assert.equal(codePointLength('hi 👋🦑'), 5);
  assert.equal(codePointLength(''), 0);
});
