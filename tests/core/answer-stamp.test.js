'use strict';
// A cached answer of an unchanged view is stamped with the store's newest packet, and is then
// exactly what a fresh snapshot would say; the cached object is never changed.
const test = require('node:test');
const assert = require('node:assert/strict');
const { stampAnswer } = require('../../imports/core/answer-stamp');
const { createViewCache } = require('../../imports/core/cache');
const { createEngine } = require('../../imports/core/engine');
const { createSimulator } = require('../../imports/core/simulate');
const { parseObserverMessage } = require('../../imports/core/observer-message');

test('stampAnswer moves newestPacketAt up to the store\'s newest, on a copy', () => {
  const cached = Object.freeze({ total: 3, generatedAt: 100, newestPacketAt: 90 });
  const stamped = stampAnswer(cached, 250);
  assert.deepEqual(stamped, { total: 3, generatedAt: 100, newestPacketAt: 250 });
  assert.equal(cached.newestPacketAt, 90, 'the cached answer is untouched');
  assert.equal(stampAnswer(cached, 90), cached, 'nothing newer: the same object');
  assert.equal(stampAnswer(cached, null), cached, 'an empty store: the same object');
  const plain = { rows: [] };
  assert.equal(stampAnswer(plain, 250), plain, 'not a decorated snapshot: left alone');
  assert.deepEqual(stampAnswer({ newestPacketAt: null }, 250), { newestPacketAt: 250 });
});

test('a cached answer served for an unchanged view, once stamped, is what a fresh snapshot says', async () => {
  const sim = createSimulator({ seed: 5 });
  const reports = [];
  for (const message of sim.messages(3000)) reports.push(parseObserverMessage(message.topic, JSON.stringify(message.payload), Date.parse(message.payload.timestamp)).report);
  // `twin` is fed each report first, so that `engine` stops before one that changes the view.
  const engine = createEngine({ channels: sim.channels });
  const twin = createEngine({ channels: sim.channels });
  for (const report of reports.slice(0, 2000)) {
    engine.ingest({ ...report });
    twin.ingest({ ...report });
  }
  const store = engine.store;
  const view = engine.views.get('channels');
  const twinView = twin.views.get('channels');
  const params = view.normalizeParams({});
  const now = store.lastTime; // the snapshot's clock, the same for the cached and the fresh one
  const decorate = (snapshot) => ({ ...snapshot, generatedAt: 1, newestPacketAt: store.lastTime });
  const cache = createViewCache({ ttlMs: 60 * 60 * 1000 });
  const cached = await cache.get('channels', params, view.versionFor(params), () => decorate(view.snapshot(params, now)));
  const computedAt = cached.newestPacketAt;
  let unchanged = 0;
  for (const report of reports.slice(2000)) {
    const version = twinView.versionFor(params);
    twin.ingest({ ...report });
    if (twinView.versionFor(params) !== version) break;
    engine.ingest({ ...report });
    unchanged++;
  }
  assert.ok(unchanged > 0 && store.lastTime > computedAt, `reports that left the channels view unchanged moved the store's newest time (${unchanged})`);
  const served = await cache.get('channels', params, view.versionFor(params), () => assert.fail('recomputed: the version moved'));
  assert.equal(served, cached, 'a cache hit');
  const stamped = stampAnswer(served, store.lastTime);
  assert.equal(stamped.newestPacketAt, store.lastTime);
  assert.equal(cached.newestPacketAt, computedAt, 'the cached entry keeps its own stamp');
  assert.deepEqual(stamped, decorate(view.snapshot(params, now)), 'the stamped answer equals a fresh snapshot');
});
