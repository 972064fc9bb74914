'use strict';
const { PROFILE_NAMES } = require('./simulate/profiles');
const { STORE_DEFAULTS } = require('./store');
const { GRACEFUL_STOP_DEFAULTS } = require('./graceful-stop');

/**
 * Every knob MeshPulse has, with its default, in one place. `Meteor.settings` (settings.json)
 * overrides any of them; README "Configuration" documents each. Secrets (API key, channel
 * keys, broker passwords) live outside `public`, so they never reach a client.
 */
const DEFAULT_SETTINGS = {
  sources: {
    // Built-in simulator: a live mesh with no radio at all. `profile`: 'default' (176 nodes,
    // 8 observers) or 'large' (5,200 nodes, 64 observers, 5 regions, 1/2/3-byte hashes; see
    // imports/core/simulate/profiles.js), to see the app at the size of a public mesh.
    simulator: { enabled: true, ratePerSecond: 20, seed: 2026, profile: 'default' },
    // MQTT brokers observers publish to; empty = none.
    mqtt: [],
    // POST /api/packets; disabled unless an API key is set.
    http: { enabled: true, maxBodyBytes: 1024 * 1024, maxBatch: 5000 },
  },
  // Channel keys: `#hashtag` names, or { name, key } with a 16-byte hex key. Public is always known.
  channels: ['#test', '#wardriving', '#bot'],
  store: {
    memoryBudgetMB: 512,
    maxTransmissions: 0,
    // Directory caps (imports/core/directory.js): nodes also never exceed a quarter of the budget.
    directory: { maxNodes: 20000, maxIdleObservers: 1000, maxAgeDays: 30 },
    verifyAdverts: true,
    advertClockWindowHours: 24,
    // View updates run in batches of this many (store.js); 0 runs each report through every view at once.
    viewBatch: STORE_DEFAULTS.viewBatch,
  },
  queue: { batchSize: 128, maxConcurrency: 16, maxLength: 100000 },
  persistence: {
    enabled: true,
    batchSize: 500,
    maxPendingWrites: 200000,
    retentionDays: { transmissions: 30, observations: 30, nodes: 365, observers: 365, droppedPackets: 7 },
    reloadOnStart: true,
  },
  publish: {
    intervalMs: 250,
    timeRefreshMs: 10000,
    noMerge: true,
    // Minimum ms between updates of the large, always-moving views (see publish-hub.js);
    // stats, packets, the live feed, channels and channel messages go at intervalMs.
    viewIntervalMs: { rf: 1000, topology: 1000, hashSizes: 2000, subpaths: 2000, nodes: 1000, bulkHealth: 1000, node: 1000, observers: 1000, channelAnalytics: 2000 },
    // One DDP serialization per shared message for every subscriber of a group
    // (imports/api/ddp/shared-send.js); off = Meteor's public path. Env MESHPULSE_SHARED_SEND=off|on.
    sharedSend: true,
    // permessage-deflate once per distinct message for all sessions (imports/core/shared-deflate.js);
    // off = the package's per-session zlib streams. Env MESHPULSE_SHARED_DEFLATE=off|on.
    sharedDeflate: true,
    // Messages under this many bytes go out as stored (uncompressed) deflate blocks. Env MESHPULSE_DEFLATE_THRESHOLD.
    deflateThresholdBytes: 1024,
    // The zlib level of a message's first deflate through one session's own send (a method's
    // answer); null: the session's level (firstUseLevel, imports/core/shared-deflate.js).
    // Env MESHPULSE_DEFLATE_FIRST_USE_LEVEL=0..9|off.
    deflateFirstUseLevel: 1,
  },
  // Region-scoped view instances (imports/core/analytics/region-scope.js, REGION_SCOPE_DEFAULTS):
  // at most maxInstances at once, one unused for idleMs dropped, at most maxCreationsPerMinute built.
  regionScope: { maxInstances: 16, idleMs: 600000, maxCreationsPerMinute: 120 },
  // On SIGTERM / SIGINT (imports/core/graceful-stop.js): stop the sources, ingest what is queued,
  // write it to MongoDB (giving up after flushTimeoutMs), exit; exit anyway after deadlineMs.
  shutdown: { ...GRACEFUL_STOP_DEFAULTS },
  cache: { ttlMs: 5000, staleWhileRevalidateMs: 30000, maxEntries: 500, viewTtlMs: {} },
  limits: { methodCallsPerSecond: 20, subscriptionsPerSecond: 10, restBodyBytes: 1024 * 1024 },
  http: { compressionThresholdBytes: 1024 },
  // Required for POST /api/packets; set it in settings.json or MESHPULSE_API_KEY.
  apiKey: null,
  public: {
    // Map tiles need the internet; with no URL the map draws a plain projection.
    tileUrl: null,
    defaultDataMode: 'reactive',
    methodRefreshMs: 2000,
  },
};

function isPlainObject(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Deep-merge `overrides` onto the defaults; arrays and scalars replace, objects merge. */
function mergeSettings(defaults, overrides) {
  if (!isPlainObject(overrides)) return structuredClone(defaults);
  const merged = structuredClone(defaults);
  for (const [key, value] of Object.entries(overrides)) {
    merged[key] = isPlainObject(value) && isPlainObject(merged[key]) ? mergeSettings(merged[key], value) : structuredClone(value);
  }
  return merged;
}

function resolveSettings(meteorSettings = {}, env = {}) {
  const settings = mergeSettings(DEFAULT_SETTINGS, meteorSettings);
  if (env.MESHPULSE_API_KEY) settings.apiKey = env.MESHPULSE_API_KEY;
  if (env.MESHPULSE_SIM_RATE) settings.sources.simulator.ratePerSecond = Number(env.MESHPULSE_SIM_RATE);
  if (env.MESHPULSE_SIMULATOR === '0') settings.sources.simulator.enabled = false;
  if (env.MESHPULSE_SIM_PROFILE) settings.sources.simulator.profile = env.MESHPULSE_SIM_PROFILE;
  if (env.MESHPULSE_PUBLISH_INTERVAL_MS) settings.publish.intervalMs = Number(env.MESHPULSE_PUBLISH_INTERVAL_MS);
  if (env.MESHPULSE_PERSISTENCE === '0') settings.persistence.enabled = false;
  if (env.MESHPULSE_MEMORY_MB) settings.store.memoryBudgetMB = Number(env.MESHPULSE_MEMORY_MB);
  // The benchmarks' A/B switches override the settings: 'off' disables, any other value enables.
  if (env.MESHPULSE_SHARED_SEND !== undefined && env.MESHPULSE_SHARED_SEND !== '') settings.publish.sharedSend = env.MESHPULSE_SHARED_SEND !== 'off';
  if (env.MESHPULSE_SHARED_DEFLATE !== undefined && env.MESHPULSE_SHARED_DEFLATE !== '') settings.publish.sharedDeflate = env.MESHPULSE_SHARED_DEFLATE !== 'off';
  if (env.MESHPULSE_DEFLATE_THRESHOLD !== undefined && env.MESHPULSE_DEFLATE_THRESHOLD !== '') settings.publish.deflateThresholdBytes = Number(env.MESHPULSE_DEFLATE_THRESHOLD);
  // 'off': the session's level for every message; a number: that level (createSharedDeflate refuses one outside 0-9).
  const firstUse = env.MESHPULSE_DEFLATE_FIRST_USE_LEVEL;
  if (firstUse !== undefined && firstUse !== '') settings.publish.deflateFirstUseLevel = firstUse === 'off' ? null : Number(firstUse);
  return settings;
}

const MAX_VIEW_BATCH = 1 << 20;

function viewBatchOf(value) {
  if (value === undefined || value === null) return DEFAULT_SETTINGS.store.viewBatch;
  if (!Number.isInteger(value) || value < 0 || value > MAX_VIEW_BATCH) {
    throw new Error(`settings: store.viewBatch is ${JSON.stringify(value)}; it must be an integer from 0 (no batching) to ${MAX_VIEW_BATCH}`);
  }
  return value;
}

/** The PacketStore options (imports/core/store.js) for the `store` settings. */
function storeOptions(store) {
  const directory = store.directory || {};
  return {
    memoryBudgetBytes: store.memoryBudgetMB * 1024 * 1024,
    maxTransmissions: store.maxTransmissions,
    verifyAdverts: store.verifyAdverts !== false,
    advertClockWindowMs: (store.advertClockWindowHours ?? 24) * 3600 * 1000,
    viewBatch: viewBatchOf(store.viewBatch),
    directory: {
      maxNodes: directory.maxNodes,
      maxIdleObservers: directory.maxIdleObservers,
      maxAgeMs: (directory.maxAgeDays ?? 30) * 24 * 3600 * 1000,
    },
  };
}

/**
 * The createSimulator() options for the `sources.simulator` settings. An unknown profile is a
 * configuration error: thrown at start-up with the setting's name and the known profiles, rather
 * than a mesh other than the one asked for.
 */
function simulatorOptions(simulator) {
  const profile = simulator.profile === undefined || simulator.profile === null ? 'default' : simulator.profile;
  if (!PROFILE_NAMES.includes(profile)) {
    throw new Error(`settings: sources.simulator.profile (or MESHPULSE_SIM_PROFILE) is ${JSON.stringify(profile)}; known profiles: ${PROFILE_NAMES.join(', ')}`);
  }
  return { seed: simulator.seed, profile };
}

module.exports = { DEFAULT_SETTINGS, resolveSettings, mergeSettings, storeOptions, simulatorOptions };
