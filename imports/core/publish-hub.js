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
 */
const { paramsKey } = require('./analytics/view');

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
};

function fieldSignature(value) {
  return JSON.stringify(value);
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
    this.counters = { ticks: 0, snapshots: 0, updates: 0, skipped: 0, deferred: 0, errors: 0 };
    this.latencies = [];
  }

  /**
   * Add a subscriber: `sink` = { added(id, fields), changed(id, fields), removed(id) }.
   * Returns { id, stop() }. The first snapshot is sent before subscribe() returns.
   * Throws ParamError for bad params (the caller turns it into a Meteor.Error).
   */
  subscribe(viewName, rawParams, sink, shape = 'document', rowKey = 'hash') {
    const view = this.resolve(viewName);
    if (!view) throw new Error(`unknown view "${viewName}"`);
    const params = view.normalizeParams(rawParams);
    const key = `${shape}:${paramsKey(viewName, params)}`;
    let group = this.groups.get(key);
    if (!group) {
      const minIntervalMs = Math.max(this.options.publishIntervalMs, this.options.viewIntervalMs[viewName] || 0);
      group = { key, viewName, view, params, shape, rowKey, minIntervalMs, sinks: new Set(), version: -1, refreshedAt: 0, fields: null, rows: null, docId: paramsKey(viewName, params) };
      this.groups.set(key, group);
      this.refresh(group, true);
    }
    group.sinks.add(sink);
    this.sendInitial(group, sink);
    this.ensureTimer();
    return {
      id: group.docId,
      stop: () => {
        group.sinks.delete(sink);
        if (group.sinks.size === 0) this.groups.delete(key);
        if (this.groups.size === 0) this.stopTimer();
      },
    };
  }

  sendInitial(group, sink) {
    if (group.shape === 'document') {
      sink.added(group.docId, group.snapshot);
    } else {
      for (const [id, row] of group.rows) sink.added(id, row.value);
    }
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
    for (const group of this.groups.values()) {
      try {
        this.refresh(group, false);
      } catch (err) {
        this.counters.errors++;
        if (this.options.onError) this.options.onError(err, group);
      }
    }
  }

  refresh(group, initial) {
    const now = this.now();
    const version = group.view.versionFor(group.params);
    const timeDue = now - group.refreshedAt >= this.options.timeRefreshMs;
    if (!initial && version === group.version && !timeDue) {
      this.counters.skipped++;
      return;
    }
    // Changed, but updated too recently for this view: the next due tick sends it (coalesced).
    if (!initial && now - group.refreshedAt < group.minIntervalMs) {
      this.counters.deferred++;
      return;
    }
    const started = process.hrtime.bigint();
    const snapshot = group.view.snapshot(group.params, now);
    this.counters.snapshots++;
    group.version = version;
    group.refreshedAt = now;
    if (group.shape === 'document') this.diffDocument(group, snapshot, initial);
    else this.diffRows(group, snapshot, initial);
    this.recordLatency(Number(process.hrtime.bigint() - started) / 1e6);
  }

  diffDocument(group, snapshot, initial) {
    const signatures = new Map();
    const changed = {};
    let changes = 0;
    for (const field of Object.keys(snapshot)) {
      const signature = fieldSignature(snapshot[field]);
      signatures.set(field, signature);
      if (!initial && group.fields.get(field) !== signature) {
        changed[field] = snapshot[field];
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
    group.snapshot = snapshot;
    if (initial || changes === 0) return;
    this.counters.updates++;
    for (const sink of group.sinks) sink.changed(group.docId, changed);
  }

  diffRows(group, snapshot, initial) {
    const list = Array.isArray(snapshot) ? snapshot : snapshot.packets || snapshot.rows || [];
    const next = new Map();
    // Rows carry no position: a new packet at the top would change every row's rank and
    // resend them all. Clients order rows by a field of the row itself (the packets' first-heard `time`).
    for (const row of list) next.set(String(row[group.rowKey]), { value: row, signature: fieldSignature(row) });
    if (initial || !group.rows) {
      group.rows = next;
      return;
    }
    let changes = 0;
    for (const [id, row] of group.rows) {
      if (!next.has(id)) {
        changes++;
        for (const sink of group.sinks) sink.removed(id);
      }
    }
    for (const [id, row] of next) {
      const before = group.rows.get(id);
      if (!before) {
        changes++;
        for (const sink of group.sinks) sink.added(id, row.value);
      } else if (before.signature !== row.signature) {
        const fields = {};
        for (const field of Object.keys(row.value)) {
          if (fieldSignature(row.value[field]) !== fieldSignature(before.value[field])) fields[field] = row.value[field];
        }
        changes++;
        for (const sink of group.sinks) sink.changed(id, fields);
      }
    }
    group.rows = next;
    if (changes) this.counters.updates++;
  }

  recordLatency(ms) {
    this.latencies.push(ms);
    if (this.latencies.length > this.options.sampleWindow) this.latencies.shift();
  }

  stats() {
    const perView = {};
    let subscribers = 0;
    for (const group of this.groups.values()) {
      perView[group.viewName] = perView[group.viewName] || { groups: 0, subscribers: 0 };
      perView[group.viewName].groups++;
      perView[group.viewName].subscribers += group.sinks.size;
      subscribers += group.sinks.size;
    }
    const sorted = this.latencies.slice().sort((a, b) => a - b);
    const pick = (p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : null);
    return { groups: this.groups.size, subscribers, perView, ...this.counters, snapshotMs: { p50: pick(50), p95: pick(95), p99: pick(99) } };
  }

  close() {
    this.stopTimer();
    this.groups.clear();
  }
}

module.exports = { PublishHub, HUB_DEFAULTS };
