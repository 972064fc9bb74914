'use strict';
/**
 * The last few snapshots of one view instance, per params, reused while nothing they read has
 * changed: a second subscriber, a method call and a REST call between two packets cost a
 * lookup, not a recomputation.
 *
 * A snapshot reads the view's own state and (for most views) the store's node directory. The
 * stamp an answer is kept under covers both:
 *   - `state.changes`, which the view bumps on every apply and evict that changed its state;
 *   - the store's ingested and evicted counters (every directory change made by traffic, an
 *     advert learnt, an adjacency, an age-out sweep, comes with an ingested report), the
 *     directory's node version (a node restored or merged from MongoDB, added, removed, renamed,
 *     re-roled or moved: directory.js) and its charged bytes (learnt adjacency);
 * and, as a safety net for a directory edit made outside ingest that changes none of those (a
 * reload merging a persisted node's position), an answer is kept at most MAX_AGE_MS of wall time.
 *
 * A cached answer is handed out as it is to every caller: snapshots are plain JSON that callers
 * copy (decorate in the server) or only read (publish-hub diffs field signatures), never mutate.
 * Memory: at most MAX_ENTRIES answers per view instance (a view may decline to cache a large
 * one, as routes does past 500 routes), not charged to the memory account; an expired entry
 * is dropped on the next miss.
 */
const { paramsKey } = require('./view');

const MAX_ENTRIES = 4; // distinct params kept per instance (oldest out)
const MAX_AGE_MS = 1000;

function directoryBytes(store) {
  return store.directory && store.directory.directoryPart ? store.directory.directoryPart.bytes : 0;
}

/** The directory's node version (directory.js): moves with every node added, removed, renamed, re-roled or moved. */
function nodesVersion(store) {
  return store.directory ? store.directory.nodesVersion : 0;
}

class SnapshotCache {
  constructor() {
    this.entries = new Map(); // params key -> { changes, ingested, evicted, nodes, directoryBytes, at, extra, value }
    this.hits = 0;
    this.misses = 0;
  }

  /**
   * The snapshot for `params` (`extra`: anything else the answer depends on, such as a resolved
   * time range; compared with ===), from cache when still valid, else from compute().
   */
  get(name, state, params, store, compute, extra = null) {
    const key = paramsKey(name, params);
    const counters = store.counters || {};
    const at = Date.now();
    const cached = this.entries.get(key);
    if (cached !== undefined && cached.changes === state.changes && cached.ingested === counters.ingested && cached.evicted === counters.evicted
      && cached.nodes === nodesVersion(store) && cached.directoryBytes === directoryBytes(store) && cached.extra === extra
      && at - cached.at <= MAX_AGE_MS) {
      this.hits++;
      return cached.value;
    }
    this.misses++;
    const value = compute();
    if (cached !== undefined) this.entries.delete(key);
    for (const [other, entry] of this.entries) if (at - entry.at > MAX_AGE_MS) this.entries.delete(other);
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value);
    this.entries.set(key, {
      changes: state.changes, ingested: counters.ingested, evicted: counters.evicted, nodes: nodesVersion(store),
      directoryBytes: directoryBytes(store), at, extra, value,
    });
    return value;
  }
}

/**
 * A view definition whose snapshots go through a SnapshotCache: its state gets `changes`
 * (bumped by defineView when apply or evict report a change: `countsChanges`) and
 * `snapshotCache`. `cacheable(params)` may decline (false) or give the `extra` value the answer
 * also depends on (see get()).
 */
function withSnapshotCache(definition, cacheable = null) {
  const { createState, snapshot, name } = definition;
  return {
    ...definition,
    countsChanges: true,
    createState(store) {
      const state = createState(store);
      state.changes = 0;
      state.snapshotCache = new SnapshotCache();
      return state;
    },
    snapshot(state, params, store, now) {
      const extra = cacheable ? cacheable(params, store, now) : null;
      if (extra === false) return snapshot(state, params, store, now);
      return state.snapshotCache.get(name, state, params, store, () => snapshot(state, params, store, now), extra);
    },
  };
}

module.exports = { SnapshotCache, withSnapshotCache, directoryBytes, nodesVersion, MAX_AGE_MS, MAX_ENTRIES };
