'use strict';
/**
 * A TTL + LRU cache for analytics view snapshots served by Meteor methods (and REST).
 *
 *   const cache = createViewCache({ ttlMs: 5000, viewTtlMs: { topology: 30000 } });
 *   const rows = await cache.get('rf', { hours: 24 }, store.version('rf'), () => rf.snapshot({ hours: 24 }));
 *
 * An entry is found by view name + canonical JSON of the params (object keys sorted, so
 * { a, b } and { b, a } share an entry). It is valid while younger than the view's TTL and
 * while the view `version` it was computed for is still the current one; a version change
 * means the data moved, so the entry is recomputed before answering, never served stale.
 * With staleWhileRevalidate, an entry past its TTL (same version) is answered at once while
 * a single background recompute refreshes it. Concurrent computes of one key are shared.
 *
 * A compute that throws or rejects is never stored: every caller waiting on it gets the error,
 * the next get() computes again, a stale entry (SWR) is kept as it was, and the failure is
 * counted (`errors`, per view too) with `lastError` = { view, message, at } as plain JSON.
 *
 * `version` must be a primitive (number or string); it is compared with ===.
 * Pure CommonJS with no meteor/* imports: runs under plain Node and inside Meteor.
 */

/** Every option, its default, and what it means. createViewCache() accepts nothing else. */
const CACHE_DEFAULTS = Object.freeze({
  // Freshness of an entry in ms, for views not listed in viewTtlMs.
  ttlMs: 5000,
  // Per-view TTL overrides, e.g. { topology: 30000, rf: 2000 }.
  viewTtlMs: {},
  // How long past its TTL an entry may still be served while it is refreshed in the
  // background: 0 = never (recompute before answering), true = Infinity = no limit.
  staleWhileRevalidate: 0,
  // Most entries kept; the least recently used one is evicted beyond it.
  maxEntries: 500,
  // onError(err, viewName): a background refresh failed (the stale entry is kept).
  onError: null,
  // Clock in ms; inject a fake one in tests.
  now: Date.now,
});

const schedule = typeof setImmediate === 'function' ? setImmediate : (fn) => setTimeout(fn, 0);

/** JSON with object keys sorted at every depth, so equal params always give the same key. */
function canonicalJson(value) {
  const json = JSON.stringify(value === undefined ? null : value, (_name, current) => {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return current;
    const sorted = {};
    for (const name of Object.keys(current).sort()) sorted[name] = current[name];
    return sorted;
  });
  return json;
}

/** JSON-quoting the view name makes the split unambiguous whatever characters it holds. */
function cacheKey(viewName, params) {
  return `${JSON.stringify(viewName)}:${canonicalJson(params)}`;
}

function resolveOptions(options = {}) {
  for (const name of Object.keys(options)) {
    if (!(name in CACHE_DEFAULTS)) throw new TypeError(`createViewCache: unknown option '${name}'`);
  }
  const opts = { ...CACHE_DEFAULTS };
  for (const [name, value] of Object.entries(options)) if (value !== undefined) opts[name] = value;

  if (opts.staleWhileRevalidate === true) opts.staleWhileRevalidate = Infinity;
  if (opts.staleWhileRevalidate === false) opts.staleWhileRevalidate = 0;
  if (typeof opts.ttlMs !== 'number' || !(opts.ttlMs >= 0)) {
    throw new RangeError(`createViewCache: ttlMs must be a number >= 0, got ${opts.ttlMs}`);
  }
  for (const [view, ttl] of Object.entries(opts.viewTtlMs)) {
    if (typeof ttl !== 'number' || !(ttl >= 0)) {
      throw new RangeError(`createViewCache: viewTtlMs.${view} must be a number >= 0, got ${ttl}`);
    }
  }
  if (typeof opts.staleWhileRevalidate !== 'number' || !(opts.staleWhileRevalidate >= 0)) {
    throw new RangeError(`createViewCache: staleWhileRevalidate must be a boolean or a number of ms >= 0, got ${opts.staleWhileRevalidate}`);
  }
  if (!Number.isInteger(opts.maxEntries) || opts.maxEntries < 1) {
    throw new RangeError(`createViewCache: maxEntries must be an integer >= 1, got ${opts.maxEntries}`);
  }
  if (opts.onError !== null && typeof opts.onError !== 'function') {
    throw new TypeError('createViewCache: onError must be a function or null');
  }
  if (typeof opts.now !== 'function') throw new TypeError('createViewCache: now must be a function');
  return opts;
}

class ViewCache {
  constructor(options) {
    this._opts = resolveOptions(options);
    // Map iteration order is insertion order: re-inserting on use keeps the LRU entry first.
    this._entries = new Map(); // key -> { viewName, value, version, expiresAt }
    this._pending = new Map(); // key -> { version, generation, promise }
    this._generations = new Map(); // viewName -> bumped by invalidate(), so late computes don't store
    this._clearCount = 0;
    this._views = new Map(); // viewName -> per-view counters
    this._totals = {
      hits: 0,
      misses: 0,
      staleHits: 0,
      evictions: 0,
      expirations: 0,
      versionMisses: 0,
      coalesced: 0,
      refreshes: 0,
      computes: 0,
      errors: 0,
      warmed: 0,
    };
    this._lastError = null;
  }

  /**
   * The view snapshot for `params` at `version`, from cache or from `compute()` (sync or async).
   * @returns {Promise<*>} the value
   */
  async get(viewName, params, version, compute) {
    if (typeof compute !== 'function') throw new TypeError('viewCache.get: compute must be a function');
    const key = cacheKey(viewName, params);
    const entry = this._entries.get(key);
    if (entry) {
      const now = this._opts.now();
      if (entry.version !== version) {
        this._count(viewName, 'versionMisses');
        this._entries.delete(key);
      } else if (now < entry.expiresAt) {
        this._count(viewName, 'hits');
        this._touch(key, entry);
        return entry.value;
      } else if (now < entry.expiresAt + this._opts.staleWhileRevalidate) {
        this._count(viewName, 'staleHits');
        this._touch(key, entry);
        this._refreshInBackground(key, viewName, version, compute);
        return entry.value;
      } else {
        this._count(viewName, 'expirations');
        this._entries.delete(key);
      }
    }
    this._count(viewName, 'misses');
    return this._compute(key, viewName, version, compute, false);
  }

  /**
   * Pre-compute an entry (at start-up). A fresh entry of the same version is kept as is.
   * Not counted as a hit or a miss.
   */
  async warm(viewName, params, version, compute) {
    if (typeof compute !== 'function') throw new TypeError('viewCache.warm: compute must be a function');
    const key = cacheKey(viewName, params);
    const entry = this._entries.get(key);
    if (entry && entry.version === version && this._opts.now() < entry.expiresAt) return entry.value;
    this._count(viewName, 'warmed');
    return this._compute(key, viewName, version, compute, false);
  }

  /** Drop every entry of a view; computes already running for it will not be stored. */
  invalidate(viewName) {
    this._generations.set(viewName, this._generation(viewName) + 1);
    let removed = 0;
    for (const [key, entry] of this._entries) {
      if (entry.viewName === viewName) {
        this._entries.delete(key);
        removed++;
      }
    }
    return removed;
  }

  /** Drop every entry (counters are kept). */
  clear() {
    this._clearCount++;
    this._entries.clear();
  }

  /** Resolves when no compute or background refresh is running (for tests and shutdown). */
  async idle() {
    while (this._pending.size > 0) {
      await Promise.allSettled([...this._pending.values()].map((record) => record.promise));
    }
  }

  stats() {
    const totals = this._totals;
    const lookups = totals.hits + totals.staleHits + totals.misses;
    const views = {};
    for (const [viewName, counters] of this._views) views[viewName] = { entries: 0, ...counters };
    for (const entry of this._entries.values()) {
      if (views[entry.viewName]) views[entry.viewName].entries++;
    }
    return {
      entries: this._entries.size,
      maxEntries: this._opts.maxEntries,
      ...totals,
      // Stale hits were answered from the cache, so they count as hits here.
      hitRatio: lookups === 0 ? 0 : (totals.hits + totals.staleHits) / lookups,
      pending: this._pending.size,
      lastError: this._lastError,
      views,
    };
  }

  // --- internals -------------------------------------------------------------------------

  _ttl(viewName) {
    const ttl = this._opts.viewTtlMs[viewName];
    return ttl === undefined ? this._opts.ttlMs : ttl;
  }

  _generation(viewName) {
    return this._generations.get(viewName) || 0;
  }

  _count(viewName, counter) {
    this._totals[counter]++;
    let view = this._views.get(viewName);
    if (!view) {
      view = { hits: 0, misses: 0, staleHits: 0, evictions: 0, versionMisses: 0, expirations: 0, warmed: 0, errors: 0 };
      this._views.set(viewName, view);
    }
    if (counter in view) view[counter]++;
  }

  _touch(key, entry) {
    this._entries.delete(key);
    this._entries.set(key, entry);
  }

  _store(key, viewName, version, value) {
    this._entries.delete(key);
    this._entries.set(key, { viewName, value, version, expiresAt: this._opts.now() + this._ttl(viewName) });
    while (this._entries.size > this._opts.maxEntries) {
      const [oldestKey, oldest] = this._entries.entries().next().value;
      this._entries.delete(oldestKey);
      this._count(oldest.viewName, 'evictions');
    }
  }

  /**
   * Run compute once per key and version; concurrent callers share the promise.
   * `deferred` postpones the call to the next macrotask (background refreshes).
   */
  _compute(key, viewName, version, compute, deferred) {
    const running = this._pending.get(key);
    if (running && running.version === version) {
      this._totals.coalesced++;
      return running.promise;
    }
    const record = {
      version,
      generation: this._generation(viewName),
      clearCount: this._clearCount,
      promise: null,
    };
    this._totals.computes++;
    const start = deferred ? new Promise((resolve) => schedule(resolve)) : Promise.resolve();
    record.promise = start
      .then(() => compute())
      .then((value) => {
        // Store only if nothing newer took over: a newer version's compute, invalidate() or clear().
        const current = this._pending.get(key) === record
          && record.generation === this._generation(viewName)
          && record.clearCount === this._clearCount;
        if (this._pending.get(key) === record) this._pending.delete(key);
        if (current) this._store(key, viewName, version, value);
        return value;
      }, (err) => {
        if (this._pending.get(key) === record) this._pending.delete(key);
        this._count(viewName, 'errors');
        const message = err && err.message ? err.message : String(err);
        this._lastError = { view: viewName, message: message.length > 300 ? `${message.slice(0, 300)}…` : message, at: this._opts.now() };
        throw err;
      });
    this._pending.set(key, record);
    return record.promise;
  }

  _refreshInBackground(key, viewName, version, compute) {
    const running = this._pending.get(key);
    if (running && running.version === version) return; // one refresh at a time per key
    this._totals.refreshes++;
    // Deferred so a synchronous compute doesn't delay the stale answer it is meant to hide.
    this._compute(key, viewName, version, compute, true).catch((err) => {
      // The stale entry stays; the next stale hit tries again.
      if (this._opts.onError) {
        try {
          this._opts.onError(err, viewName);
        } catch {
          // a broken callback must not surface as an unhandled rejection
        }
      }
    });
  }
}

/** createViewCache(options) — see CACHE_DEFAULTS for the options. */
function createViewCache(options) {
  return new ViewCache(options);
}

module.exports = { createViewCache, ViewCache, canonicalJson, cacheKey, CACHE_DEFAULTS };
