'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { checkAgainstBruteForce } = require('../../helpers/mesh');
const { codePointLength } = require('../../../imports/core/analytics/channel-analytics');

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

  const from = Math.floor(now / HOUR) * HOUR - (params.hours - 1) * HOUR;
  const timeline = hashes.map((hash) => {
    const counts = [];
    for (let i = 0; i < params.hours; i++) {
      const start = from + i * HOUR;
      counts.push(txs.filter((tx) => tx.channelHash === hash && tx.time >= start && tx.time < start + HOUR).length);
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
    timeline: { from, hours: params.hours, channels: timeline },
    lengths,
  };
}

test('channelAnalytics equals a brute-force recount after random inserts and evictions', () => {
  for (const seed of [7, 13]) {
    checkAgainstBruteForce({
      view: 'channelAnalytics', bruteForce: bruteAnalytics, seed, count: 4000,
      paramsList: [{}, { hours: 48 }, { hours: 1 }, { hours: '6' }],
    });
  }
});

test('channelAnalytics counts characters, not UTF-16 units', () => {
  assert.equal(codePointLength('abc'), 3);
  assert.equal(codePointLength('hi 👋🦑'), 5);
  assert.equal(codePointLength(''), 0);
});
