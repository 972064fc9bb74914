'use strict';
/**
 * The health document: what GET /api/health answers and the `perf` publication sends.
 * Built here (plain Node) so tests can build the exact document the server serves; the Meteor
 * glue passes the parts only Meteor knows (release, sessions, websocket compression) in `runtime`.
 *
 * Everything goes through the redactor last: no password, key or token configured anywhere
 * (broker URLs included) can appear in it, whichever part carried it (see imports/core/redact.js).
 */

/**
 * @param {object} parts
 * @param {object} parts.engine, parts.pipeline                 required
 * @param {object} [parts.persistence, parts.cache, parts.hub, parts.metrics, parts.simulatorFeed, parts.mqttSources]
 * @param {object} [parts.runtime]   extra top-level fields (Meteor: meteorRelease, sessions ...)
 * @param {object} [parts.redactor]  imports/core/redact.js createRedactor()
 * @param {Function} [parts.now]
 */
function buildHealth(parts) {
  const { engine, pipeline, persistence = null, cache = null, hub = null, metrics = null, simulatorFeed = null, mqttSources = null, runtime = {}, redactor = null, now = Date.now } = parts;
  const { meteorRelease, ...runtimeRest } = runtime;
  const document = {
    status: 'ok',
    generatedAt: now(),
    ...(meteorRelease !== undefined ? { meteorRelease } : {}),
    store: engine.store.stats(),
    ingest: pipeline.stats(),
    persistence: persistence ? persistence.stats() : { enabled: false },
    ...(cache ? { cache: cache.stats() } : {}),
    ...(hub ? { publish: hub.stats() } : {}),
    ...runtimeRest,
    sources: {
      simulator: simulatorFeed ? simulatorFeed.stats() : { enabled: false },
      mqtt: mqttSources ? mqttSources.stats() : [],
    },
    // Region-scoped view instances (engine.js RegionScopes): how many, their bytes, refusals.
    ...(engine.regionScopes ? { regionScopes: engine.regionScopes.stats() } : {}),
    // The perf history travels as its own top-level field: the publish hub resends a changed
    // top-level field whole, and the history changes only when a sample is added (every 5 s),
    // while the rest of `perf` changes every second.
    ...(metrics ? { perf: metrics.snapshot({ history: false }), ...(metrics.history ? { perfHistory: metrics.history.toJSON() } : {}) } : {}),
  };
  return redactor ? redactor.deep(document) : document;
}

module.exports = { buildHealth };
