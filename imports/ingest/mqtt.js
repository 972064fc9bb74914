'use strict';
/**
 * MQTT sources: one client per configured broker, subscribed to the observers' topics,
 * feeding every packet message into the ingest pipeline and keeping an observer status map
 * from `.../status` messages.
 *
 *   const sources = createMqttSources({ brokers: [{ url: 'mqtts://mqtt.example.org', regions: ['SFO'] }], pipeline });
 *   sources.stats();          // per broker: connected, messages, reconnects, lastError ...
 *   sources.observerStatus(); // [{ observerId, region, status, online, lastStatusAt, ... }]
 *   await sources.stop();
 *
 * Reconnects use our own exponential backoff (mqtt's fixed `reconnectPeriod` is turned off):
 * after a connection closes, wait minMs, then 2x, 4x ... up to maxMs, reset on a good connect.
 *
 * Sessions. `session: 'clean'` (default) starts afresh on every connect: whatever the broker
 * received while we were away is lost to us. `session: 'persistent'` connects with a stable
 * client id, `clean: false` and QoS 1, so the broker queues our messages while we are away or
 * behind and delivers them on reconnect (what the broker must be configured for: README "Ingest").
 *
 * Re-deliveries. QoS 1 is at least once: after a broker restart (or any lost PUBACK) the broker
 * sends some messages again, byte for byte. Each broker keeps the identities (a 53-bit hash of
 * topic and payload bytes) of its last `redeliveryWindow` QoS 1/2 packet messages; an identical message within them is
 * counted as `redelivered` and not ingested again. A packet an observer heard twice by different
 * paths differs in its raw bytes (or timestamp), so it is a new message and is ingested.
 *
 * Back-pressure. When the ingest queue holds more than `highWater` reports, the next message's
 * handling (and its PUBACK) waits until the queue has drained: TCP then pushes back on the
 * broker, which queues for us instead of MeshPulse dropping on a full queue.
 *
 * Secrets (passwords, credentials inside the URL, TLS keys) never reach stats or logs: the URL
 * is split into credentials + a clean URL before connecting, and everything printed goes
 * through imports/core/redact.js.
 */
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const mqtt = require('mqtt');
const { parseTopic, parseStatusMessage } = require('../core/observer-message');
const { resolveLog } = require('../core/log');
const { createRedactor, splitCredentials } = require('../core/redact');

/** Every broker option and its default (per broker entry in `brokers`). */
const BROKER_DEFAULTS = Object.freeze({
  // mqtt://, mqtts://, ws://, wss://. Credentials may be written in it (user:password@host);
  // everything up to the last `@` is the user-info, so `#`, `/`, `?` in a password need no escaping.
  url: null,
  username: undefined, // wins over the URL's user name
  password: undefined, // wins over the URL's password
  // 'clean': a fresh session per connect (messages sent while we are away are lost to us).
  // 'persistent': stable client id, clean: false, QoS 1: the broker keeps our messages.
  session: 'clean',
  // clean session: meshpulse-<random>. persistent: meshpulse-<hash of host name, url, user,
  // topics>, stable across restarts; set it yourself when several instances share a host.
  clientId: null,
  topics: Object.freeze(['meshcore/+/+/packets', 'meshcore/+/+/status']),
  regions: null, // only messages whose topic region is listed (case-insensitive); null = all
  qos: null, // null: 0 with a clean session, 1 with a persistent one
  // TLS for mqtts:// and wss://: { ca, cert, key, passphrase, rejectUnauthorized: true, servername };
  // ca, cert and key are PEM text or a file path.
  tls: null,
  // Read the broker's own counters from $SYS (mosquitto: messages dropped, version) when allowed.
  sys: true,
  // Queue depth (waiting reports) above which we stop reading from this broker until it drains.
  highWater: 20000,
  keepaliveSeconds: 60,
  // QoS 1 PUBACKs of one event-loop turn written by the source in one socket write (false: each
  // by mqtt.js, as it does by itself).
  batchAcks: true,
  // Identities of the last this-many packet messages, to skip QoS 1 re-deliveries (0 = off).
  // A broker re-sends on reconnect what was in flight (mosquitto: max_inflight_messages), so
  // 100,000 leaves a wide margin; 40 bytes each (a 53-bit hash in a table and a ring), ≈ 4 MB per broker.
  // QoS 0 messages are never sent twice and skip it.
  redeliveryWindow: 100000,
});

// The $SYS topics we read (mosquitto names; other brokers publish other names or none).
const SYS_TOPICS = Object.freeze({
  dropped: '$SYS/broker/publish/messages/dropped',
  version: '$SYS/broker/version',
});

// Back-pressure is checked once per this many messages (queue stats are not free).
const BACKPRESSURE_CHECK_EVERY = 128;
// A graceful stop's clean disconnect waits at most this long, then drops the connection.
const GRACEFUL_END_MS = 2000;

// Messages per second are averaged over this many seconds.
const RATE_WINDOW_SECONDS = 10;

/** Reconnect backoff (shared by all brokers unless given per broker as `reconnect`). */
const RECONNECT_DEFAULTS = Object.freeze({
  minMs: 1000,
  maxMs: 30000,
  // Each delay is scaled by a random factor in [1 - jitter, 1 + jitter], so many clients
  // restarted together don't hammer a broker in lockstep.
  jitter: 0.2,
});

// Most observers kept in the status map; the least recently updated leaves first.
const MAX_OBSERVER_STATUSES = 10000;

// Longest status `body` value we keep per field (observers send firmware strings, radio params).
const STATUS_FIELD_MAX = 200;

/** Messages per second over the last `seconds` seconds: one slot per second, fixed memory. */
function createRate(seconds, now) {
  const counts = new Float64Array(seconds);
  const slots = new Float64Array(seconds).fill(-1); // which second each slot holds
  const startedAt = now();
  return {
    add(at = now()) {
      const second = Math.floor(at / 1000);
      const slot = second % seconds;
      if (slots[slot] !== second) {
        slots[slot] = second;
        counts[slot] = 0;
      }
      counts[slot]++;
    },
    perSecond() {
      const second = Math.floor(now() / 1000);
      let total = 0;
      for (let i = 0; i < seconds; i++) if (slots[i] > second - seconds && slots[i] <= second) total += counts[i];
      return Math.round((total / Math.min(seconds, Math.max(1, (now() - startedAt) / 1000))) * 10) / 10;
    },
  };
}

/**
 * The last `capacity` message identities (integers in [0, 2^53), from messageIdentity()),
 * oldest forgotten first. seen(key) is true when the key is still in the window (a repeat, not
 * added again); otherwise it is added. An open-addressing table (linear probing, deletion by
 * backward shift) and a ring for the order, both Float64Arrays: fixed memory (about 40 bytes
 * per identity) and nothing for the garbage collector, where a Set of 100,000 identity strings
 * promoted every string to the old generation (the window was 7% of the MQTT path's CPU).
 */
function createRecentWindow(capacity) {
  if (!Number.isInteger(capacity) || capacity < 0) throw new TypeError(`createRecentWindow: capacity must be an integer >= 0, got ${capacity}`);
  const EMPTY = -1;
  let slots = 2;
  while (slots < capacity * 2) slots *= 2; // at most half full
  const mask = slots - 1;
  const table = new Float64Array(capacity === 0 ? 0 : slots).fill(EMPTY);
  const ring = new Float64Array(capacity);
  let size = 0;
  let next = 0;
  // Identities are well mixed in their low 32 bits (messageIdentity's final avalanche).
  const home = (key) => (key >>> 0) & mask;
  function find(key) {
    for (let at = home(key); ; at = (at + 1) & mask) {
      const held = table[at];
      if (held === key) return at;
      if (held === EMPTY) return -1;
    }
  }
  /** Empty slot `hole`, then move back every later entry of its run that may fill it. */
  function removeAt(hole) {
    for (let at = (hole + 1) & mask; table[at] !== EMPTY; at = (at + 1) & mask) {
      const wanted = home(table[at]);
      // The entry may move into the hole unless its home lies cyclically in (hole, at].
      const homeBetween = hole <= at ? wanted > hole && wanted <= at : wanted > hole || wanted <= at;
      if (!homeBetween) {
        table[hole] = table[at];
        hole = at;
      }
    }
    table[hole] = EMPTY;
  }
  return {
    seen(key) {
      if (capacity === 0) return false;
      if (find(key) !== -1) return true;
      if (size === capacity) removeAt(find(ring[next]));
      else size++;
      let at = home(key);
      while (table[at] !== EMPTY) at = (at + 1) & mask;
      table[at] = key;
      ring[next] = key;
      next = next + 1 === capacity ? 0 : next + 1;
      return false;
    },
    get size() {
      return size;
    },
    capacity,
  };
}

// Per process, so identities cannot be precomputed from outside (a publisher who crafted two
// payloads with one identity could only hide its own second message, but still).
const IDENTITY_SEED = crypto.randomBytes(8);
const SEED_LOW = IDENTITY_SEED.readInt32LE(0);
const SEED_HIGH = IDENTITY_SEED.readInt32LE(4);

// Hashes of recent topics (an observer publishes every report on one topic). Bounded: cleared when full.
const TOPIC_HASHES_MAX = 10000;
const topicHashes = new Map();
function topicHash(topic) {
  let hash = topicHashes.get(topic);
  if (hash !== undefined) return hash;
  hash = SEED_HIGH;
  for (let i = 0; i < topic.length; i++) hash = Math.imul(hash ^ topic.charCodeAt(i), 0x01000193);
  if (topicHashes.size >= TOPIC_HASHES_MAX) topicHashes.clear();
  topicHashes.set(topic, hash);
  return hash;
}

/**
 * One MQTT message's identity: a re-delivery has the same topic and the same payload bytes.
 * Two 32-bit lanes over the payload, four bytes a step (MurmurHash3's mixing in one, FNV's in
 * the other), seeded per process and by the topic, folded into one 53-bit number: no string and
 * no native call per message (SHA-1 through node:crypto and a string key cost twice as much).
 * Two different messages among the window's 100,000 share one with a chance of about 1e-11
 * per message (the newer would be skipped as a repeat).
 */
function messageIdentity(topic, payload) {
  const bytes = Buffer.isBuffer(payload) ? payload : Buffer.from(String(payload));
  const length = bytes.length;
  let low = SEED_LOW ^ topicHash(topic);
  let high = SEED_HIGH ^ length;
  const whole = length & ~3;
  let i = 0;
  for (; i < whole; i += 4) {
    const word = bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24);
    let k = Math.imul(word, 0xcc9e2d51);
    k = Math.imul((k << 15) | (k >>> 17), 0x1b873593);
    low ^= k;
    low = (Math.imul((low << 13) | (low >>> 19), 5) + 0xe6546b64) | 0;
    high = Math.imul(high ^ word, 0x01000193);
    high ^= high >>> 15;
  }
  for (; i < length; i++) {
    low = Math.imul(low ^ bytes[i], 0x01000193);
    high = Math.imul(high ^ bytes[i], 0x5bd1e995);
  }
  // Final avalanches, so every input bit reaches the low bits the window's table indexes by.
  low ^= length;
  low ^= low >>> 16;
  low = Math.imul(low, 0x85ebca6b);
  low ^= low >>> 13;
  low = Math.imul(low, 0xc2b2ae35);
  low ^= low >>> 16;
  high ^= high >>> 16;
  high = Math.imul(high, 0x7feb352d);
  high ^= high >>> 15;
  high = Math.imul(high, 0x846ca68b);
  high ^= high >>> 16;
  return (high >>> 11) * 4294967296 + (low >>> 0);
}

const ignoreLog = () => {};
const mqttDebugWanted = () => /mqttjs|\*/.test(process.env.DEBUG || '');

/** PEM text as is; anything else is read as a file path. */
function readPem(value, what) {
  if (value === null || value === undefined || value === '') return undefined;
  if (Buffer.isBuffer(value) || /-----BEGIN /.test(value)) return value;
  try {
    return fs.readFileSync(value);
  } catch (err) {
    throw new TypeError(`createMqttSources: ${what} could not be read (${err.code || err.message})`);
  }
}

/** mqtt.js TLS options from our `tls` setting. */
function tlsOptions(tls, index) {
  if (!tls) return {};
  const where = `brokers[${index}].tls`;
  const out = {
    ca: readPem(tls.ca, `${where}.ca`),
    cert: readPem(tls.cert, `${where}.cert`),
    key: readPem(tls.key, `${where}.key`),
    passphrase: tls.passphrase || undefined,
    rejectUnauthorized: tls.rejectUnauthorized !== false,
    servername: tls.servername || undefined,
  };
  return Object.fromEntries(Object.entries(out).filter(([, value]) => value !== undefined));
}

/** A client id that stays the same across restarts of this instance, for persistent sessions. */
function stableClientId(url, username, topics) {
  const hash = crypto.createHash('sha256').update([os.hostname(), url, username || '', topics.join(',')].join('|')).digest('hex');
  return `meshpulse-${hash.slice(0, 12)}`;
}

/** Keep a status message's scalar fields (and nested stats) without letting one grow unbounded. */
function summariseStatusBody(body) {
  if (!body || typeof body !== 'object') return {};
  const out = {};
  for (const [name, value] of Object.entries(body).slice(0, 32)) {
    if (typeof value === 'string') out[name] = value.slice(0, STATUS_FIELD_MAX);
    else if (typeof value === 'number' || typeof value === 'boolean' || value === null) out[name] = value;
    else if (value && typeof value === 'object') {
      const text = JSON.stringify(value);
      if (text.length <= STATUS_FIELD_MAX * 5) out[name] = value;
    }
  }
  return out;
}

/**
 * @param {object} options
 * @param {object[]} options.brokers      see BROKER_DEFAULTS
 * @param {object} options.pipeline       imports/ingest/pipeline.js
 * @param {object} [options.reconnect]    see RECONNECT_DEFAULTS
 * @param {Function} [options.onStatus]   (status) after each observer status message
 * @param {object} [options.log]          { info, warn, error }; silent by default
 * @param {object} [options.redactor]     imports/core/redact.js createRedactor(); this module adds
 *                                        each broker's secrets to it (a private one by default)
 * @param {Function} [options.connect]    mqtt.connect replacement (tests)
 */
function createMqttSources(options = {}) {
  const { brokers = [], pipeline, onStatus = null } = options;
  if (!pipeline || typeof pipeline.submitMessage !== 'function') throw new TypeError('createMqttSources: pipeline with submitMessage() is required');
  if (!Array.isArray(brokers)) throw new TypeError('createMqttSources: brokers must be an array');
  const redactor = options.redactor || createRedactor();
  // Every secret is known before anything is logged or counted.
  for (const config of brokers) {
    if (!config || typeof config !== 'object') continue;
    const fromUrl = config.url ? splitCredentials(config.url) : {};
    redactor.addSecrets([config.password, fromUrl.password, fromUrl.rawPassword, config.tls && config.tls.passphrase, config.tls && typeof config.tls.key === 'string' && /-----BEGIN /.test(config.tls.key) ? config.tls.key : null]);
  }
  const log = redactor.log(resolveLog(options.log));
  const connect = options.connect || mqtt.connect;
  const now = options.now || Date.now;
  const observerStatus = new Map(); // observerId -> latest status
  const queueDepth = () => {
    if (!pipeline.queue) return 0;
    // The queue's cheap depth getter; stats() builds summaries we do not need here.
    if (typeof pipeline.queue.depth === 'number') return pipeline.queue.depth;
    return typeof pipeline.queue.stats === 'function' ? pipeline.queue.stats().depth : 0;
  };
  // Ingest at once when the pipeline can (nothing queued before it), else queue.
  const submit = typeof pipeline.ingestMessageNow === 'function' ? pipeline.ingestMessageNow : pipeline.submitMessage;
  let stopped = false;

  const sources = brokers.map((config, index) => {
    const broker = { ...BROKER_DEFAULTS, ...config };
    if (!broker.url) throw new TypeError(`createMqttSources: brokers[${index}].url is required`);
    if (typeof broker.topics === 'string') broker.topics = [broker.topics];
    if (!Array.isArray(broker.topics) || broker.topics.length === 0) throw new TypeError(`createMqttSources: brokers[${index}].topics must list at least one topic filter`);
    if (broker.session !== 'clean' && broker.session !== 'persistent') throw new TypeError(`createMqttSources: brokers[${index}].session must be 'clean' or 'persistent'`);
    const persistent = broker.session === 'persistent';
    const qos = broker.qos === null || broker.qos === undefined ? (persistent ? 1 : 0) : Number(broker.qos);
    if (![0, 1, 2].includes(qos)) throw new TypeError(`createMqttSources: brokers[${index}].qos must be 0, 1 or 2`);
    if (!Number.isInteger(broker.redeliveryWindow) || broker.redeliveryWindow < 0) throw new TypeError(`createMqttSources: brokers[${index}].redeliveryWindow must be an integer >= 0 (0 = off)`);
    const recent = createRecentWindow(broker.redeliveryWindow);
    const reconnect = { ...RECONNECT_DEFAULTS, ...(options.reconnect || {}), ...(config.reconnect || {}) };
    const regions = Array.isArray(broker.regions) && broker.regions.length > 0 ? new Set(broker.regions.map((r) => String(r).toUpperCase())) : null;
    const credentials = splitCredentials(broker.url);
    const connectUrl = credentials.url;
    const username = broker.username !== undefined ? broker.username : credentials.username || undefined;
    const password = broker.password !== undefined ? broker.password : credentials.password ?? undefined;
    const printableUrl = redactor.url(broker.url);
    const label = `mqtt:${printableUrl}`;
    const clientId = broker.clientId || (persistent ? stableClientId(connectUrl, username, broker.topics) : `meshpulse-${Math.random().toString(16).slice(2, 10)}`);
    const rate = createRate(RATE_WINDOW_SECONDS, now);
    const state = {
      url: printableUrl,
      clientId,
      session: broker.session,
      qos,
      connected: false,
      subscribed: false,
      sessionPresent: false, // the broker still had our session at the last connect
      messages: 0,
      messagesPerSecond: 0,
      packets: 0,
      statusMessages: 0,
      filtered: 0,
      redelivered: 0, // identical packet messages within the redelivery window, not ingested again
      rejected: 0,
      backpressurePauses: 0,
      connects: 0,
      reconnects: 0,
      reconnectAttempts: 0,
      nextReconnectMs: null,
      lastConnectedAt: null,
      lastMessageAt: null,
      lastError: null,
      // From the broker's $SYS topics, when it publishes them and lets us read them.
      broker: { sys: broker.sys ? 'waiting' : 'off', version: null, droppedTotal: null, droppedSinceStart: null },
    };
    if (persistent && qos === 0) log.warn(`mqtt: ${printableUrl}: a persistent session with qos 0 keeps nothing while we are away; use qos 1`);
    let failures = 0; // consecutive closes without a good connect, for the backoff
    let timer = null;
    let lastDropped = null;
    let sinceCheck = 0;
    let leaving = false; // a graceful stop has begun (stop({ graceful: true }))

    const tls = tlsOptions(broker.tls, index); // a missing certificate file is a configuration error: throw
    let client;
    try {
      client = connect(connectUrl, {
        username,
        password,
        clientId,
        clean: !persistent,
        reconnectPeriod: 0, // we schedule reconnects ourselves (backoff)
        resubscribe: false, // we subscribe on every 'connect'
        connectTimeout: 10000,
        keepalive: broker.keepaliveSeconds,
        // mqtt.js calls its `debug` logger about ten times per message even when it is off
        // (2% of the MQTT path); DEBUG=mqttjs* still turns mqtt.js's own log on.
        ...(mqttDebugWanted() ? {} : { log: ignoreLog }),
        ...tls,
      });
    } catch (err) {
      // An unusable URL must not stop the server: this broker stays down, and says why.
      state.lastError = { message: redactor.text(err.message), code: err.code || null, at: now() };
      log.error(`mqtt: ${printableUrl}: cannot connect: ${err.message}`);
      return { broker, client: null, state, stop: async () => {} };
    }

    // Back-pressure: hold this message's completion (and its PUBACK) while the queue is too deep.
    // mqtt.js reads buffered packets in a process.nextTick chain, which starves timers and I/O
    // for as long as the broker has bytes queued; every BACKPRESSURE_CHECK_EVERY messages we
    // also yield one event-loop turn (setImmediate), so DDP and timers keep running in a burst.
    const handleMessage = client.handleMessage.bind(client);
    // PUBACKs (QoS 1) of one event-loop turn leave in one socket write, written by us: mqtt.js
    // builds each one through mqtt-packet (several stream writes, a cork and a nextTick per
    // packet), about 5% of the MQTT path's CPU in a profile, and one write system call per
    // message without a cork. handleMessage's callback given an error tells mqtt.js not to send
    // its own (handlers/publish.js: `if (err) return done(err)`, which only moves on to the next
    // packet). A PUBACK is 4 bytes in MQTT 3.1.1 and 5 alike (5 lets the success code go unsaid).
    // Acks are bound to the stream their PUBLISH came on: message ids belong to one connection,
    // and an ack written on the next one could acknowledge another message. Acks lost with a
    // connection are re-deliveries, which the redelivery window skips.
    let ackStream = null;
    let ackIds = [];
    const flushAcks = () => {
      const stream = ackStream;
      const ids = ackIds;
      ackStream = null;
      ackIds = [];
      if (!stream || stream.destroyed || !stream.writable || stream !== client.stream) return;
      const bytes = Buffer.allocUnsafe(ids.length * 4);
      for (let i = 0; i < ids.length; i++) {
        bytes[i * 4] = 0x40; // PUBACK
        bytes[i * 4 + 1] = 2; // remaining length
        bytes[i * 4 + 2] = ids[i] >> 8;
        bytes[i * 4 + 3] = ids[i] & 0xff;
      }
      stream.write(bytes);
    };
    const ackLater = (messageId) => {
      const stream = client.stream;
      if (ackStream !== stream) {
        if (ackStream !== null) flushAcks();
        ackStream = stream;
        setImmediate(flushAcks);
      }
      ackIds.push(messageId);
    };
    // Passed to mqtt.js's handleMessage callback: "acknowledged here, send nothing".
    const ACKED_BY_SOURCE = new Error('PUBACK sent by the MeshPulse MQTT source');
    const ownAcks = broker.batchAcks !== false;
    const complete = (packet, callback) => {
      if (ownAcks && packet && packet.qos === 1 && typeof packet.messageId === 'number' && client.connected) {
        handleMessage(packet, (err) => {
          if (err) return callback(err);
          ackLater(packet.messageId);
          return callback(ACKED_BY_SOURCE);
        });
        return;
      }
      handleMessage(packet, callback);
    };
    // QoS 2 stays with mqtt.js (PUBREC/PUBREL/PUBCOMP); its writes of one turn share a cork.
    let corkedStream = null;
    const uncorkAcks = () => {
      const stream = corkedStream;
      corkedStream = null;
      if (stream && !stream.destroyed) stream.uncork();
    };
    const corkAcks = () => {
      const stream = client.stream;
      if (corkedStream !== null || !stream || typeof stream.cork !== 'function' || stream.destroyed) return;
      corkedStream = stream;
      stream.cork();
      setImmediate(uncorkAcks);
    };
    // Keep-alive while behind. mqtt.js sends PINGREQ, then gives up on the connection if no
    // PINGRESP comes within half a keep-alive; a source working through a broker backlog reads
    // that PINGRESP only after everything queued before it, so a backlog longer than that (a 1M
    // burst) closed the connection, and a clean session lost the rest. A PUBLISH arriving proves
    // the connection alive as well: the wait for PINGRESP starts over (pings still go out on time,
    // which is what the broker's own keep-alive needs). So does a back-pressure pause below.
    const connectionAlive = () => {
      const keepalive = client.keepaliveManager;
      if (keepalive && typeof keepalive.counter === 'number' && keepalive.counter > 1) keepalive.counter = 1;
    };
    let held = 0;
    let heldReleased = null; // resolves a graceful stop's wait once nothing is held
    const heldByBackpressure = new Set(); // their resume()s: a graceful stop acknowledges them at once
    const release = () => {
      held--;
      if (held === 0 && heldReleased !== null) {
        const resolve = heldReleased;
        heldReleased = null;
        resolve();
      }
    };
    client.handleMessage = (packet, callback) => {
      // Stopping: a QoS 1/2 message that came in since is neither ingested (the 'message'
      // handler skipped it) nor acknowledged, so the broker sends it to the next session.
      if (leaving && packet && packet.qos > 0) return callback(ACKED_BY_SOURCE);
      connectionAlive();
      if (packet && packet.qos > 1) corkAcks();
      if (++sinceCheck < BACKPRESSURE_CHECK_EVERY) return complete(packet, callback);
      sinceCheck = 0;
      // A completion put off (one turn, or until the queue drains) is `held`: the message is
      // ingested but not yet acknowledged, and a graceful stop waits for its PUBACK.
      held++;
      if (queueDepth() <= broker.highWater) return setImmediate(() => { complete(packet, callback); release(); });
      state.backpressurePauses++;
      // Nothing is read while we wait, the PINGRESP neither: our wait is no sign of a dead connection.
      const keepAlive = setInterval(connectionAlive, Math.max(100, broker.keepaliveSeconds * 250));
      let resumed = false;
      const resume = () => {
        if (resumed) return;
        resumed = true;
        heldByBackpressure.delete(resume);
        clearInterval(keepAlive);
        complete(packet, callback);
        release();
      };
      heldByBackpressure.add(resume);
      return Promise.resolve(pipeline.drain()).then(resume, resume);
    };

    client.on('connect', (connack) => {
      if (state.connects > 0) state.reconnects++;
      state.connects++;
      state.connected = true;
      state.sessionPresent = Boolean(connack && connack.sessionPresent);
      state.lastConnectedAt = now();
      state.nextReconnectMs = null;
      failures = 0;
      log.info(`mqtt: connected to ${printableUrl} (${broker.session} session${persistent ? `, ${state.sessionPresent ? 'resumed' : 'new'}` : ''}, qos ${qos})`);
      client.subscribe(broker.topics.slice(), { qos }, (err, granted) => {
        // The broker may refuse one filter (granted qos 128) while accepting the others.
        const refused = (granted || []).filter((grant) => grant.qos === 128).map((grant) => grant.topic);
        if (err || refused.length > 0) {
          const message = err ? err.message : `broker refused ${refused.join(', ')}`;
          state.lastError = { message: redactor.text(`subscribe failed: ${message}`), at: now() };
          log.warn(`mqtt: ${printableUrl}: subscribe failed: ${message}`);
          if (err) return;
        }
        state.subscribed = client.connected;
      });
      if (broker.sys) {
        // Separately, so a broker that hides $SYS (ACL) costs us only these figures.
        client.subscribe(Object.values(SYS_TOPICS), { qos: 0 }, (err, granted) => {
          if (err || (granted || []).every((grant) => grant.qos === 128)) state.broker.sys = 'refused';
        });
      }
    });

    client.on('error', (err) => {
      state.lastError = { message: redactor.text(err.message), code: err.code || null, at: now() };
      log.warn(`mqtt: ${printableUrl}: ${err.message}`);
    });

    client.on('close', () => {
      const wasConnected = state.connected;
      state.connected = false;
      state.subscribed = false;
      if (wasConnected) log.warn(`mqtt: disconnected from ${printableUrl}`);
      if (stopped || timer) return;
      const base = Math.min(reconnect.maxMs, reconnect.minMs * 2 ** Math.min(failures, 30));
      const delay = Math.round(Math.min(reconnect.maxMs, base * (1 - reconnect.jitter + 2 * reconnect.jitter * Math.random())));
      failures++;
      state.nextReconnectMs = delay;
      timer = setTimeout(() => {
        timer = null;
        if (stopped) return;
        state.reconnectAttempts++;
        client.reconnect();
      }, delay);
    });

    function recordSys(topic, payload) {
      const text = payload.toString('utf8', 0, Math.min(payload.length, 200));
      state.broker.sys = 'available';
      if (topic === SYS_TOPICS.version) {
        state.broker.version = text;
        return;
      }
      const dropped = Number(text);
      if (topic !== SYS_TOPICS.dropped || !Number.isFinite(dropped)) return;
      // The counter is broker-wide and restarts with the broker: sum the increases we saw.
      const increase = lastDropped === null ? 0 : dropped >= lastDropped ? dropped - lastDropped : dropped;
      lastDropped = dropped;
      state.broker.droppedTotal = dropped;
      state.broker.droppedSinceStart = (state.broker.droppedSinceStart || 0) + increase;
    }

    client.on('message', (topic, payload, packet) => {
      if (topic.charCodeAt(0) === 36 /* $ */) {
        recordSys(topic, payload);
        return;
      }
      state.messages++;
      const at = now();
      state.lastMessageAt = at;
      rate.add(at);
      const parsed = parseTopic(topic);
      if (parsed && regions && !regions.has(parsed.region.toUpperCase())) {
        state.filtered++;
        return;
      }
      if (parsed && parsed.kind === 'status') {
        state.statusMessages++;
        recordStatus(parseStatusMessage(topic, payload), label);
        return;
      }
      // Stopping gracefully: left unacknowledged for the next session (handleMessage above).
      if (leaving && packet && packet.qos > 0) return;
      // Packets, and topics we can't read (counted as bad_topic by the pipeline).
      // QoS 0 is at most once: never re-delivered, so not worth an identity.
      if (recent.capacity > 0 && !(packet && packet.qos === 0) && recent.seen(messageIdentity(topic, payload))) {
        state.redelivered++;
        return;
      }
      state.packets++;
      const result = submit(topic, payload, label);
      if (result && result.error) state.rejected++;
    });

    /**
     * `graceful`: the server is stopping and another session will follow (a restart). The
     * PUBACKs of every message already ingested go out first and the connection is closed
     * cleanly (at most GRACEFUL_END_MS), so the broker sends the next session only what we did
     * not take: none lost with a persistent session, none ingested twice. Otherwise (tests, a
     * broker that may be gone) the connection is dropped at once.
     */
    async function stop({ graceful = false } = {}) {
      clearTimeout(timer);
      timer = null;
      if (graceful && client.connected) {
        leaving = true;
        let timeout;
        const deadline = new Promise((resolve) => { timeout = setTimeout(() => resolve(false), GRACEFUL_END_MS); });
        // A message held by back-pressure is ingested (queued); it waits only to slow the broker
        // down. The server drains its queue before it exits, so acknowledge it now rather than
        // after a drain that may outlast GRACEFUL_END_MS (its PUBACK would then be lost, and the
        // next server would ingest it again).
        for (const resume of [...heldByBackpressure]) resume();
        if (held > 0) await Promise.race([new Promise((resolve) => { heldReleased = resolve; }), deadline]);
        flushAcks();
        const ended = await Promise.race([client.endAsync(false).then(() => true, () => false), deadline]);
        clearTimeout(timeout);
        if (!ended) await client.endAsync(true).catch(() => {});
      } else {
        // force: don't wait for in-flight acks from a broker that may be gone.
        await client.endAsync(true).catch(() => {});
      }
      state.connected = false;
      state.subscribed = false;
      state.nextReconnectMs = null;
    }

    return { broker, client, state, stop, rate };
  });

  function recordStatus(parsed, source) {
    if (parsed.error) return;
    const { region, observerId, body } = parsed.status;
    const word = typeof body.status === 'string' ? body.status.toLowerCase().slice(0, 32) : 'unknown';
    const status = {
      observerId,
      region,
      status: word,
      online: word === 'online',
      lastStatusAt: now(),
      source,
      details: summariseStatusBody(body),
    };
    observerStatus.delete(observerId); // re-insert: Map order is then least recently updated first
    observerStatus.set(observerId, status);
    if (observerStatus.size > MAX_OBSERVER_STATUSES) observerStatus.delete(observerStatus.keys().next().value);
    if (onStatus) {
      try {
        onStatus(status);
      } catch (err) {
        log.warn(`mqtt: onStatus threw: ${err.message}`);
      }
    }
  }

  return {
    /** Per broker: connection, session kind, counters, msgs/s, broker-side drops; redacted. */
    stats: () => sources.map((source) => redactor.deep({ ...source.state, messagesPerSecond: source.rate ? source.rate.perSecond() : 0 })),
    /** Latest status per observer, as the observers published it. */
    observerStatus: () => Array.from(observerStatus.values(), (status) => ({ ...status })),
    clients: () => sources.map((source) => source.client),
    /** Disconnect every broker; `{ graceful: true }` when the server stops (see each source's stop). */
    async stop(options = {}) {
      stopped = true;
      await Promise.all(sources.map((source) => source.stop(options)));
    },
  };
}

module.exports = { createMqttSources, createRecentWindow, messageIdentity, BROKER_DEFAULTS, RECONNECT_DEFAULTS, SYS_TOPICS, stableClientId };
