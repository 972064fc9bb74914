'use strict';
/**
 * Shared data sources behind useView and useLivePackets. One source per (kind, view, params,
 * mode), however many components ask for it: two components showing `stats` cost one
 * subscription, and the server (whose publications use NO_MERGE) never sends the same
 * document id twice to this client.
 *
 * Kinds:
 *   view  reactive: subscribe `view.<name>` and read ViewDocuments by viewDocumentId(name, params);
 *         method:   call `view.<name>`(params) now and every refreshMs after the previous answer.
 *   live  reactive: subscribe `packets.live` and read LivePackets newest first (by first-heard time);
 *         method:   call `view.packets`(params) and use its `packets`.
 *
 * A source holds one immutable state { data, loading, error, receivedAt, meta } and tells its
 * listeners at most once per `minNotifyMs` (default 250 ms, so React renders a busy view at
 * most ~4 times a second however fast packets arrive). Everything Meteor-specific comes in
 * through `transport`, so this file runs (and is tested) under plain Node.
 *
 * transport = {
 *   subscribe(publication, params, { onReady, onStop(error) }) -> { stop() },
 *   call(method, params) -> Promise,
 *   observe(kind, documentId, onChange) -> { stop() },   // any change to what read() returns
 *   read(kind, documentId, limit) -> document (view) | rows sorted newest first by time (live),
 * }
 */
const { viewDocumentId, canonical } = require('../../core/view-key');

const DEFAULTS = Object.freeze({
  // Fewest milliseconds between two notifications of one source (the render throttle).
  minNotifyMs: 250,
  // Method mode: pause between an answer and the next call.
  refreshMs: 2000,
  // How long an unused view source stays alive, so a page revisited (or React's strict-mode
  // double mount) does not resubscribe; live sources stop at once (see acquire()).
  lingerMs: 1500,
  // Wait before resubscribing after a rate-limit error that names no reset time.
  retryMs: 1000,
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (id) => clearTimeout(id),
});

const INITIAL_STATE = Object.freeze({ data: null, loading: true, error: null, receivedAt: null, meta: null });

function sourceKey({ kind, name, params, mode }) {
  return `${kind}|${mode}|${name}|${canonical(params || {})}`;
}

/** A plain { message, reason } from whatever a subscription or method threw. */
function describeError(error) {
  if (!error) return null;
  return { message: error.reason || error.message || String(error), error: error.error || null };
}

/** generatedAt / newestPacketAt of what a source shows, for the data-age figure. */
function metaOf(kind, data, receivedAt) {
  if (!data) return null;
  if (kind === 'view' || !Array.isArray(data)) {
    return { generatedAt: data.generatedAt || null, newestPacketAt: data.newestPacketAt || null };
  }
  // Live rows carry no generatedAt: the moment they reached us stands in for it.
  let newest = null;
  for (const row of data) if (row.lastTime && (newest === null || row.lastTime > newest)) newest = row.lastTime;
  return { generatedAt: receivedAt, newestPacketAt: newest };
}

class Source {
  constructor(spec, transport, options) {
    this.spec = spec;
    this.key = sourceKey(spec);
    this.transport = transport;
    this.options = options;
    this.state = INITIAL_STATE;
    this.listeners = new Set();
    this.refs = 0;
    this.stopped = false;
    this.timer = null;
    this.lastNotify = 0;
    this.lingerTimer = null;
    this.callSeq = 0;
  }

  subscribe(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  setState(patch) {
    this.state = Object.freeze({ ...this.state, ...patch });
    for (const listener of Array.from(this.listeners)) listener(this.state);
  }

  start() {
    if (this.spec.mode === 'method') this.poll();
    else this.startReactive();
  }

  startReactive() {
    const { kind, name, params } = this.spec;
    const publication = kind === 'live' ? 'packets.live' : `view.${name}`;
    this.documentId = kind === 'view' ? viewDocumentId(name, params) : null;
    this.ready = false;
    this.subscription = this.transport.subscribe(publication, params, {
      onReady: () => {
        this.ready = true;
        this.flush();
      },
      onStop: (error) => {
        if (this.stopped || !error) return;
        this.setState({ loading: false, error: describeError(error) });
        // The server's per-connection rate limit (fast page switching): subscribe again once it resets.
        if (error.error === 'too-many-requests') {
          const wait = (error.details && error.details.timeToReset) || this.options.retryMs;
          this.stopReactive();
          this.timer = this.options.setTimeout(() => {
            this.timer = null;
            if (!this.stopped) this.startReactive();
          }, wait);
        }
      },
    });
    this.watcher = this.transport.observe(kind, this.documentId, () => this.changed());
  }

  stopReactive() {
    if (this.subscription) this.subscription.stop();
    if (this.watcher) this.watcher.stop();
    this.subscription = null;
    this.watcher = null;
  }

  /** Data changed: notify now, or once the throttle window since the last notification ends. */
  changed() {
    if (this.stopped || this.timer !== null) return;
    const wait = Math.max(0, this.lastNotify + this.options.minNotifyMs - this.options.now());
    this.timer = this.options.setTimeout(() => {
      this.timer = null;
      this.flush();
    }, wait);
  }

  flush() {
    if (this.stopped) return;
    const { kind } = this.spec;
    const data = this.transport.read(kind, this.documentId, this.spec.limit);
    const present = kind === 'view' ? Boolean(data) : this.ready || data.length > 0;
    const receivedAt = this.options.now();
    this.lastNotify = receivedAt;
    this.setState({
      data: present ? data : null,
      loading: !this.ready && !present,
      error: null,
      receivedAt,
      meta: metaOf(kind, present ? data : null, receivedAt),
    });
  }

  async poll() {
    const { kind, name, params } = this.spec;
    const method = kind === 'live' ? 'view.packets' : `view.${name}`;
    const call = ++this.callSeq;
    if (this.timer !== null) {
      this.options.clearTimeout(this.timer);
      this.timer = null;
    }
    try {
      const result = await this.transport.call(method, params);
      if (this.stopped || call !== this.callSeq) return; // a newer call (refresh) is under way
      const data = kind === 'live' ? (result && result.packets) || [] : result;
      const receivedAt = this.options.now();
      const meta = kind === 'live' && result ? { generatedAt: result.generatedAt || receivedAt, newestPacketAt: result.newestPacketAt || null } : metaOf(kind, data, receivedAt);
      this.setState({ data, loading: false, error: null, receivedAt, meta });
    } catch (error) {
      if (this.stopped || call !== this.callSeq) return;
      // Keep the last good data on screen; the error is shown beside it.
      this.setState({ loading: false, error: describeError(error) });
    }
    if (!this.stopped && call === this.callSeq) {
      this.timer = this.options.setTimeout(() => {
        this.timer = null;
        this.poll();
      }, this.spec.refreshMs || this.options.refreshMs);
    }
  }

  /** Method mode: call again now (after a user action). Reactive sources are always current. */
  refresh() {
    if (this.spec.mode === 'method' && !this.stopped) this.poll();
  }

  stop() {
    this.stopped = true;
    if (this.timer !== null) this.options.clearTimeout(this.timer);
    this.timer = null;
    this.stopReactive();
    this.listeners.clear();
  }
}

function createViewSources(transport, overrides = {}) {
  const options = { ...DEFAULTS, ...overrides };
  const sources = new Map();

  /**
   * Get (starting if needed) the source for spec = { kind, name, params, mode, limit, refreshMs }
   * and hold a reference to it; give it back with release().
   */
  function acquire(spec) {
    const key = sourceKey(spec);
    let source = sources.get(key);
    if (!source) {
      source = new Source(spec, transport, options);
      sources.set(key, source);
      source.start();
    }
    if (source.lingerTimer !== null) {
      options.clearTimeout(source.lingerTimer);
      source.lingerTimer = null;
    }
    source.refs++;
    return source;
  }

  function release(source) {
    source.refs--;
    if (source.refs > 0) return;
    const stop = () => {
      source.lingerTimer = null;
      if (source.refs > 0) return;
      source.stop();
      if (sources.get(source.key) === source) sources.delete(source.key);
    };
    // Live rows share one client collection: the old feed must be gone before the next one starts.
    if (source.spec.kind === 'live' || options.lingerMs <= 0) stop();
    else source.lingerTimer = options.setTimeout(stop, options.lingerMs);
  }

  function refreshAll() {
    for (const source of sources.values()) if (source.refs > 0) source.refresh();
  }

  /** The sources someone is looking at, for the data-age figure. */
  function active() {
    return Array.from(sources.values()).filter((source) => source.refs > 0);
  }

  return { acquire, release, peek, refreshAll, active, size: () => sources.size };

  /** Current state of a source without holding it (INITIAL_STATE when there is none yet). */
  function peek(key) {
    const source = sources.get(key);
    return source ? source.state : INITIAL_STATE;
  }
}

module.exports = { createViewSources, sourceKey, describeError, metaOf, INITIAL_STATE, VIEW_SOURCE_DEFAULTS: DEFAULTS };
