'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('crypto');
const { createSimulator } = require('../../imports/core/simulate');
const { createSimulatorFeed } = require('../../imports/ingest/simulator-feed');
const { parseStatusMessage } = require('../../imports/core/observer-message');
const { ObserverStatusBook, statusFromMessage } = require('../../imports/core/observer-status');

const digest = (value) => crypto.createHash('sha256').update(JSON.stringify(value)).digest('hex');

test('status messages come from their own stream: the packet stream is unchanged byte for byte', () => {
  const plain = createSimulator({ seed: 'status' });
  const withStatus = createSimulator({ seed: 'status' });
  const a = plain.messages(3000);
  const b = [];
  for (let i = 0; i < 30; i++) {
    withStatus.statusMessages();
    b.push(...withStatus.messages(100));
  }
  assert.equal(digest(b), digest(a));
  // The pinned default stream (tests/core/simulate.test.js) with statuses asked for in between.
  const pinned = createSimulator({});
  pinned.statusMessages(Date.UTC(2026, 0, 1));
  assert.equal(digest(pinned.messages(20000)), 'e82cec454272d3c5cfe4f2090485da80f521eb7576a5368046cc39bdc8001c2f');
});

test('every observer publishes a plausible status that parses and validates with no bad figure', () => {
  const sim = createSimulator({ seed: 4 });
  const book = new ObserverStatusBook(null);
  let time = Date.UTC(2026, 0, 1);
  for (let minute = 0; minute < 600; minute++, time += 60e3) {
    const messages = sim.statusMessages(time);
    assert.equal(messages.length, sim.observers.length);
    for (const message of messages) {
      assert.match(message.topic, /^meshcore\/[^/]+\/[0-9A-F]{64}\/status$/);
      const status = statusFromMessage(parseStatusMessage(message.topic, JSON.stringify(message.payload)), time, 'simulator');
      assert.ok(!book.record(status).error);
    }
  }
  assert.deepEqual(book.stats().invalidFigures, {});
  const latest = sim.observers.map((o) => book.latest(o.id));
  const online = latest.filter((s) => s.online);
  assert.ok(online.length >= latest.length - 2);
  for (const s of online) {
    assert.ok(s.batteryMv >= 3400 && s.batteryMv <= 4200, `battery ${s.batteryMv}`);
    assert.ok(s.noiseFloorDbm <= -90 && s.noiseFloorDbm >= -130, `noise ${s.noiseFloorDbm}`);
    assert.ok(s.txAirSecs <= s.uptimeSecs && s.rxAirSecs <= s.uptimeSecs);
  }
  // Deterministic: the same seed gives the same statuses.
  const again = createSimulator({ seed: 4 });
  assert.deepEqual(again.statusMessages(5), createSimulator({ seed: 4 }).statusMessages(5));
});

test('the feed hands each observer status to onStatus on start, in the MQTT source shape, and stops', () => {
  const statuses = [];
  const pipeline = { submitMessage: () => ({}) };
  const feed = createSimulatorFeed({ pipeline, simulator: { seed: 9 }, ratePerSecond: 1, onStatus: (status) => statuses.push(status) });
  feed.start();
  feed.stop();
  assert.equal(statuses.length, feed.simulator.observers.length);
  for (const status of statuses) {
    assert.deepEqual(Object.keys(status).sort(), ['details', 'lastStatusAt', 'observerId', 'online', 'region', 'source', 'status']);
    assert.equal(status.source, 'simulator');
  }
  assert.equal(feed.stats().statuses, statuses.length);
  // A throwing consumer is counted, never thrown.
  const angry = createSimulatorFeed({ pipeline, simulator: { seed: 9 }, onStatus: () => { throw new Error('no'); } });
  angry.publishStatuses();
  assert.equal(angry.stats().statusErrors, angry.simulator.observers.length);
});
