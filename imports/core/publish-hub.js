'use strict';
/**
 * Shared, coalesced fan-out of view snapshots to subscribers: the Meteor-free heart of the
 * reactive publications (imports/api/views/publications.js adapts it to `this.added/changed`).
 *
 * Subscribers with the same (view, params) form one group. Once per tick (publishIntervalMs),
 * each group whose view version moved (or whose time-based refresh is due) computes its
 * snapshot ONCE, diffs it against what its subscribers already have, and hands every
 * subscriber the same small change: only the top-level fields that differ. So:
 *   - 1,000 subscribers of one view cost one snapshot and one diff per tick, not 1,000;
 *   - a packet burst or a slow client gives at most one update per group per tick;
 *   - when the last subscriber of a group leaves, the group and its work are gone.
 *
 * Two shapes: 'document' (a view as one document, top-level fields diffed) and 'rows' (a list
 * of rows keyed by `rowKey`, sent as added/changed/removed rows — the live packet feed).
 *
 * A 'rows' sink may also have `batch(messages, shared)`: it then gets a tick's (or a join's)
 * row messages as one array of { method, id, fields } in the order above (removed, added,
 * changed), the same array for every such sink, instead of one call per message.
 *
 * Sinks get a third argument, `shared`: a Map that is the SAME object for every subscriber of
 * a group receiving the same message (one per group per tick for changes; one per group
 * snapshot for initial documents, reused by every subscriber that joins until the next
 * refresh). The glue memoizes its serialized DDP message there, so N subscribers cost one
 * serialization (imports/api/ddp/shared-send.js). Sinks that ignore it work unchanged.
 *
 * A snapshot that throws never poisons a group:
 *   - on the first subscriber, no group is created: subscribe() throws a SnapshotError;
 *   - on a tick, the group keeps its last good document (its subscribers see nothing), the
 *     failure is counted, and the group is retried on every following tick until it succeeds;
 *   - a subscriber joining a group whose last refresh failed gets the SnapshotError, never an
 *     undefined document;
 *   - other groups, and other subscribers' sinks, are unaffected (a throwing sink is counted).
 */
const { paramsKey } = require('./analytics/view');
const { splitLargeFields, CHUNK_DEFAULTS, KEYED_LISTS } = require('./field-chunks');

const HUB_DEFAULTS = {
  // How often groups are checked for changes; also the upper bound on update rate per client.
  publishIntervalMs: 250,
  // Per view, a longer minimum time between two updates of one group. Large documents whose
  // content moves with every packet (histograms, scatter, rankings) cost bytes and CPU per
  // subscriber on every update, and an operator reads them at a glance, not at 4 Hz.
  viewIntervalMs: {},
  // Views that depend on the clock (last hour, node status) refresh at least this often.
  timeRefreshMs: 10000,
  // Samples kept for publish latency percentiles.
  sampleWindow: 1024,
  // Document lists of at least this many JSON bytes go out in content-defined chunks, one
  // top-level field each, so a tick resends only the chunks that moved (imports/core/
  // field-chunks.js; clients put them back with joinChunkedFields). 0 = whole fields (the
  // default here, for callers that read whole documents; the Meteor publications turn it on).
  chunkMinBytes: 0,
  // Mean items per chunk.
  chunkAverageItems: CHUNK_DEFAULTS.averageItems,
  // Per view, lists sent as a stable part and a small moving part (ranks, counts, times), so a
  // tick where only those moved does not resend every chunk (field-chunks.js; chunking on only).
  keyedLists: KEYED_LISTS,
};

function fieldSignature(value) {
  return JSON.stringify(value);
}

/**
 * A view could not compute its snapshot. Shaped like a Meteor.Error (`error`, `reason`) so the
 * glue can hand it on as one: `new Meteor.Error(err.error, err.reason)`.
 */
class SnapshotError extends Error {
  constructor(viewName, cause) {
    const detail = cause && cause.message ? cause.message : String(cause);
    super(`view "${viewName}" could not compute its snapshot: ${detail}`);
    this.name = 'SnapshotError';
    // A refusal that says when to come back (region-scope-busy) keeps its own code for clients.
    this.error = cause && cause.retryAfterSeconds && typeof cause.error === 'string' ? cause.error : 'snapshot-failed';
    this.reason = this.message;
    this.viewName = viewName;
    this.cause = cause;
  }
}

/** Shorten an error to a plain JSON-able message for stats. */
function errorMessage(err) {
  const message = err && err.message ? err.message : String(err);
  return message.length > 300 ? `${message.slice(0, 300)}…` : message;
}

class PublishHub {
  /**
   * `resolve(name)` -> view instance with snapshot(params, now), versionFor(params), normalizeParams(raw).
   * Options: see HUB_DEFAULTS; `now` for tests; `onError(err, group)`.
   */
  constructor(resolve, options = {}) {
    this.resolve = resolve;
    this.options = { ...HUB_DEFAULTS, ...options };
    this.now = options.now || Date.now;
    this.groups = new Map();
    this.timer = null;
    // errors = every failed snapshot (subscribeErrors on a first subscriber + tickErrors);
    // refused = subscribers turned away because their group was failing; recoveries = failing
    // groups that computed again; sinkErrors = a subscriber's own callback threw.
    this.counters = { ticks: 0, snapshots: 0, updates: 0, initialSends: 0, skipped: 0, deferred: 0, errors: 0, subscribeErrors: 0, tickErrors: 0, refused: 0, recoveries: 0, sinkErrors: 0 };
    this.failuresByView = new Map(); // viewName -> failed snapshots, kept after groups end
    this.lastError = null; // { view, message, at }
    this.latencies = [];
    this.phaseCounters = new Map(); // ticks per update -> groups given a phase for it (nextPhase)
  }

  /**
   * Add a subscriber: `sink` = { added(id, fields, shared), changed(id, fields, shared),
   * removed(id, shared) } (`shared`: see the top of this file).
   * Returns { id, stop() }. The first snapshot is sent before subscribe() returns.
   * Throws ParamError for bad params and SnapshotError when the view cannot compute (the caller
   * turns either into a Meteor.Error); in both cases nothing is left behind.
   */
  subscribe(viewName, rawParams, sink, shape = 'document', rowKey = 'hash') {
    const view = this.resolve(viewName);
    if (!view) throw new Error(`unknown view "${viewName}"`);
    const params = view.normalizeParams(rawParams);
    const key = `${shape}:${paramsKey(viewName, params)}`;
    let group = this.groups.get(key);
    if (group && group.failure) {
      // Its last refresh failed: the document it holds is stale, and the next tick retries.
      this.counters.refused++;
      throw new SnapshotError(viewName, group.failure.error);
    }
    if (!group) {
      const minIntervalMs = Math.max(this.options.publishIntervalMs, this.options.viewIntervalMs[viewName] || 0);
      // With a tick interval, a group's schedule is counted in ticks (see nextPhase): at most
      // one update every `ticksPerUpdate` ticks. Without one (ticks driven by hand), in time.
      const tickMs = this.options.publishIntervalMs;
      const ticksPerUpdate = tickMs > 0 ? Math.max(1, Math.ceil(minIntervalMs / tickMs)) : 0;
      group = { key, viewName, view, params, shape, rowKey, minIntervalMs, ticksPerUpdate, refreshedTick: 0, sinks: new Set(), version: -1, refreshedAt: 0, fields: null, rows: null, snapshot: null, initialShared: new Map(), initialBatch: null, failure: null, docId: paramsKey(viewName, params) };
      try {
        this.refresh(group, true);
      } catch (err) {
        // The group is only added once it holds a good document.
        this.counters.subscribeErrors++;
        this.recordFailure(group, err);
        throw new SnapshotError(viewName, err);
      }
      group.refreshedTick = this.counters.ticks - this.nextPhase(ticksPerUpdate);
      this.groups.set(key, group);
    }
    group.sinks.add(sink);
    this.sendInitial(group, sink);
    this.ensureTimer();
    let stopped = false;
    return {
      id: group.docId,
      stop: () => {
        if (stopped) return;
        stopped = true;
        group.sinks.delete(sink);
        // Only drop the group if it is still the one registered under this key.
        if (group.sinks.size === 0 && this.groups.get(key) === group) this.groups.delete(key);
        if (this.groups.size === 0) this.stopTimer();
      },
    };
  }

  /**
   * The phase of a new group that updates once every `ticksPerUpdate` ticks (a view with a
   * longer interval, viewIntervalMs): 0, 1, 2, ... round robin over those ticks, so its first
   * update is due that many ticks sooner. Why: a dashboard opens its views at once, so every
   * 1-second view of it (nodes, rf, topology) fell due on the same tick, and one tick in four
   * carried them all to every subscriber. With phases each lands on its own tick; the schedule is
   * counted in ticks, not read from the clock, so a late timer or a long fan-out (the groups
   * after it in a tick start later) cannot let two phases drift onto one tick. A group's first
   * update may come up to (interval - one tick) sooner after its first snapshot than the
   * interval; after that they are `ticksPerUpdate` ticks apart (or more, when nothing changed).
   */
  nextPhase(ticksPerUpdate) {
    if (!(ticksPerUpdate >= 2)) return 0;
    const given = this.phaseCounters.get(ticksPerUpdate) || 0;
    this.phaseCounters.set(ticksPerUpdate, given + 1);
    return given % ticksPerUpdate;
  }

  /** The current snapshot, from the group's per-snapshot cache: joining costs no recompute. */
  sendInitial(group, sink) {
    this.counters.initialSends++;
    if (group.shape === 'document') {
      this.deliver(group, sink, 'added', group.docId, group.snapshot, group.initialShared);
    } else if (typeof sink.batch === 'function') {
      // One batch for every joiner until the rows change (the memo in initialShared follows it).
      if (!group.initialBatch) group.initialBatch = Array.from(group.rows, ([id, row]) => ({ method: 'added', id, fields: row.value }));
      this.deliverBatch(group, sink, group.initialBatch, group.initialShared);
    } else {
      for (const [id, row] of group.rows) this.deliver(group, sink, 'added', id, row.value, group.initialShared);
    }
  }

  /** A sink's batch of messages ({ method, id, fields }, in order); one throw counts once. */
  deliverBatch(group, sink, messages, shared) {
    try {
      sink.batch(messages, shared);
    } catch (err) {
      this.counters.sinkErrors++;
      if (this.options.onError) this.safeOnError(err, group);
    }
  }

  /** Call one sink; a sink that throws must not keep the change from the others. */
  deliver(group, sink, method, id, fields, shared) {
    try {
      if (method === 'removed') sink.removed(id, shared);
      else sink[method](id, fields, shared);
    } catch (err) {
      this.counters.sinkErrors++;
      if (this.options.onError) this.safeOnError(err, group);
    }
  }

  safeOnError(err, group) {
    try {
      this.options.onError(err, group);
    } catch {
      // a broken error callback must not break publishing
    }
  }

  recordFailure(group, err) {
    this.counters.errors++;
    this.failuresByView.set(group.viewName, (this.failuresByView.get(group.viewName) || 0) + 1);
    this.lastError = { view: group.viewName, message: errorMessage(err), at: this.now() };
    if (this.options.onError) this.safeOnError(err, group);
  }

  ensureTimer() {
    if (this.timer || this.options.publishIntervalMs <= 0) return;
    this.timer = setInterval(() => this.tick(), this.options.publishIntervalMs);
    if (this.timer.unref) this.timer.unref();
  }

  stopTimer() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One publish round over every group; exposed for tests and benchmarks. */
  tick() {
    this.counters.ticks++;
    // One time for the whole tick: the groups after a long fan-out are not a tick later.
    const now = this.now();
    for (const group of this.groups.values()) {
      try {
        const computed = this.refresh(group, false, now);
        if (computed && group.failure) {
          group.failure = null;
          this.counters.recoveries++;
        }
      } catch (err) {
        // The group keeps its last good document; its subscribers hear nothing until it recovers.
        this.counters.tickErrors++;
        this.recordFailure(group, err);
        const failures = group.failure ? group.failure.count + 1 : 1;
        group.failure = { error: err, count: failures, since: group.failure ? group.failure.since : this.now() };
      }
    }
  }

  /**
   * Recompute a group's snapshot if due, and send the difference. Throws if the view does; the
   * group's state is only changed once the snapshot and its diff were computed in full.
   * Returns true if a snapshot was computed, false if skipped or deferred.
   */
  refresh(group, initial, now = this.now()) {
    const version = group.view.versionFor(group.params);
    const timeDue = now - group.refreshedAt >= this.options.timeRefreshMs;
    // A failing group is retried every tick: what broke it may be the clock, not the data.
    if (!initial && version === group.version && !timeDue && !group.failure) {
      this.counters.skipped++;
      return false;
    }
    // Changed, but updated too recently for this view: the next due tick sends it (coalesced).
    const tooSoon = group.ticksPerUpdate > 0 ? this.counters.ticks - group.refreshedTick < group.ticksPerUpdate : now - group.refreshedAt < group.minIntervalMs;
    if (!initial && tooSoon) {
      this.counters.deferred++;
      return false;
    }
    const started = process.hrtime.bigint();
    const snapshot = group.view.snapshot(group.params, now);
    this.counters.snapshots++;
    if (group.shape === 'document') this.diffDocument(group, snapshot, initial);
    else this.diffRows(group, snapshot, initial);
    group.version = version;
    group.refreshedAt = now;
    group.refreshedTick = this.counters.ticks;
    this.recordLatency(Number(process.hrtime.bigint() - started) / 1e6);
    return true;
  }

  diffDocument(group, snapshot, initial) {
    if (!snapshot || typeof snapshot !== 'object' || Array.isArray(snapshot)) {
      throw new TypeError(`snapshot must be an object, got ${Array.isArray(snapshot) ? 'an array' : snapshot === null ? 'null' : typeof snapshot}`);
    }
    // Big lists as stable chunks (one field each), so only the moved ones differ below.
    const split = this.options.chunkMinBytes > 0 ? splitLargeFields(snapshot, { minBytes: this.options.chunkMinBytes, averageItems: this.options.chunkAverageItems, keyed: (this.options.keyedLists || {})[group.viewName] || null }) : null;
    const document = split ? split.fields : snapshot;
    const signatures = split ? split.signatures : new Map();
    const changed = {};
    let changes = 0;
    for (const field of Object.keys(document)) {
      let signature = signatures.get(field);
      if (!split) {
        signature = fieldSignature(document[field]);
        signatures.set(field, signature);
      }
      if (!initial && group.fields.get(field) !== signature) {
        changed[field] = document[field];
        changes++;
      }
    }
    if (!initial && group.fields) {
      // A field that disappeared is cleared (DDP `changed` with undefined removes it).
      for (const field of group.fields.keys()) {
        if (!signatures.has(field)) { changed[field] = undefined; changes++; }
      }
    }
    group.fields = signatures;
    if (initial || changes > 0) group.initialShared = new Map(); // new document: new cache
    group.snapshot = document;
    if (initial || changes === 0) return;
    this.counters.updates++;
    const shared = new Map();
    for (const sink of group.sinks) this.deliver(group, sink, 'changed', group.docId, changed, shared);
  }

  diffRows(group, snapshot, initial) {
    const list = Array.isArray(snapshot) ? snapshot : (snapshot && (snapshot.packets || snapshot.rows)) || [];
    if (!Array.isArray(list)) throw new TypeError('snapshot rows must be an array');
    const next = new Map();
    // Rows carry no position: a new packet at the top would change every row's rank and
    // resend them all. Clients order rows by a field of the row itself (the packets' first-heard `time`).
    for (const row of list) {
      if (!row || typeof row !== 'object') throw new TypeError('snapshot row must be an object');
      next.set(String(row[group.rowKey]), { value: row, signature: fieldSignature(row) });
    }
    if (initial || !group.rows) {
      group.rows = next;
      group.initialShared = new Map();
      group.initialBatch = null;
      return;
    }
    // Work out every change first, then commit and send: a throw midway leaves the group as it was.
    const removed = [];
    const added = [];
    const changed = [];
    for (const id of group.rows.keys()) if (!next.has(id)) removed.push(id);
    for (const [id, row] of next) {
      const before = group.rows.get(id);
      if (!before) {
        added.push([id, row.value]);
      } else if (before.signature !== row.signature) {
        const fields = {};
        for (const field of Object.keys(row.value)) {
          if (fieldSignature(row.value[field]) !== fieldSignature(before.value[field])) fields[field] = row.value[field];
        }
        changed.push([id, fields]);
      }
    }
    group.rows = next;
    const count = removed.length + added.length + changed.length;
    if (count === 0) return;
    group.initialShared = new Map();
    group.initialBatch = null;
    this.counters.updates++;
    const shared = new Map();
    // Sinks with batch() get the tick's messages as one array (the same for all of them), so the
    // glue can serialize and frame them once and write them to a session in one go.
    let messages = null;
    for (const sink of group.sinks) {
      if (typeof sink.batch === 'function') {
        if (!messages) {
          messages = [];
          for (const id of removed) messages.push({ method: 'removed', id, fields: undefined });
          for (const [id, value] of added) messages.push({ method: 'added', id, fields: value });
          for (const [id, fields] of changed) messages.push({ method: 'changed', id, fields });
        }
        this.deliverBatch(group, sink, messages, shared);
        continue;
      }
      for (const id of removed) this.deliver(group, sink, 'removed', id, undefined, shared);
      for (const [id, value] of added) this.deliver(group, sink, 'added', id, value, shared);
      for (const [id, fields] of changed) this.deliver(group, sink, 'changed', id, fields, shared);
    }
  }

  recordLatency(ms) {
    this.latencies.push(ms);
    if (this.latencies.length > this.options.sampleWindow) this.latencies.shift();
  }

  stats() {
    const perView = {};
    let subscribers = 0;
    let failingGroups = 0;
    const viewStats = (name) => {
      perView[name] = perView[name] || { groups: 0, subscribers: 0, failing: 0, failures: 0 };
      return perView[name];
    };
    for (const group of this.groups.values()) {
      const entry = viewStats(group.viewName);
      entry.groups++;
      entry.subscribers += group.sinks.size;
      subscribers += group.sinks.size;
      if (group.failure) {
        entry.failing++;
        failingGroups++;
      }
    }
    for (const [viewName, failures] of this.failuresByView) viewStats(viewName).failures = failures;
    const sorted = this.latencies.slice().sort((a, b) => a - b);
    const pick = (p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : null);
    return { groups: this.groups.size, subscribers, failingGroups, perView, ...this.counters, lastError: this.lastError, snapshotMs: { p50: pick(50), p95: pick(95), p99: pick(99) } };
  }

  close() {
    this.stopTimer();
    this.groups.clear();
  }
}

module.exports = { PublishHub, SnapshotError, HUB_DEFAULTS };
