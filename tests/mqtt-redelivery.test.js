'use strict';
// The MQTT source's redelivery window (imports/ingest/mqtt.js): QoS 1 sends a message again
// after a broker restart or a lost PUBACK; an identical message (same topic, same payload bytes)
// within the window is counted as `redelivered` and ingested once. The same packet heard by the
// same observer by another path, or at another time, is a new message and is ingested.
// A fake mqtt client (options.connect) delivers the messages, so no broker is needed.
const test = require('node:test');
const assert = require('node:assert/strict');
const { EventEmitter } = require('node:events');
const { createEngine } = require('../imports/core/engine');
const { createSimulator } = require('../imports/core/simulate');
const { decodePacket } = require('../imports/core/decode');
const { createPipeline } = require('../imports/ingest/pipeline');
const { createMqttSources, createRecentWindow, messageIdentity, BROKER_DEFAULTS } = require('../imports/ingest/mqtt');

test('recent window: a key is seen once; the window holds at most `capacity` keys, oldest forgotten first', () => {
  const window = createRecentWindow(3);
  assert.equal(window.seen(1), false);
  assert.equal(window.seen(1), true);
  assert.equal(window.seen(2), false);
  assert.equal(window.seen(3), false);
  assert.equal(window.size, 3);
  assert.equal(window.seen(4), false); // 1 leaves
  assert.equal(window.size, 3);
  assert.equal(window.seen(2), true);
  assert.equal(window.seen(1), false); // forgotten, so new again; 2 leaves
  assert.equal(window.seen(3), true);
  assert.equal(window.seen(2), false);
  assert.equal(window.size, 3);
});

test('recent window: a long stream stays at capacity, and every key of the last `capacity` is still known', () => {
  const capacity = 1000;
  const window = createRecentWindow(capacity);
  for (let i = 0; i < 25000; i++) {
    assert.equal(window.seen(i), false);
    assert.ok(window.size <= capacity);
  }
  assert.equal(window.size, capacity);
  // Brute force: exactly the last 1000 keys are repeats, the ones before are new again.
  for (let i = 25000 - capacity; i < 25000; i++) assert.equal(window.seen(i), true, `key ${i}`);
  assert.equal(window.seen(25000 - capacity - 1), false);
});

test('recent window: colliding home slots, wrapping runs and evictions agree with a brute-force list of the last keys', () => {
  // Keys that share their low bits pile up in one run of the table; evicting from the middle of a
  // run (backward shift) must keep every later key findable.
  const { createPrng } = require('../imports/core/prng');
  const prng = createPrng(13);
  for (const capacity of [1, 2, 3, 7, 64, 1000]) {
    const window = createRecentWindow(capacity);
    const recent = [];
    for (let i = 0; i < 20000; i++) {
      // Few distinct low words (heavy collisions, runs wrapping past the table's end), many high ones.
      const key = prng.int(50) * 4294967296 + (prng.int(8) === 0 ? 0xffffffff - prng.int(3) : prng.int(capacity * 3 + 1));
      const expected = recent.includes(key);
      assert.equal(window.seen(key), expected, `capacity ${capacity}, step ${i}`);
      if (!expected) {
        recent.push(key);
        if (recent.length > capacity) recent.shift();
      }
      assert.equal(window.size, recent.length);
    }
  }
});

test('recent window: capacity 0 remembers nothing; a bad capacity names the limit', () => {
  const off = createRecentWindow(0);
  assert.equal(off.seen(1), false);
  assert.equal(off.seen(1), false);
  assert.equal(off.size, 0);
  assert.throws(() => createRecentWindow(-1), /capacity must be an integer >= 0/);
  assert.throws(() => createRecentWindow(1.5), /capacity must be an integer >= 0/);
});

test('message identity: same topic and bytes -> same identity; any byte or the topic differs -> another', () => {
  const payload = JSON.stringify({ raw: '11223344', timestamp: '2026-01-01T00:00:00.000Z' });
  const topic = 'meshcore/SFO/OBS1/packets';
  assert.equal(messageIdentity(topic, Buffer.from(payload)), messageIdentity(topic, payload));
  assert.notEqual(messageIdentity(topic, payload), messageIdentity('meshcore/SFO/OBS2/packets', payload));
  assert.notEqual(messageIdentity(topic, payload), messageIdentity(topic, payload.replace('44', '45')));
  // Bytes that are not valid UTF-8 stay distinct (latin1 maps each byte to one char).
  assert.notEqual(messageIdentity(topic, Buffer.from([0xff, 0xfe])), messageIdentity(topic, Buffer.from([0xff, 0xfd])));
  assert.equal(BROKER_DEFAULTS.redeliveryWindow, 100000);
});

/** A stand-in for an mqtt.js client: records subscriptions, lets the test deliver messages. */
function fakeConnect() {
  const clients = [];
  const connect = () => {
    const client = new EventEmitter();
    client.connected = false;
    client.handleMessage = (packet, callback) => callback();
    client.subscribe = (topics, options, callback) => callback(null, [].concat(topics).map((topic) => ({ topic, qos: options.qos })));
    client.endAsync = async () => {};
    client.reconnect = () => {};
    client.deliver = (topic, payload) => client.emit('message', topic, Buffer.from(payload), { topic, payload, dup: false });
    clients.push(client);
    setImmediate(() => {
      client.connected = true;
      client.emit('connect', { sessionPresent: false });
    });
    return client;
  };
  return { connect, clients };
}

/** The same packet with one hop of its path changed: another way the observer heard it. */
function otherPath(raw) {
  const bytes = Buffer.from(raw, 'hex');
  const routeType = bytes[0] & 0x03;
  const pathLenOffset = routeType === 0 || routeType === 3 ? 5 : 1;
  const hopCount = bytes[pathLenOffset] & 0x3f;
  assert.ok(hopCount > 0, 'a packet with a path');
  bytes[pathLenOffset + 1] ^= 0xff;
  return bytes.toString('hex').toUpperCase();
}

function setup(brokerExtra = {}) {
  const sim = createSimulator({ seed: 61 });
  const messages = sim.messages(400).map((m) => ({ topic: m.topic, payload: JSON.stringify(m.payload), parsed: m.payload }));
  const engine = createEngine({ channels: sim.channels.map((c) => ({ name: c.name, key: c.key })) });
  const pipeline = createPipeline({ engine });
  const fake = fakeConnect();
  const sources = createMqttSources({ brokers: [{ url: 'mqtt://fake.invalid', session: 'persistent', sys: false, ...brokerExtra }], pipeline, connect: fake.connect });
  return { messages, engine, pipeline, sources, fake };
}

test('mqtt source: a message delivered twice within the window is ingested once and counted as redelivered', async (t) => {
  const { messages, engine, pipeline, sources, fake } = setup();
  t.after(() => sources.stop());
  const client = fake.clients[0];
  // Everything once, then the second half again (what a restarted broker re-sends), then all again.
  for (const m of messages) client.deliver(m.topic, m.payload);
  for (const m of messages.slice(200)) client.deliver(m.topic, m.payload);
  for (const m of messages) client.deliver(m.topic, m.payload);
  await pipeline.drain();
  const stats = sources.stats()[0];
  assert.equal(stats.messages, 1000);
  assert.equal(stats.redelivered, 600);
  assert.equal(stats.packets, 400);
  assert.equal(pipeline.stats().accepted, 400);
  assert.equal(engine.store.stats().observations, 400);
});

test('mqtt source: the same packet from the same observer by another path, or at another time, is ingested', async (t) => {
  const { messages, engine, pipeline, sources, fake } = setup();
  t.after(() => sources.stop());
  const client = fake.clients[0];
  const base = messages.find((m) => {
    const { packet } = decodePacket(m.parsed.raw);
    return packet && packet.hopCount > 0 && packet.payloadType !== 9; // TRACE carries SNRs where others carry a path
  });
  assert.ok(base, 'the simulator sends a packet with a path');
  const viaOtherPath = { topic: base.topic, payload: JSON.stringify({ ...base.parsed, raw: otherPath(base.parsed.raw) }) };
  const later = { topic: base.topic, payload: JSON.stringify({ ...base.parsed, timestamp: new Date(Date.parse(base.parsed.timestamp) + 1500).toISOString() }) };
  for (const m of [base, viaOtherPath, later, base, viaOtherPath, later]) client.deliver(m.topic, m.payload);
  await pipeline.drain();
  assert.equal(sources.stats()[0].redelivered, 3, 'only the exact repeats are skipped');
  assert.equal(sources.stats()[0].packets, 3);
  assert.equal(pipeline.stats().accepted, 3);
  assert.equal(pipeline.stats().rejected, 0);
  assert.equal(engine.store.stats().transmissions, 1, 'one packet');
  const tx = engine.store.transmissions()[0];
  assert.ok(tx.observations.length >= 2, 'heard by two paths: two observations');
});

test('mqtt source: redeliveryWindow 0 turns the window off; a bad value is refused with its name', async (t) => {
  const { messages, pipeline, sources, fake } = setup({ redeliveryWindow: 0 });
  t.after(() => sources.stop());
  const client = fake.clients[0];
  for (const m of [...messages.slice(0, 10), ...messages.slice(0, 10)]) client.deliver(m.topic, m.payload);
  await pipeline.drain();
  assert.equal(sources.stats()[0].redelivered, 0);
  assert.equal(pipeline.stats().accepted, 20);
  assert.throws(() => createMqttSources({ brokers: [{ url: 'mqtt://fake.invalid', redeliveryWindow: -5 }], pipeline, connect: fakeConnect().connect }), /brokers\[0\]\.redeliveryWindow must be an integer >= 0/);
});

test('mqtt source: the window is bounded: a repeat older than the window is ingested again', async (t) => {
  const { messages, pipeline, sources, fake } = setup({ redeliveryWindow: 50 });
  t.after(() => sources.stop());
  const client = fake.clients[0];
  for (const m of messages.slice(0, 100)) client.deliver(m.topic, m.payload);
  // messages 50..99 are in the window, 0..49 have left it.
  for (const m of messages.slice(50, 100)) client.deliver(m.topic, m.payload);
  for (const m of messages.slice(0, 10)) client.deliver(m.topic, m.payload);
  await pipeline.drain();
  assert.equal(sources.stats()[0].redelivered, 50);
  assert.equal(pipeline.stats().accepted, 110);
});

test('mqtt source: QoS 0 messages are never re-delivered, so they skip the window', async (t) => {
  const { messages, pipeline, sources, fake } = setup();
  t.after(() => sources.stop());
  const client = fake.clients[0];
  const m = messages[0];
  for (let i = 0; i < 2; i++) client.emit('message', m.topic, Buffer.from(m.payload), { topic: m.topic, qos: 0, dup: false });
  await pipeline.drain();
  const stats = sources.stats()[0];
  assert.equal(stats.redelivered, 0);
  assert.equal(stats.packets, 2);
  // The same at QoS 1 is a re-delivery.
  for (let i = 0; i < 2; i++) client.emit('message', messages[1].topic, Buffer.from(messages[1].payload), { topic: messages[1].topic, qos: 1, dup: false });
  assert.equal(sources.stats()[0].redelivered, 1);
});

/** A stand-in for the client's socket: records cork/uncork and every write. */
function fakeStream() {
  return { corked: 0, corks: 0, writes: [], destroyed: false, writable: true, cork() { this.corked++; this.corks++; }, uncork() { this.corked--; }, write(bytes) { this.writes.push(Buffer.from(bytes)); return true; } };
}
const pubacks = (ids) => Buffer.concat(ids.map((id) => Buffer.from([0x40, 2, id >> 8, id & 0xff])));

test('mqtt source: the QoS 1 PUBACKs of one event-loop turn leave in one socket write, written by the source (mqtt.js told to send none)', async (t) => {
  const { sources, fake } = setup();
  t.after(() => sources.stop());
  await new Promise((resolve) => setImmediate(resolve)); // connected
  const client = fake.clients[0];
  const stream = fakeStream();
  client.stream = stream;
  const outcomes = [];
  const ids = Array.from({ length: 100 }, (_, i) => (i * 977 + 1) % 65536);
  for (const messageId of ids) client.handleMessage({ qos: 1, topic: 't', messageId }, (err) => outcomes.push(err));
  assert.equal(outcomes.length, 100);
  // An error for mqtt.js's callback means "send no PUBACK" (mqtt.js handlers/publish.js).
  assert.ok(outcomes.every((err) => err instanceof Error && /PUBACK sent by the MeshPulse MQTT source/.test(err.message)));
  assert.equal(stream.writes.length, 0, 'held until the turn ends');
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(stream.writes, [pubacks(ids)], 'one write, every PUBACK in arrival order');
  // QoS 0 has nothing to acknowledge; QoS 2 stays with mqtt.js, its writes of one turn under one cork.
  client.handleMessage({ qos: 0, topic: 't' }, (err) => assert.equal(err, undefined));
  client.handleMessage({ qos: 2, topic: 't', messageId: 9 }, (err) => assert.equal(err, undefined));
  client.handleMessage({ qos: 2, topic: 't', messageId: 10 }, (err) => assert.equal(err, undefined));
  assert.equal(stream.corks, 1);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(stream.corked, 0);
  assert.equal(stream.writes.length, 1);
});

test('mqtt source: PUBACKs go only to the connection their messages came on (a new connection gets none of the old ids)', async (t) => {
  const { sources, fake } = setup();
  t.after(() => sources.stop());
  await new Promise((resolve) => setImmediate(resolve));
  const client = fake.clients[0];
  const first = fakeStream();
  const second = fakeStream();
  client.stream = first;
  client.handleMessage({ qos: 1, topic: 't', messageId: 1 }, () => {});
  client.handleMessage({ qos: 1, topic: 't', messageId: 2 }, () => {});
  // Reconnected within the turn: the old connection's acks are written to it right away (or lost with it).
  client.stream = second;
  client.handleMessage({ qos: 1, topic: 't', messageId: 1 }, () => {});
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(first.writes, [], 'the old stream is no longer the client\'s: nothing written to it');
  assert.deepEqual(second.writes, [pubacks([1])], 'only the id received on the new connection');
  // A stream that closes before the turn ends gets nothing (the broker re-delivers; the window skips it).
  client.handleMessage({ qos: 1, topic: 't', messageId: 3 }, () => {});
  second.destroyed = true;
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(second.writes.length, 1);
  // Not connected: mqtt.js's own path (it keeps the PUBACK for later).
  client.stream = fakeStream();
  client.connected = false;
  client.handleMessage({ qos: 1, topic: 't', messageId: 4 }, (err) => assert.equal(err, undefined));
});

test('mqtt source: batchAcks false leaves every PUBACK to mqtt.js', async (t) => {
  const { sources, fake } = setup({ batchAcks: false });
  t.after(() => sources.stop());
  await new Promise((resolve) => setImmediate(resolve));
  const client = fake.clients[0];
  client.stream = fakeStream();
  const outcomes = [];
  for (let i = 1; i <= 3; i++) client.handleMessage({ qos: 1, topic: 't', messageId: i }, (err) => outcomes.push(err));
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(outcomes, [undefined, undefined, undefined]);
  assert.deepEqual(client.stream.writes, []);
});

test('mqtt source: a message arriving while a ping waits for its answer keeps the connection (a long backlog is no keep-alive timeout)', async (t) => {
  const { sources, fake } = setup();
  t.after(() => sources.stop());
  const client = fake.clients[0];
  // mqtt.js's KeepaliveManager: counter 2 = PINGREQ sent, 3 = no answer in time, connection closed.
  client.keepaliveManager = { counter: 2 };
  client.handleMessage({ qos: 0, topic: 't' }, () => {});
  assert.equal(client.keepaliveManager.counter, 1, 'the wait starts over; the next tick pings again');
  client.keepaliveManager.counter = 1;
  client.handleMessage({ qos: 1, topic: 't' }, () => {});
  assert.equal(client.keepaliveManager.counter, 1, 'pings are not postponed: the broker needs them');
  client.keepaliveManager = null;
  client.handleMessage({ qos: 1, topic: 't' }, () => {}); // no manager (keepalive 0): nothing to do
});
