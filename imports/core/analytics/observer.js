'use strict';
/**
 * observer: one observer in detail. Its directory entry (name, region, first/last seen), its
 * latest status and status history (observer-status.js, fed by `status` messages), its reports
 * per hour over the last `hours` hours, the SNR of its reports (1 dB bins), and what it hears
 * that no other observer does: stored transmissions every observation of which is its own
 * (count, share of the transmissions it heard, newest examples).
 *
 * Kept incrementally per observer: reports per hour, SNR bins and sum, and the count of
 * transmissions only it heard. A transmission's sole hearer changes when a second observer
 * reports it (apply) and it leaves with the transmission (evict). The examples are read at
 * snapshot time from the store's per-observer index, newest first, at most EXAMPLE_SCAN
 * transmissions (`examplesComplete` says whether every one was read).
 *
 * Definitions: a "report" is one stored observation; "heard" counts distinct transmissions
 * (the store's per-observer index), as the observers view does; SNR bins are floor(snr) dB.
 * Subscribers are told only about their observer (scopeOf is its id); a status message bumps
 * the version too (see create below).
 */
const { defineView, memoryPart, HOUR_MS, hourBucket } = require('./view');
const { BYTES, keyBytes } = require('../memory-account');
const { observerStatusOf } = require('../observer-status');
const { PAYLOAD_TYPES } = require('../decode');
const { observationIndexOf, observationAt, observationCountOf } = require('../stored-records');

const EXAMPLE_SCAN = 5000;
const HISTORY_LIMIT = 240;
// An observer's aggregate (object, two Maps) and one count entry in either Map.
// (Its `scope`: one field and a one-slot array.)
const OBSERVER_STATE_BYTES = BYTES.object + 7 * BYTES.field + 2 * BYTES.map + BYTES.mapEntry + BYTES.object + BYTES.field + BYTES.arraySlot;
const COUNT_ENTRY_BYTES = BYTES.mapEntry + BYTES.heapNumber;

function createObserverState(part, id) {
  if (part) part.add(OBSERVER_STATE_BYTES + keyBytes(id));
  // perHour is keyed by hour number (time / 1 h, a small integer: no boxed key per report);
  // `scope` is what apply returns for this observer alone (read by view.js, never changed).
  return { reports: 0, perHour: new Map(), snrBins: new Map(), snrSum: 0, snrCount: 0, unique: 0, scope: Object.freeze([id]) };
}

function countInto(map, key, delta, part) {
  const previous = map.get(key);
  const next = (previous === undefined ? 0 : previous) + delta;
  if (next === 0) {
    map.delete(key);
    if (part) part.add(-COUNT_ENTRY_BYTES);
  } else {
    if (previous === undefined && part) part.add(COUNT_ENTRY_BYTES);
    map.set(key, next);
  }
}

/**
 * The one observer id every observation of `tx` before index `end` (default: all of them)
 * shares, or null; builds no array (stored transmissions build their list on each read).
 */
function soleHearer(tx, end = observationCountOf(tx)) {
  if (end === 0) return null;
  const id = observationAt(tx, 0).observer.id;
  for (let i = 1; i < end; i++) if (observationAt(tx, i).observer.id !== id) return null;
  return id;
}

function isHeardOnlyBy(tx, id) {
  return soleHearer(tx) === id;
}

function typeName(type) {
  return PAYLOAD_TYPES[type] || String(type);
}

function hourRow(params, now, countOf) {
  const lastHour = hourBucket(now);
  const perHour = [];
  for (let hour = lastHour - (params.hours - 1) * HOUR_MS; hour <= lastHour; hour += HOUR_MS) perHour.push({ hour, count: countOf(hour) });
  return perHour;
}

/** What the view says for no observer (no `id`). */
function emptySnapshot(params, now) {
  return {
    found: false, observer: null, status: null, statusHistory: [], reports: 0, heard: 0,
    perHour: hourRow(params, now, () => 0),
    snr: { count: 0, mean: null, bins: [] },
    onlyHeardHere: { count: 0, share: null, examples: [], examplesComplete: true },
  };
}

const definition = defineView({
  name: 'observer',
  description: 'One observer: identity, status and history, reports per hour, SNR distribution, transmissions only it heard.',
  params: {
    // Needed to see an observer. Without it the answer is the empty one (found: false), so that
    // a client, the cache warm-up and the engine-wide suites can ask every view with no params.
    id: { type: 'string', maxLength: 128 },
    hours: { type: 'int', default: 24, min: 1, max: 168 },
    examples: { type: 'int', default: 10, min: 0, max: 50 },
    // Accepted so that a region-scoped page can ask, and ignored: an observer reports under one
    // region, and its page shows all of it (declaring it keeps the engine from region-scoping it).
    region: { type: 'string', maxLength: 64 },
  },
  createState: (store) => ({ observers: new Map(), part: memoryPart(store, 'observer'), statuses: observerStatusOf(store) }),

  apply(state, tx, observation) {
    const id = observation.observer.id;
    let aggregate = state.observers.get(id);
    if (!aggregate) {
      aggregate = createObserverState(state.part, id);
      state.observers.set(id, aggregate);
    }
    aggregate.reports++;
    countInto(aggregate.perHour, Math.floor(observation.time / HOUR_MS), 1, state.part);
    const snr = observation.snr;
    if (Number.isFinite(snr)) {
      countInto(aggregate.snrBins, Math.floor(snr), 1, state.part);
      aggregate.snrSum += snr;
      aggregate.snrCount++;
    }
    // Who heard the transmission before this observation? (It is the last one live; a view
    // added to a filled store replays them in order with all of them already attached.)
    let before = observationIndexOf(tx, observation);
    if (before < 0) before = observationCountOf(tx);
    if (before === 0) {
      aggregate.unique++;
      return aggregate.scope;
    }
    const previous = soleHearer(tx, before);
    if (previous !== null && previous !== id) {
      state.observers.get(previous).unique--;
      return [id, previous];
    }
    return aggregate.scope;
  },

  evict(state, tx) {
    const changed = [];
    for (const observation of tx.observations) {
      const id = observation.observer.id;
      const aggregate = state.observers.get(id);
      if (!aggregate) continue;
      aggregate.reports--;
      countInto(aggregate.perHour, Math.floor(observation.time / HOUR_MS), -1, state.part);
      if (Number.isFinite(observation.snr)) {
        countInto(aggregate.snrBins, Math.floor(observation.snr), -1, state.part);
        aggregate.snrSum -= observation.snr;
        aggregate.snrCount--;
      }
      if (!changed.includes(id)) changed.push(id);
    }
    const sole = soleHearer(tx);
    if (sole !== null) state.observers.get(sole).unique--;
    for (const id of changed) {
      const aggregate = state.observers.get(id);
      if (aggregate.reports === 0) {
        state.observers.delete(id);
        if (state.part) state.part.add(-(OBSERVER_STATE_BYTES + keyBytes(id)));
      }
    }
    return changed;
  },

  snapshot(state, params, store, now) {
    const id = params.id;
    if (id === null) return emptySnapshot(params, now);
    const directory = store.observers.get(id) || null;
    const aggregate = state.observers.get(id) || null;
    const status = state.statuses.latest(id);
    const found = Boolean(directory || aggregate || status);
    const observer = directory
      ? { id, name: directory.name, region: directory.region, firstSeen: directory.firstSeen, lastSeen: directory.lastSeen }
      : { id, name: null, region: status ? status.region : null, firstSeen: null, lastSeen: null };

    // Reports per hour, every hour of the window (zeros included), oldest first.
    const perHour = hourRow(params, now, (hour) => (aggregate ? aggregate.perHour.get(hour / HOUR_MS) || 0 : 0));

    const bins = aggregate ? Array.from(aggregate.snrBins.entries(), ([snr, count]) => ({ snr, count })).sort((a, b) => a.snr - b.snr) : [];
    const heard = store.byObserver.get(id);
    const heardCount = heard ? heard.length : 0;
    const uniqueCount = aggregate ? aggregate.unique : 0;

    // Newest transmissions only it heard, read from its index (bounded).
    const examples = [];
    let scanned = 0;
    if (heard && params.examples > 0 && uniqueCount > 0) {
      heard.forEachNewest((tx) => {
        if (scanned >= EXAMPLE_SCAN || examples.length >= params.examples) return false;
        scanned++;
        if (!isHeardOnlyBy(tx, id)) return true;
        let snr = null;
        let hops = 0;
        for (const observation of tx.observations) {
          if (observation.path.length > hops) hops = observation.path.length;
          if (snr === null && Number.isFinite(observation.snr)) snr = observation.snr;
        }
        examples.push({ hash: tx.hash, time: tx.time, payloadType: tx.payloadType, type: typeName(tx.payloadType), hops, snr, reports: tx.observations.length });
        return true;
      });
    }
    const examplesComplete = examples.length >= Math.min(params.examples, uniqueCount) || scanned >= heardCount;

    return {
      found,
      observer,
      status,
      statusHistory: found ? state.statuses.history(id, HISTORY_LIMIT) : [],
      reports: aggregate ? aggregate.reports : 0,
      heard: heardCount,
      perHour,
      snr: {
        count: aggregate ? aggregate.snrCount : 0,
        mean: aggregate && aggregate.snrCount > 0 ? aggregate.snrSum / aggregate.snrCount : null,
        bins,
      },
      onlyHeardHere: {
        count: uniqueCount,
        share: heardCount > 0 ? uniqueCount / heardCount : null,
        examples,
        examplesComplete,
      },
    };
  },

  scopeOf: (params) => (params.id === null ? '' : params.id),
});

// A status message changes the snapshot without a packet: the version seen by subscribers is
// the packet-driven one plus the status book's (both only grow, so the sum only grows).
const baseCreate = definition.create;
definition.create = function create(store) {
  const instance = baseCreate(store);
  const packetVersionFor = instance.versionFor;
  instance.versionFor = (rawParams) => packetVersionFor(rawParams) + instance.state.statuses.version;
  return instance;
};

module.exports = definition;
