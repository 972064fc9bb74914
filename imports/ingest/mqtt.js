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
 */
const mqtt = require('mqtt');
const { parseTopic, parseStatusMessage } = require('../core/observer-message');
const { resolveLog } = require('../core/log');

/** Every broker option and its default (per broker entry in `brokers`). */
const BROKER_DEFAULTS = Object.freeze({
  url: null, // mqtt://, mqtts://, ws://, wss://
  username: undefined,
  password: undefined,
  clientId: null, // default: meshpulse-<random>
  topics: Object.freeze(['meshcore/+/+/packets', 'meshcore/+/+/status']),
  regions: null, // only messages whose topic region is listed (case-insensitive); null = all
  qos: 0,
});

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

/** The broker URL without credentials, for stats and logs. */
function safeUrl(url) {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return String(url);
  }
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
 * @param {Function} [options.connect]    mqtt.connect replacement (tests)
 */
function createMqttSources(options = {}) {
  const { brokers = [], pipeline, onStatus = null } = options;
  if (!pipeline || typeof pipeline.submitMessage !== 'function') throw new TypeError('createMqttSources: pipeline with submitMessage() is required');
  if (!Array.isArray(brokers)) throw new TypeError('createMqttSources: brokers must be an array');
  const log = resolveLog(options.log);
  const connect = options.connect || mqtt.connect;
  const now = options.now || Date.now;
  const observerStatus = new Map(); // observerId -> latest status
  let stopped = false;

  const sources = brokers.map((config, index) => {
    const broker = { ...BROKER_DEFAULTS, ...config };
    if (!broker.url) throw new TypeError(`createMqttSources: brokers[${index}].url is required`);
    if (typeof broker.topics === 'string') broker.topics = [broker.topics];
    if (!Array.isArray(broker.topics) || broker.topics.length === 0) throw new TypeError(`createMqttSources: brokers[${index}].topics must list at least one topic filter`);
    const reconnect = { ...RECONNECT_DEFAULTS, ...(options.reconnect || {}), ...(config.reconnect || {}) };
    const regions = Array.isArray(broker.regions) && broker.regions.length > 0 ? new Set(broker.regions.map((r) => String(r).toUpperCase())) : null;
    const label = `mqtt:${safeUrl(broker.url)}`;
    const state = {
      url: safeUrl(broker.url),
      connected: false,
      subscribed: false,
      messages: 0,
      packets: 0,
      statusMessages: 0,
      filtered: 0,
      rejected: 0,
      connects: 0,
      reconnects: 0,
      reconnectAttempts: 0,
      nextReconnectMs: null,
      lastConnectedAt: null,
      lastMessageAt: null,
      lastError: null,
    };
    let failures = 0; // consecutive closes without a good connect, for the backoff
    let timer = null;

    const client = connect(broker.url, {
      username: broker.username,
      password: broker.password,
      clientId: broker.clientId || `meshpulse-${Math.random().toString(16).slice(2, 10)}`,
      clean: true,
      reconnectPeriod: 0, // we schedule reconnects ourselves (backoff)
      resubscribe: false, // we subscribe on every 'connect'
      connectTimeout: 10000,
    });

    client.on('connect', () => {
      if (state.connects > 0) state.reconnects++;
      state.connects++;
      state.connected = true;
      state.lastConnectedAt = now();
      state.nextReconnectMs = null;
      failures = 0;
      log.info(`mqtt: connected to ${state.url}`);
      client.subscribe(broker.topics.slice(), { qos: broker.qos }, (err, granted) => {
        // The broker may refuse one filter (granted qos 128) while accepting the others.
        const refused = (granted || []).filter((grant) => grant.qos === 128).map((grant) => grant.topic);
        if (err || refused.length > 0) {
          const message = err ? err.message : `broker refused ${refused.join(', ')}`;
          state.lastError = { message: `subscribe failed: ${message}`, at: now() };
          log.warn(`mqtt: ${state.url}: subscribe failed: ${message}`);
          if (err) return;
        }
        state.subscribed = client.connected;
      });
    });

    client.on('error', (err) => {
      state.lastError = { message: err.message, code: err.code || null, at: now() };
      log.warn(`mqtt: ${state.url}: ${err.message}`);
    });

    client.on('close', () => {
      const wasConnected = state.connected;
      state.connected = false;
      state.subscribed = false;
      if (wasConnected) log.warn(`mqtt: disconnected from ${state.url}`);
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

    client.on('message', (topic, payload) => {
      state.messages++;
      state.lastMessageAt = now();
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
      // Packets, and topics we can't read (counted as bad_topic by the pipeline).
      state.packets++;
      const result = pipeline.submitMessage(topic, payload, label);
      if (result && result.error) state.rejected++;
    });

    async function stop() {
      clearTimeout(timer);
      timer = null;
      // force: don't wait for in-flight acks from a broker that may be gone.
      await client.endAsync(true).catch(() => {});
      state.connected = false;
      state.subscribed = false;
      state.nextReconnectMs = null;
    }

    return { broker, client, state, stop };
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
    stats: () => sources.map((source) => ({ ...source.state, lastError: source.state.lastError && { ...source.state.lastError } })),
    /** Latest status per observer, as the observers published it. */
    observerStatus: () => Array.from(observerStatus.values(), (status) => ({ ...status })),
    clients: () => sources.map((source) => source.client),
    async stop() {
      stopped = true;
      await Promise.all(sources.map((source) => source.stop()));
    },
  };
}

module.exports = { createMqttSources, BROKER_DEFAULTS, RECONNECT_DEFAULTS };
