'use strict';
/**
 * Observer health from their `status` messages (MQTT `meshcore/<region>/<observer>/status`, or
 * the simulator feed): per observer the latest online/offline word and the radio figures the
 * payload carries (battery, uptime, noise floor, airtime, radio errors), the time of the last
 * status, and a bounded ring of past figures for the Observer page's charts.
 *
 * Status payloads are free-form (meshcoretomqtt puts figures under `stats`, other bridges at
 * the top level, with their own names), so each figure is looked up under a few known names
 * and kept only when it is a finite number inside a plausible range: anything else is dropped,
 * counted by field, and the figure reads null. Nothing throws at the caller.
 *
 * Bounded: at most `maxObservers` observers (the least recently updated leaves first) and
 * `historySize` entries each; every entry is charged to one memory-account part, so the store's
 * budget sees it (`store.memory.part('observerStatus')`).
 */
const { BYTES, keyBytes } = require('./memory-account');

const STATUS_DEFAULTS = Object.freeze({
  // Observers kept; the least recently updated leaves first.
  maxObservers: 1000,
  // Past statuses kept per observer (one a minute is four hours).
  historySize: 240,
});

const MAX_ID_LENGTH = 128;
const MAX_WORD_LENGTH = 32;

/**
 * Each figure: where payloads put it (first match wins; `stats.x` looks in the nested object),
 * its valid range, and an optional conversion to our unit.
 */
const FIGURES = Object.freeze({
  batteryMv: { names: ['battery_mv', 'batteryMv', 'battery_mV', 'bat_mv', 'battery'], min: 0, max: 10000, convert: (value) => (value > 0 && value < 20 ? value * 1000 : value) },
  uptimeSecs: { names: ['uptime_secs', 'uptimeSecs', 'uptime_s', 'uptime'], min: 0, max: 20 * 365 * 86400 },
  noiseFloorDbm: { names: ['noise_floor', 'noiseFloor', 'noise_floor_dbm'], min: -180, max: 0 },
  txAirSecs: { names: ['tx_air_secs', 'txAirSecs', 'airtime_tx_secs'], min: 0, max: 20 * 365 * 86400 },
  rxAirSecs: { names: ['rx_air_secs', 'rxAirSecs', 'airtime_rx_secs'], min: 0, max: 20 * 365 * 86400 },
  airtimePct: { names: ['airtime_pct', 'airtimePct', 'airtime', 'channel_utilization'], min: 0, max: 100 },
  radioErrors: { names: ['recv_errors', 'radio_errors', 'radioErrors', 'rx_errors', 'errors'], min: 0, max: 1e12, integer: true },
});
const FIGURE_NAMES = Object.keys(FIGURES);

// One observer's entry (object, fields, Map entry) and one history entry (object with a field per figure).
const OBSERVER_BYTES = BYTES.object + 12 * BYTES.field + BYTES.mapEntry + BYTES.object + 4 * BYTES.field;
const HISTORY_ENTRY_BYTES = BYTES.object + (FIGURE_NAMES.length + 2) * BYTES.field + BYTES.arraySlot;

function textBytes(text) {
  return typeof text === 'string' ? BYTES.string + text.length : 0;
}

/** The raw value of a figure in a payload body: top level first, then under `stats`. */
function findRaw(body, names) {
  const nested = body.stats && typeof body.stats === 'object' && !Array.isArray(body.stats) ? body.stats : null;
  for (const name of names) {
    if (Object.prototype.hasOwnProperty.call(body, name)) return body[name];
    if (nested && Object.prototype.hasOwnProperty.call(nested, name)) return nested[name];
  }
  return undefined;
}

/**
 * The figures of one status body: { figures: { batteryMv, ... } (null when absent or invalid),
 * invalid: [figure names present but out of range or not numbers] }.
 */
function readFigures(body) {
  const figures = {};
  const invalid = [];
  const source = body && typeof body === 'object' && !Array.isArray(body) ? body : {};
  for (const name of FIGURE_NAMES) {
    const rule = FIGURES[name];
    const raw = findRaw(source, rule.names);
    figures[name] = null;
    if (raw === undefined || raw === null || raw === '') continue;
    let value = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.length <= 32 ? Number(raw) : NaN;
    if (Number.isFinite(value) && rule.convert) value = rule.convert(value);
    if (!Number.isFinite(value) || value < rule.min || value > rule.max || (rule.integer && !Number.isInteger(value))) {
      invalid.push(name);
      continue;
    }
    figures[name] = value;
  }
  return { figures, invalid };
}

/**
 * A status as the MQTT source hands it to `onStatus` ({ observerId, region, status, online,
 * lastStatusAt, details }), from a parseStatusMessage() result: the simulator feed uses this so
 * both sources give the book the same shape.
 */
function statusFromMessage(parsed, receivedAt, source = null) {
  if (!parsed || parsed.error || !parsed.status) return null;
  const { region, observerId, body } = parsed.status;
  const word = body && typeof body.status === 'string' ? body.status.toLowerCase().slice(0, MAX_WORD_LENGTH) : 'unknown';
  return { observerId, region, status: word, online: word === 'online', lastStatusAt: receivedAt, source, details: body && typeof body === 'object' ? body : {} };
}

class ObserverStatusBook {
  /** `part`: a memory-account part (or null); options: see STATUS_DEFAULTS. */
  constructor(part = null, options = {}) {
    this.options = { ...STATUS_DEFAULTS };
    for (const [key, value] of Object.entries(options)) if (value !== undefined && value !== null) this.options[key] = value;
    this.part = part;
    this.observers = new Map(); // observer id -> entry, least recently updated first
    this.version = 0;
    this.counters = { accepted: 0, rejected: 0, rejectReasons: {}, invalidFigures: {}, observersDropped: 0 };
  }

  charge(bytes) {
    if (this.part) this.part.add(bytes);
  }

  reject(reason) {
    this.counters.rejected++;
    this.counters.rejectReasons[reason] = (this.counters.rejectReasons[reason] || 0) + 1;
    return { error: { reason } };
  }

  /**
   * Record one status ({ observerId, region?, status?, lastStatusAt?, details? | body? }).
   * `time` defaults to the status's lastStatusAt. Returns { entry } or { error: { reason } }.
   */
  record(status, time) {
    if (!status || typeof status !== 'object') return this.reject('not_an_object');
    const id = status.observerId;
    if (typeof id !== 'string' || id.length === 0 || id.length > MAX_ID_LENGTH) return this.reject('bad_observer_id');
    const at = Number.isFinite(time) ? time : status.lastStatusAt;
    if (!Number.isFinite(at) || at <= 0) return this.reject('bad_time');
    const word = typeof status.status === 'string' && status.status.length > 0 ? status.status.toLowerCase().slice(0, MAX_WORD_LENGTH) : 'unknown';
    const region = typeof status.region === 'string' && status.region.length <= 64 ? status.region : null;
    const { figures, invalid } = readFigures(status.details || status.body);
    for (const name of invalid) this.counters.invalidFigures[name] = (this.counters.invalidFigures[name] || 0) + 1;

    let entry = this.observers.get(id);
    if (entry) {
      this.observers.delete(id); // re-inserted below: Map order stays least recently updated first
    } else {
      entry = { id, region: null, status: 'unknown', online: false, firstStatusAt: at, lastStatusAt: at, statuses: 0, latest: null, history: [], historyStart: 0 };
      this.charge(OBSERVER_BYTES + keyBytes(id));
    }
    this.observers.set(id, entry);
    if (region !== entry.region) {
      this.charge(textBytes(region) - textBytes(entry.region));
      entry.region = region;
    }
    entry.status = word;
    entry.online = word === 'online';
    // A status older than the last one (a retained message replayed) updates nothing but history order.
    if (at >= entry.lastStatusAt) entry.lastStatusAt = at;
    entry.statuses++;
    const sample = { time: at, status: word, ...figures };
    entry.latest = sample;
    this.push(entry, sample);
    this.counters.accepted++;
    this.version++;
    while (this.observers.size > this.options.maxObservers) this.drop(this.observers.values().next().value);
    return { entry };
  }

  /** Append to the observer's ring (oldest overwritten once full). */
  push(entry, sample) {
    const size = this.options.historySize;
    if (entry.history.length < size) {
      entry.history.push(sample);
      this.charge(HISTORY_ENTRY_BYTES);
      return;
    }
    entry.history[entry.historyStart] = sample;
    entry.historyStart = (entry.historyStart + 1) % size;
  }

  drop(entry) {
    this.observers.delete(entry.id);
    this.charge(-(OBSERVER_BYTES + keyBytes(entry.id) + textBytes(entry.region) + entry.history.length * HISTORY_ENTRY_BYTES));
    this.counters.observersDropped++;
  }

  /** The observer's statuses, oldest first, at most `limit` (the newest ones). */
  history(id, limit = Infinity) {
    const entry = this.observers.get(id);
    if (!entry) return [];
    const ordered = entry.history.slice(entry.historyStart).concat(entry.history.slice(0, entry.historyStart));
    return ordered.length > limit ? ordered.slice(ordered.length - limit) : ordered;
  }

  /** Latest status of one observer as plain JSON, or null. */
  latest(id) {
    const entry = this.observers.get(id);
    if (!entry) return null;
    return { status: entry.status, online: entry.online, region: entry.region, firstStatusAt: entry.firstStatusAt, lastStatusAt: entry.lastStatusAt, statuses: entry.statuses, ...figuresOf(entry.latest) };
  }

  stats() {
    return { observers: this.observers.size, ...this.counters, rejectReasons: { ...this.counters.rejectReasons }, invalidFigures: { ...this.counters.invalidFigures } };
  }
}

function figuresOf(sample) {
  const out = {};
  for (const name of FIGURE_NAMES) out[name] = sample ? sample[name] : null;
  return out;
}

// One book per store, so that the view, the server wiring and the tests reach the same one.
const books = new WeakMap();

/** The status book of a store (created on first use, charged to its `observerStatus` part). */
function observerStatusOf(store, options) {
  let book = books.get(store);
  if (!book) {
    book = new ObserverStatusBook(store && store.memory ? store.memory.part('observerStatus') : null, options);
    books.set(store, book);
  }
  return book;
}

module.exports = { ObserverStatusBook, observerStatusOf, statusFromMessage, readFigures, FIGURES, FIGURE_NAMES, STATUS_DEFAULTS };
