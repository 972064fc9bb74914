'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { checkAgainstBruteForce, simulatedReports } = require('../../helpers/mesh');
const { createEngine } = require('../../../imports/core/engine');
const { VIEWS_BY_NAME } = require('../../../imports/core/analytics');
const { rawHex } = require('../../../imports/core/store');

const HOUR = 3600e3;

/** Brute force: regroup every stored group transmission by channel hash and recount. */
function bruteChannels(store, params, now) {
  const hourlyFrom = Math.floor(now / HOUR) * HOUR - 23 * HOUR;
  const groups = new Map();
  for (const tx of store.transmissions()) {
    if (tx.channelHash === null) continue;
    if (!groups.has(tx.channelHash)) groups.set(tx.channelHash, []);
    groups.get(tx.channelHash).push(tx);
  }
  const channels = [];
  for (const [hash, txs] of groups) {
    const decrypted = txs.filter((tx) => tx.message);
    const keys = store.keyring.byHash.get(hash) || [];
    const last = txs[txs.length - 1];
    const hourly = [];
    for (let i = 0; i < 24; i++) {
      const start = hourlyFrom + i * HOUR;
      hourly.push(txs.filter((tx) => tx.time >= start && tx.time < start + HOUR).length);
    }
    channels.push({
      hash,
      name: keys.length ? keys.map((k) => k.name).join(' / ') : null,
      encrypted: decrypted.length === 0,
      messages: txs.length,
      decrypted: decrypted.length,
      lastHeard: last.time,
      lastMessage: { time: last.time, sender: last.message ? last.message.sender : null, text: last.message ? last.message.text : null },
      lastSender: decrypted.length ? decrypted[decrypted.length - 1].message.sender : null,
      messagesLastHour: txs.filter((tx) => tx.time >= now - HOUR).length,
      messagesLastDay: txs.filter((tx) => tx.time >= now - 24 * HOUR).length,
      hourly,
      senders: new Set(decrypted.map((tx) => tx.message.sender).filter((s) => s !== null)).size,
    });
  }
  channels.sort((a, b) => b.lastHeard - a.lastHeard || (a.hash < b.hash ? -1 : 1));
  return { channels, hourlyFrom };
}

test('channels equals a brute-force recount after random inserts and evictions', () => {
  for (const seed of [7, 11, 23]) {
    const engine = checkAgainstBruteForce({ view: 'channels', bruteForce: bruteChannels, seed });
    const { channels } = engine.view('channels').snapshot({}, engine.store.fifo.last().time);
    assert.ok(channels.some((c) => !c.encrypted), 'some channel was decrypted');
  }
});

test('channels: non-channel packets and repeat observations do not bump the version; evicting all empties the state', () => {
  const engine = checkAgainstBruteForce({ view: 'channels', bruteForce: () => null, paramsList: [], checks: 1 });
  const view = engine.view('channels');
  const { store } = engine;
  // Re-hearing a stored transmission (another observer) changes nothing in this view.
  const tx = store.fifo.last();
  const version = view.version;
  store.ingest({ raw: rawHex(tx), observerId: 'late-observer', time: tx.time + 1 });
  assert.equal(view.version, version);
  // A new transmission that is not channel traffic changes nothing either.
  const other = store.transmissions().reverse().find((t) => t.channelHash === null);
  const beforeNew = view.version;
  const otherRaw = rawHex(other);
  const result = store.ingest({ raw: otherRaw.slice(0, -2) + (otherRaw.endsWith('00') ? '01' : '00'), observerId: 'late-observer', time: tx.time + 2 });
  assert.ok(result.isNew && result.tx.channelHash === null);
  assert.equal(view.version, beforeNew);
  while (store.size > 1) store.evictOldest();
  store.evictOldest();
  assert.equal(view.state.byHash.size, 0);
  assert.deepEqual(view.snapshot({}).channels, []);
});

test('channels, channelMessages and channelAnalytics: a view added late equals one fed live', () => {
  const names = ['channels', 'channelMessages', 'channelAnalytics'];
  const { reports, channels } = simulatedReports({ seed: 5, count: 3000 });
  const live = createEngine({ channels, views: names });
  reports.slice(0, 2000).forEach((report) => live.ingest(report));
  for (let i = live.store.size / 4; i > 0; i--) live.store.evictOldest();
  const late = names.map((name) => live.store.addView(VIEWS_BY_NAME.get(name).create(live.store)));
  reports.slice(2000).forEach((report) => live.ingest(report));
  for (let i = live.store.size / 4; i > 0; i--) live.store.evictOldest();
  const now = live.store.fifo.last().time;
  const hash = live.store.fifo.last().channelHash || '11';
  const paramsOf = { channels: [{}], channelMessages: [{ channel: 'Public' }, { channel: hash, limit: 200 }], channelAnalytics: [{}, { hours: 48 }] };
  names.forEach((name, i) => {
    for (const params of paramsOf[name]) assert.deepEqual(late[i].snapshot(params, now), live.view(name).snapshot(params, now), `${name} ${JSON.stringify(params)}`);
  });
});
