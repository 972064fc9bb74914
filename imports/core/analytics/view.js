'use strict';
/**
 * The one shape every analytics view has, so that a publication, a method and a REST
 * handler can serve any view with the same few lines.
 *
 * A view file exports `defineView({ name, params, createState, apply, evict, snapshot, scopeOf })`:
 *   params       spec of accepted parameters: { key: { type: 'int'|'number'|'string'|'enum'|'bool',
 *                default, min, max, maxLength, values } }; normalizeParams() enforces it.
 *   createState  (store) -> the view's incremental state.
 *   apply        (state, tx, observation, store, scopesWatched) -> what changed: falsy (nothing),
 *                true (the whole view), or an array of scope keys (e.g. node public keys).
 *                `scopesWatched` is false while no one watches a scope (see versionFor): then
 *                true serves as well as the keys, and a view may skip building their list.
 *   evict        (state, tx, store, scopesWatched) -> same; called once when a transmission
 *                leaves the store, with all its observations still attached. Must undo exactly
 *                what apply did.
 *   snapshot     (state, params, store, now) -> plain JSON for clients. Must not mutate state.
 *   scopeOf      optional (params) -> the scope key (or array of keys) a snapshot with these
 *                params depends on.
 *   countsChanges optional: true when the state has a `changes` count, bumped on every apply and
 *                evict that changed something (snapshot-cache.js keys its answers by it).
 *
 * An instance (from `create(store)`) carries `version`, bumped on every change, and per-scope
 * versions, so that a subscriber can tell whether its snapshot may have changed
 * (`versionFor(params)`) without recomputing it.
 */

const { countIn } = require('../memory-account');

const MAX_SCOPES = 50000;

class ParamError extends Error {
  constructor(view, key, message) {
    super(`${view}: parameter "${key}" ${message}`);
    this.name = 'ParamError';
    this.view = view;
    this.key = key;
  }
}

function normalizeParams(viewName, spec, raw) {
  const input = raw === undefined || raw === null ? {} : raw;
  if (typeof input !== 'object' || Array.isArray(input)) throw new ParamError(viewName, '*', 'must be an object');
  for (const key of Object.keys(input)) {
    if (!Object.prototype.hasOwnProperty.call(spec, key)) throw new ParamError(viewName, key, 'is not accepted');
  }
  const params = {};
  for (const [key, rule] of Object.entries(spec)) {
    let value = input[key];
    if (value === undefined || value === null || value === '') {
      if (rule.required) throw new ParamError(viewName, key, 'is required');
      params[key] = rule.default === undefined ? null : rule.default;
      continue;
    }
    switch (rule.type) {
      case 'int':
      case 'number':
        if (typeof value === 'string' && value.trim() !== '') value = Number(value);
        if (typeof value !== 'number' || !Number.isFinite(value)) throw new ParamError(viewName, key, 'must be a finite number');
        if (rule.type === 'int' && !Number.isInteger(value)) throw new ParamError(viewName, key, 'must be an integer');
        if (rule.min !== undefined && value < rule.min) throw new ParamError(viewName, key, `must be at least ${rule.min}`);
        if (rule.max !== undefined && value > rule.max) throw new ParamError(viewName, key, `must be at most ${rule.max}`);
        break;
      case 'string':
        if (typeof value !== 'string') throw new ParamError(viewName, key, 'must be a string');
        if (value.length > (rule.maxLength || 128)) throw new ParamError(viewName, key, `must be at most ${rule.maxLength || 128} characters`);
        if (rule.pattern && !rule.pattern.test(value)) throw new ParamError(viewName, key, `must match ${rule.pattern}`);
        if (rule.lowerCase) value = value.toLowerCase();
        break;
      case 'enum':
        if (!rule.values.includes(value)) throw new ParamError(viewName, key, `must be one of ${rule.values.join(', ')}`);
        break;
      case 'bool':
        if (value === 'true') value = true;
        if (value === 'false') value = false;
        if (typeof value !== 'boolean') throw new ParamError(viewName, key, 'must be true or false');
        break;
      default:
        throw new ParamError(viewName, key, `has an unknown type ${rule.type}`);
    }
    params[key] = value;
  }
  return params;
}

/** Stable key for a (view, params) pair: same params in any key order give the same key. */
function paramsKey(viewName, params) {
  const keys = Object.keys(params || {}).sort();
  return `${viewName}?${keys.map((k) => `${k}=${JSON.stringify(params[k])}`).join('&')}`;
}

function defineView(definition) {
  const { name, params: spec = {}, createState, apply, evict, snapshot, scopeOf } = definition;
  const countsChanges = definition.countsChanges === true;
  return {
    name,
    description: definition.description || '',
    paramsSpec: spec,
    normalizeParams: (raw) => normalizeParams(name, spec, raw),
    create(store) {
      const state = createState(store);
      const scopeVersions = new Map(); // watched scope key -> { version }
      let version = 0;
      // A store may hold updates for its views (store.js flushViews): whatever reads a view
      // (its state, version or a snapshot) has them run first, so no answer lags the store.
      const flush = store && typeof store.flushViews === 'function' ? () => store.flushViews() : () => {};
      const instance = {
        name,
        get state() {
          flush();
          return state;
        },
        get version() {
          flush();
          return version;
        },
        paramsSpec: spec,
        normalizeParams: (raw) => normalizeParams(name, spec, raw),
        // The store calls these for every view on every report: what a change records is
        // written out here rather than in further wrapper calls (each a call the optimizer
        // cannot inline, the call sites seeing every view's function).
        apply(tx, observation, theStore) {
          const changed = apply(state, tx, observation, theStore || store, scopeVersions.size > 0);
          if (!changed) return;
          version++;
          if (countsChanges) state.changes++;
          if (scopeVersions.size > 0 && scopeOf && Array.isArray(changed)) recordScopes(changed, version);
        },
        evict(tx, theStore) {
          const changed = evict(state, tx, theStore || store, scopeVersions.size > 0);
          if (!changed) return;
          version++;
          if (countsChanges) state.changes++;
          if (scopeVersions.size > 0 && scopeOf && Array.isArray(changed)) recordScopes(changed, version);
        },
        snapshot(rawParams, now = Date.now()) {
          flush();
          return snapshot(state, normalizeParams(name, spec, rawParams), store, now);
        },
        /** The version a snapshot with these params depends on (its scope's, or the view's). */
        versionFor(rawParams) {
          flush();
          if (!scopeOf) return version;
          const scope = scopeOf(normalizeParams(name, spec, rawParams));
          if (scope === null || scope === undefined) return version;
          if (!Array.isArray(scope)) return watch(scope).version;
          // Several scopes (a node's key and prefixes): the newest change among them.
          let newest = 0;
          for (const key of scope) newest = Math.max(newest, watch(key).version);
          return newest;
        },
      };
      // Per-scope versions are kept only for the scopes someone asked about (versionFor), so that
      // ingest pays one Map probe per changed key, and nothing while no one watches a scope (the
      // benchmarks, a server with no node page open). A scope is watched from its first
      // versionFor on, starting at the view's version then: its snapshot can have changed at
      // any earlier version, and from then on every change to it moves its version.
      // Versions are a hint (a subscriber recomputes when its scope's version moved), so the
      // watched set is bounded: once it holds MAX_SCOPES keys it is cleared and every scope
      // starts again at the current version (each subscriber recomputes once; nothing is missed).
      function watch(key) {
        let entry = scopeVersions.get(key);
        if (entry === undefined) {
          if (scopeVersions.size >= MAX_SCOPES) scopeVersions.clear();
          entry = { version };
          scopeVersions.set(key, entry);
        }
        return entry;
      }
      // Scope versions are read only through scopeOf: a view without it keeps none.
      function recordScopes(changed, version) {
        for (let i = 0; i < changed.length; i++) {
          const entry = scopeVersions.get(changed[i]);
          if (entry !== undefined) entry.version = version;
        }
      }
      return instance;
    },
  };
}

// ---- Small helpers shared by several views ----------------------------------------------

/**
 * Increment (delta +1) or decrement (delta -1) a counter in a Map, deleting at zero. With a
 * memory-account `part`, a new entry is charged to it and a deleted one refunded.
 */
function bump(map, key, delta = 1, part = null) {
  return countIn(map, key, delta, part);
}

/** The memory-account part of a view's state (see memory-account.js); null for a bare state. */
function memoryPart(store, name) {
  return store && store.memory ? store.memory.part(name) : null;
}

/** Top `limit` entries of a Map key -> count, by count then key (deterministic). */
function topEntries(map, limit) {
  const entries = Array.from(map.entries());
  entries.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return entries.slice(0, limit);
}

const HOUR_MS = 3600 * 1000;
const DAY_MS = 24 * HOUR_MS;

function hourBucket(time) {
  return Math.floor(time / HOUR_MS) * HOUR_MS;
}

/**
 * Wrap a view's params normalization, the definition's and every instance's, with `wrap`: for a
 * param that needs more than the declared spec checks (a parsed filter, a canonical key list),
 * so a bad value is a bad parameter rather than a failed snapshot. With `inSnapshot`, a snapshot
 * called with raw params goes through the wrapped normalization too.
 */
function wrapNormalizeParams(definition, wrap, { inSnapshot = false } = {}) {
  definition.normalizeParams = wrap(definition.normalizeParams);
  const createInstance = definition.create;
  definition.create = (store) => {
    const instance = createInstance(store);
    instance.normalizeParams = wrap(instance.normalizeParams);
    if (inSnapshot) {
      const snapshotOf = instance.snapshot;
      instance.snapshot = (rawParams, now) => snapshotOf(instance.normalizeParams(rawParams), now);
    }
    return instance;
  };
}

module.exports = { defineView, wrapNormalizeParams, memoryPart, normalizeParams, paramsKey, ParamError, bump, topEntries, hourBucket, HOUR_MS, DAY_MS };
