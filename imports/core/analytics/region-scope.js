'use strict';
/**
 * Region scoping for every view: `region` (an observer region, the `<region>` of the MQTT topic
 * meshcore/<region>/<observer>/packets) is accepted by every view's params, with no change to
 * the view files.
 *
 * A view that declares `region` in its own params spec (packets, observers) answers it itself.
 * For every other view, a snapshot with a region is answered by a region-scoped instance of the
 * view: the view's own code, created on demand over a region store, a PacketStore holding only
 * the observations of that region's observers (and the transmissions they belong to):
 *   - created when a snapshot (or version) with that region is first asked for, catching up on
 *     the stored transmissions the region's observers heard (store.byObserver), replayed in the
 *     order they were heard (observation time, then store order);
 *   - fed afterwards with each stored observation whose observer is in the region, and emptied
 *     as the main store evicts (oldest first: see `drainEvicted` for the one lag);
 *   - so every view, including those that read store indexes and the node directory in
 *     snapshot() (node, nodes, stats, prefixes, subpaths, ...), computes on exactly what a store
 *     fed only that region's reports would hold. Each transmission is a copy carrying the path
 *     the region's first observer heard (raw bytes, hop count and size rebuilt to match).
 *
 * Bounded: at most `maxInstances` scoped view instances (least recently used dropped first), an
 * instance unused for `idleMs` is dropped, and a region store goes with its last instance. All of
 * it (region stores, their directories, every scoped view's state) is charged to the main
 * store's memory account under the part `regionScopes`, so the store's budget bounds it too.
 * A region no observer has reported under answers from one never-fed empty store: an empty
 * result, not an error, and no instance used up.
 */
const { PacketStore, rawHex } = require('../store');
const { MemoryAccount } = require('../memory-account');
const { INPUT_LIMITS, checkText } = require('../input-limits');
const { ParamError } = require('./view');

const REGION_SCOPE_DEFAULTS = Object.freeze({
  // Scoped view instances held at once (a (view, region) pair is one); least recently used out.
  maxInstances: 16,
  // An instance no snapshot or version check asked for in this long is dropped.
  idleMs: 10 * 60 * 1000,
  // Idle instances are also looked for every this many observations fed (not only on reads).
  sweepEveryObservations: 4096,
  // New scoped instances per minute: each one catches up on the region's stored packets, so a
  // client cycling through more (view, region) pairs than maxInstances would otherwise make the
  // server rebuild them without end. Past it a request gets RegionScopeBusy (retry shortly).
  maxCreationsPerMinute: 120,
});

/** Too many scoped instances were created in the last minute; shaped like a Meteor.Error. */
class RegionScopeBusy extends Error {
  constructor(viewName, region, limit) {
    super(`view "${viewName}" for region ${JSON.stringify(region)}: ${limit} region-scoped instances were created in the last minute (maxCreationsPerMinute); retry in a minute`);
    this.name = 'RegionScopeBusy';
    this.error = 'region-scope-busy';
    this.reason = this.message;
    this.retryAfterSeconds = 60;
  }
}

const TRACE = 9;
// What input-limits.js accepts as a region: at most 64 printable characters. Shown in OpenAPI.
const REGION_PATTERN = /^[^\u0000-\u001f\u007f-\u009f\u2028\u2029]*$/;
const REGION_PARAM = Object.freeze({ type: 'string', maxLength: INPUT_LIMITS.regionLength, pattern: REGION_PATTERN });
// A region store never evicts by itself: it mirrors the main store, which the budget bounds.
const UNBOUNDED_BYTES = Number.MAX_SAFE_INTEGER;

/** The params spec with `region` (a view that has its own keeps its own rule). */
function withRegionParam(spec) {
  return Object.prototype.hasOwnProperty.call(spec, 'region') ? spec : { ...spec, region: REGION_PARAM };
}

/** Does the view answer `region` itself (it declares it in its own params)? */
function handlesRegion(definition) {
  return Object.prototype.hasOwnProperty.call(definition.paramsSpec || {}, 'region');
}

/** null (no region), or the region; throws a ParamError for one input-limits.js would refuse. */
function regionOf(viewName, raw) {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return null;
  const region = raw.region;
  if (region === undefined || region === null || region === '') return null;
  if (typeof region !== 'string') throw new ParamError(viewName, 'region', 'must be a string');
  if (!checkText(region, INPUT_LIMITS.regionLength)) throw new ParamError(viewName, 'region', `must be at most ${INPUT_LIMITS.regionLength} printable characters`);
  return region;
}

function withoutRegion(raw) {
  const rest = { ...raw };
  delete rest.region;
  return rest;
}

function samePath(a, b) {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

// The fields of a decoded packet (decode.js), read one by one so that a stored record whose
// fields are getters over its raw bytes copies as well as a plain decoded object.
const DECODED_FIELDS = ['hash', 'routeType', 'payloadType', 'payloadVersion', 'transportCodes', 'hashSize', 'hopCount', 'path', 'size', 'payloadOffset',
  'advert', 'srcHash', 'destHash', 'channelHash', 'message', 'trace', 'ackChecksum', 'controlSubtype'];

/**
 * The transmission as the region's first observer heard it: the stored decode with this path,
 * and the raw bytes, hop count, size and payload offset that go with it. TRACE keeps the stored
 * per-hop SNR bytes (an observation does not keep them).
 */
function regionCopy(tx, path) {
  const packet = {};
  for (const field of DECODED_FIELDS) packet[field] = tx[field] === undefined ? null : tx[field];
  packet.seq = 0;
  packet.time = 0;
  packet.raw = null;
  packet.observations = null;
  if (packet.payloadType === TRACE || samePath(path, packet.path)) return { packet, hex: rawHex(tx) };
  const bytes = Buffer.from(tx.raw, 'latin1');
  const pathStart = packet.payloadOffset - packet.hopCount * packet.hashSize;
  const hops = Buffer.from(path.join(''), 'hex');
  const rebuilt = Buffer.concat([bytes.subarray(0, pathStart - 1), Buffer.from([(bytes[pathStart - 1] & 0xc0) | path.length]), hops, bytes.subarray(packet.payloadOffset)]);
  packet.path = path;
  packet.hopCount = path.length;
  packet.size = rebuilt.length;
  packet.payloadOffset = pathStart + hops.length;
  return { packet, hex: rebuilt.toString('hex') };
}

/** The report an observation came from, as the region store ingests it. */
function reportOf(observation, region) {
  const observer = observation.observer;
  return {
    observerId: observer.id, observerName: observer.name, region,
    snr: observation.snr, rssi: observation.rssi, score: observation.score, direction: observation.direction, time: observation.time,
  };
}

class RegionScopes {
  /**
   * `store`: the main PacketStore; `definitions`: the view definitions the engine serves;
   * options: REGION_SCOPE_DEFAULTS, plus `clock` (ms, for idle times; Date.now).
   */
  constructor(store, definitions, options = {}) {
    this.store = store;
    this.definitions = new Map(definitions.map((definition) => [definition.name, definition]));
    this.options = { ...REGION_SCOPE_DEFAULTS };
    for (const [key, value] of Object.entries(options)) if (value !== undefined && value !== null && key !== 'clock') this.options[key] = value;
    this.clock = options.clock || Date.now;
    this.regions = new Map(); // region -> { region, store, entries: Map(view -> entry), evicted: Set, charged }
    this.instances = 0;
    this.empty = null; // { store, entries } for regions nobody reports under
    // Versions handed out for scoped snapshots never repeat across an instance dropped and
    // created again: a new instance's versions start above every version handed out before.
    this.highWater = 0;
    this.part = null; // the main account's `regionScopes` part, created on first use
    this.fedSinceSweep = 0;
    this.creations = []; // times of recent creations, oldest first (at most maxCreationsPerMinute)
    this.counters = { created: 0, droppedOverCap: 0, droppedIdle: 0, regionStoresCreated: 0, catchUpObservations: 0, evictionsDeferred: 0, heardAgainWhileWaiting: 0, emptyAnswers: 0, refusedBusy: 0, failures: 0 };
    this.lastError = null;
    // Registered with the main store like a view: every stored observation, every eviction.
    this.feeder = {
      name: 'regionScopes',
      apply: (tx, observation) => this.onApply(tx, observation),
      evict: (tx) => this.onEvict(tx),
    };
  }

  /**
   * What the engine registers under the view's name: the view itself for snapshots without a
   * region (or a view that handles region itself), its region-scoped instance otherwise.
   */
  wrap(definition, base) {
    const scopes = this;
    const name = definition.name;
    const own = handlesRegion(definition);
    const paramsSpec = withRegionParam(base.paramsSpec);
    function normalizeParams(raw) {
      const region = regionOf(name, raw);
      if (own) return base.normalizeParams(raw);
      const params = base.normalizeParams(raw && typeof raw === 'object' && !Array.isArray(raw) ? withoutRegion(raw) : raw);
      params.region = region;
      return params;
    }
    return {
      name,
      paramsSpec,
      scopedByRegion: !own,
      base,
      get state() { return base.state; },
      get version() { return base.version; },
      apply: (tx, observation, store) => base.apply(tx, observation, store),
      evict: (tx, store) => base.evict(tx, store),
      normalizeParams,
      snapshot(rawParams, now = Date.now()) {
        const params = normalizeParams(rawParams);
        if (own || params.region === null) return base.snapshot(own ? params : withoutRegion(params), now);
        return scopes.instanceFor(name, params.region).instance.snapshot(withoutRegion(params), now);
      },
      versionFor(rawParams) {
        const params = normalizeParams(rawParams);
        if (own || params.region === null) return base.versionFor(own ? params : withoutRegion(params));
        const entry = scopes.instanceFor(name, params.region);
        const version = entry.base + entry.instance.versionFor(withoutRegion(params));
        if (version > scopes.highWater) scopes.highWater = version;
        return version;
      },
    };
  }

  /** The scoped instance entry of a view for a region, created (and caught up) when missing. */
  instanceFor(viewName, region) {
    // Held updates first: a region store caught up from the main store must not then be fed
    // the same observations again by the feeder (store.js flushViews).
    this.store.flushViews();
    const now = this.clock();
    // The instance asked for is in use, however long it was idle: touch it before the sweep.
    const asked = this.regions.get(region);
    if (asked !== undefined && asked.entries.has(viewName)) asked.entries.get(viewName).lastUsed = now;
    this.sweepIdle(now);
    let scope = this.regions.get(region);
    let created = false;
    if (!scope) {
      if (!this.isReported(region)) return this.emptyInstance(viewName);
      this.spendCreation(viewName, region, now);
      scope = this.createScope(region);
      created = true;
    }
    let entry = scope.entries.get(viewName);
    if (!entry) {
      try {
        if (!created) this.spendCreation(viewName, region, now);
        this.makeRoom(scope);
        entry = this.createEntry(scope, this.definitions.get(viewName));
      } catch (err) {
        // A region store with no instance would be fed for nothing: it goes with the failure.
        if (scope.entries.size === 0) this.dropScope(scope);
        throw err;
      }
      this.instances++;
      this.counters.created++;
      this.charge(scope);
    }
    entry.lastUsed = now;
    return entry;
  }

  /** Count one creation (a region store, or an instance) against maxCreationsPerMinute. */
  spendCreation(viewName, region, now) {
    const recent = this.creations;
    while (recent.length > 0 && now - recent[0] >= 60000) recent.shift();
    if (recent.length >= this.options.maxCreationsPerMinute) {
      this.counters.refusedBusy++;
      throw new RegionScopeBusy(viewName, region, this.options.maxCreationsPerMinute);
    }
    recent.push(now);
  }

  /** Has any observer in the directory reported under this region? */
  isReported(region) {
    for (const observer of this.store.observers.values()) if (observer.region === region) return true;
    return false;
  }

  emptyInstance(viewName) {
    this.counters.emptyAnswers++;
    if (!this.empty) this.empty = { store: this.newRegionStore(), entries: new Map() };
    let entry = this.empty.entries.get(viewName);
    if (!entry) {
      entry = this.createEntry(this.empty, this.definitions.get(viewName));
      this.empty.entries.set(viewName, entry);
    }
    return entry;
  }

  newRegionStore() {
    const main = this.store;
    return new PacketStore({
      ...main.options,
      memoryBudgetBytes: UNBOUNDED_BYTES,
      maxTransmissions: 0,
      // Fed from inside the main store's flush: a view that throws must throw in feed(), which
      // drops the region store (fail), not be held for a later read.
      viewBatch: 0,
      directory: { ...main.options.directory, maxNodes: main.directory.options.maxNodes },
      keyring: main.keyring,
      now: main.now,
    });
  }

  /** A region store caught up on what the region's observers heard, in the order they heard it. */
  createScope(region) {
    const scope = { region, store: this.newRegionStore(), entries: new Map(), evicted: new Set(), charged: 0 };
    const heard = [];
    for (const observer of this.store.observers.values()) {
      if (observer.region !== region) continue;
      const deque = this.store.byObserver.get(observer.id);
      if (!deque) continue;
      deque.forEachOldest((tx) => {
        const observations = tx.observations;
        for (let i = 0; i < observations.length; i++) if (observations[i].observer === observer) heard.push({ tx, observation: observations[i], index: i });
      });
    }
    // Store time is monotone in arrival order, so time then store order then arrival within a
    // transmission replays the region's reports as they came (ties at one millisecond aside).
    heard.sort((a, b) => a.observation.time - b.observation.time || a.tx.seq - b.tx.seq || a.index - b.index);
    for (const { tx, observation } of heard) this.feed(scope, tx, observation);
    this.counters.catchUpObservations += heard.length;
    this.counters.regionStoresCreated++;
    this.regions.set(region, scope);
    return scope;
  }

  /**
   * One view instance over the region store. Its state is created against a facade of that
   * store with its own memory account, so that dropping the instance refunds exactly what it
   * held (and views that share per-store state, like the node tracker, get their own).
   */
  createEntry(scope, definition) {
    const account = new MemoryAccount();
    const facade = Object.create(scope.store);
    facade.memory = account;
    const instance = definition.create(facade);
    try {
      scope.store.addView(instance); // catches up on the region store
    } catch (err) {
      const at = scope.store.views.indexOf(instance);
      if (at >= 0) scope.store.views.splice(at, 1);
      throw err;
    }
    const entry = { viewName: definition.name, instance, account, base: this.highWater + 1, lastUsed: this.clock() };
    this.highWater = entry.base;
    scope.entries.set(definition.name, entry);
    return entry;
  }

  /** Drop least recently used instances until one more fits (`keep`: the region store about to get it stays). */
  makeRoom(keep) {
    while (this.instances >= this.options.maxInstances) {
      let oldest = null;
      for (const scope of this.regions.values()) {
        for (const entry of scope.entries.values()) if (oldest === null || entry.lastUsed < oldest.entry.lastUsed) oldest = { scope, entry };
      }
      if (oldest === null) return;
      this.dropEntry(oldest.scope, oldest.entry, oldest.scope === keep);
      this.counters.droppedOverCap++;
    }
  }

  sweepIdle(now) {
    this.fedSinceSweep = 0;
    for (const scope of Array.from(this.regions.values())) {
      for (const entry of Array.from(scope.entries.values())) {
        if (now - entry.lastUsed > this.options.idleMs) {
          this.dropEntry(scope, entry);
          this.counters.droppedIdle++;
        }
      }
    }
  }

  dropEntry(scope, entry, keepScope = false) {
    const views = scope.store.views;
    const at = views.indexOf(entry.instance);
    if (at >= 0) views.splice(at, 1);
    scope.entries.delete(entry.viewName);
    this.instances--;
    // Its versions reach at most base + its overall version.
    this.highWater = Math.max(this.highWater, entry.base + entry.instance.version);
    if (scope.entries.size === 0 && !keepScope) this.dropScope(scope);
    else this.charge(scope);
  }

  dropScope(scope) {
    this.regions.delete(scope.region);
    if (this.part) this.part.add(-scope.charged);
    scope.charged = 0;
  }

  /** Keep the main account's `regionScopes` part equal to what the region stores hold. */
  charge(scope) {
    let bytes = scope.store.memory.total;
    for (const entry of scope.entries.values()) bytes += entry.account.total;
    if (bytes === scope.charged) return;
    if (!this.part) this.part = this.store.memory.part('regionScopes');
    this.part.add(bytes - scope.charged);
    scope.charged = bytes;
  }

  /** One observation into a region store, as that region's report. */
  feed(scope, tx, observation) {
    const store = scope.store;
    const report = reportOf(observation, scope.region);
    const copy = store.byHash.get(tx.hash);
    if (copy !== undefined) {
      // A transmission the store evicted and then heard again while its region copy still
      // waits to leave (a budget holding seconds of traffic): a repeat of that copy, as a store
      // fed only the region's reports would count it.
      if (scope.evicted.has(copy)) this.counters.heardAgainWhileWaiting++;
      store.insertDecoded({ hash: tx.hash, path: observation.path }, null, report);
      return;
    }
    const { packet, hex } = regionCopy(tx, observation.path);
    store.insertDecoded(packet, hex, report);
  }

  onApply(tx, observation) {
    if (this.regions.size === 0) return;
    if (++this.fedSinceSweep >= this.options.sweepEveryObservations) this.sweepIdle(this.clock());
    const region = observation.observer.region;
    if (!region) return;
    const scope = this.regions.get(region);
    if (!scope) return;
    try {
      this.feed(scope, tx, observation);
      this.charge(scope);
    } catch (err) {
      this.fail(scope, err);
    }
  }

  /**
   * A scoped view that throws while fed must not break ingest into the store: its region store
   * (whose state may now be half-updated) is dropped, counted, and built again on the next read.
   */
  fail(scope, err) {
    this.counters.failures++;
    this.lastError = { region: scope.region, message: err && err.message ? String(err.message).slice(0, 300) : String(err), at: this.clock() };
    for (const entry of Array.from(scope.entries.values())) this.dropEntry(scope, entry, true);
    this.dropScope(scope);
  }

  onEvict(tx) {
    if (this.regions.size === 0) return;
    for (const scope of Array.from(this.regions.values())) {
      const copy = scope.store.byHash.get(tx.hash);
      if (copy === undefined) continue;
      try {
        scope.evicted.add(copy);
        this.drainEvicted(scope);
        this.charge(scope);
      } catch (err) {
        this.fail(scope, err);
      }
    }
  }

  /**
   * Evict from the region store every transmission at its front that the main store evicted.
   * The region store is in the region's first-heard order, the main store in first-heard-anywhere
   * order: a transmission the main store evicted waits here (`deferred`) behind one the region
   * heard earlier that the main store still holds (seconds of reporting delay, at the edge).
   */
  drainEvicted(scope) {
    const store = scope.store;
    for (let first = store.fifo.first(); first !== undefined && scope.evicted.has(first); first = store.fifo.first()) {
      scope.evicted.delete(first);
      store.evictOldest();
    }
    if (scope.evicted.size > 0) this.counters.evictionsDeferred++;
  }

  /** For /api/health and the Perf page. */
  stats() {
    const regions = [];
    for (const scope of this.regions.values()) {
      regions.push({ region: scope.region, views: Array.from(scope.entries.keys()), transmissions: scope.store.size, evictedWaiting: scope.evicted.size, bytes: Math.round(scope.charged) });
    }
    return { instances: this.instances, maxInstances: this.options.maxInstances, idleMs: this.options.idleMs, bytes: this.part ? Math.round(this.part.bytes) : 0, regions, ...this.counters, lastError: this.lastError };
  }
}

module.exports = { RegionScopes, RegionScopeBusy, REGION_SCOPE_DEFAULTS, REGION_PARAM, withRegionParam, handlesRegion, regionCopy };
