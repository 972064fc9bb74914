/**
 * Server wiring: settings -> engine -> persistence (reload, then write-behind) -> pipeline ->
 * sources (simulator, MQTT, HTTP) -> publications, methods, REST, health.
 * Each piece lives in its own module; this file only connects them, in start-up order.
 */
import { Meteor } from 'meteor/meteor';
import { WebApp } from 'meteor/webapp';
import { resolveSettings, storeOptions, simulatorOptions } from '/imports/core/settings';
import { createEngine } from '/imports/core/engine';
import { createViewCache } from '/imports/core/cache';
import { PublishHub } from '/imports/core/publish-hub';
import { createPerfMetrics } from '/imports/core/perf';
import { describeWebsocketCompression } from '/imports/core/compression';
import { createPipeline } from '/imports/ingest/pipeline';
import { createSimulatorFeed } from '/imports/ingest/simulator-feed';
import { createMqttSources } from '/imports/ingest/mqtt';
import { createPacketsHandler } from '/imports/ingest/http';
import { registerViewPublications } from '/imports/api/views/publications';
import { createSharedSender, installSharedDeflate } from '/imports/api/ddp/shared-send';
import { createSharedDeflate } from '/imports/core/shared-deflate';
import { registerViewMethods } from '/imports/api/views/methods';
import { registerRateLimits } from '/imports/api/views/rate-limits';
import { registerRestApi } from '/imports/api/views/http';
import { registerSpecApi } from '/imports/api/rest/spec';
import { startPersistence } from '/imports/api/packets/persistence';
import { createRedactor, collectSecrets } from '/imports/core/redact';
import { buildHealth } from '/imports/core/health';
import { observerStatusOf } from '/imports/core/observer-status';
import { createGracefulStop, serverStopSteps } from '/imports/core/graceful-stop';

// Every log line and health answer goes through this; it learns the secrets from the settings.
const redactor = createRedactor();
const log = redactor.log({
  info: (...args) => console.log('[meshpulse]', ...args),
  warn: (...args) => console.warn('[meshpulse]', ...args),
  error: (...args) => console.error('[meshpulse]', ...args),
});

function handlersOf(webApp) {
  // Meteor 3 names the Express app `handlers`; `connectHandlers` is its older alias.
  return webApp.handlers || webApp.connectHandlers;
}

Meteor.startup(async () => {
  const settings = resolveSettings(Meteor.settings, process.env);
  redactor.addSecrets(collectSecrets(settings, process.env));
  const simulatorSettings = settings.sources.simulator;

  // The simulator's channels are added to the keyring so its group messages decrypt.
  let simulatorFeed = null;
  const channels = [...settings.channels];
  const engineHolder = {};
  const pipelineHolder = {};
  // Observer status messages (MQTT `.../status`, the simulator) feed the `observer` view's book.
  const recordObserverStatus = (status) => {
    if (engineHolder.engine) observerStatusOf(engineHolder.engine.store).record(status);
  };
  if (simulatorSettings.enabled) {
    simulatorFeed = createSimulatorFeed({
      pipeline: { submitMessage: (...args) => pipelineHolder.pipeline.submitMessage(...args) },
      simulator: simulatorOptions(simulatorSettings),
      ratePerSecond: simulatorSettings.ratePerSecond,
      // Every simulated observer's status once a minute, like meshcoretomqtt's status topic.
      onStatus: (status) => recordObserverStatus(status),
    });
    for (const channel of simulatorFeed.channels) {
      if (!channels.some((c) => (c.name || c) === channel.name)) channels.push({ name: channel.name, key: channel.key });
    }
  }

  const engine = createEngine({
    channels,
    store: storeOptions(settings.store),
    regionScope: settings.regionScope,
  });
  engineHolder.engine = engine;
  const metrics = createPerfMetrics();
  const cache = createViewCache({
    ttlMs: settings.cache.ttlMs,
    viewTtlMs: settings.cache.viewTtlMs,
    staleWhileRevalidate: settings.cache.staleWhileRevalidateMs,
    maxEntries: settings.cache.maxEntries,
  });

  const persistence = settings.persistence.enabled ? await startPersistence({ engine, settings, log }) : null;

  const pipeline = createPipeline({ engine, persistence, queue: settings.queue, log });
  pipelineHolder.pipeline = pipeline;

  // Snapshots carry when they were made and the newest packet they include, so a client can
  // show how old its data is and a load test can measure ingest-to-screen delay.
  const decorate = (viewName, snapshot) => ({
    ...snapshot,
    generatedAt: Date.now(),
    newestPacketAt: engine.store.lastTime || null,
  });

  let mqttSources = null;
  const perfView = {
    snapshot: () => health(),
  };
  const hub = new PublishHub((name) => {
    if (name === 'perf') {
      return { normalizeParams: () => ({}), versionFor: () => Math.floor(Date.now() / 1000), snapshot: () => health() };
    }
    const view = engine.views.get(name);
    if (!view) return null;
    return {
      normalizeParams: view.normalizeParams,
      versionFor: (params) => view.versionFor(params),
      snapshot: (params, now) => decorate(name, view.snapshot(params, now)),
    };
  }, { publishIntervalMs: settings.publish.intervalMs, viewIntervalMs: settings.publish.viewIntervalMs, timeRefreshMs: settings.publish.timeRefreshMs, onError: (err, group) => log.error(`publish ${group.key}:`, err.message) });

  /**
   * What each open DDP connection actually negotiated: a websocket whose driver activated an
   * extension (permessage-deflate) counts as `deflate`. The path into SockJS and faye's driver
   * is internal, so anything unexpected counts as `unknown` rather than guessing.
   */
  function negotiatedCompression() {
    const counts = { deflate: 0, none: 0, unknown: 0 };
    for (const session of Meteor.server.sessions.values()) {
      try {
        // Raw websockets (/websocket, what Meteor's client uses) keep the faye socket on the
        // SockJS session itself; SockJS-framed websockets keep it on the receiver.
        const sockjsSession = session.socket._session;
        const driver = (sockjsSession.ws || sockjsSession.recv.ws)._driver;
        const sessions = driver._extensions && driver._extensions._sessions;
        if (!Array.isArray(sessions)) counts.unknown++;
        else if (sessions.length > 0) counts.deflate++;
        else counts.none++;
      } catch (err) {
        counts.unknown++; // long-polling transports, or SockJS internals changed
      }
    }
    return counts;
  }

  // One serialization per shared DDP message for every subscriber of a (view, params) group;
  // settings.publish.sharedSend false (or MESHPULSE_SHARED_SEND=off) forces Meteor's public path (A/B studies).
  const ddpCommon = typeof Package !== 'undefined' && Package['ddp-common'] ? Package['ddp-common'].DDPCommon : null;
  const sharedSender = createSharedSender({
    server: Meteor.server,
    stringifyDDP: ddpCommon && ddpCommon.stringifyDDP,
    meteor: Meteor,
    enabled: settings.publish.sharedSend !== false,
  });
  // permessage-deflate once per distinct message for all sessions, small messages stored:
  // settings.publish.sharedDeflate false (or MESHPULSE_SHARED_DEFLATE=off) keeps the package's own
  // per-session zlib streams; the threshold is settings.publish.deflateThresholdBytes (or MESHPULSE_DEFLATE_THRESHOLD),
  // the first-use level settings.publish.deflateFirstUseLevel (or MESHPULSE_DEFLATE_FIRST_USE_LEVEL).
  let sharedDeflate = null;
  let sharedDeflateInstall = { installed: false, reason: 'disabled (settings.publish.sharedDeflate false or MESHPULSE_SHARED_DEFLATE=off)' };
  if (settings.publish.sharedDeflate !== false) {
    const threshold = settings.publish.deflateThresholdBytes;
    // resolveSettings merges over DEFAULT_SETTINGS, so the first-use level is always there (1, a level, or null).
    sharedDeflate = createSharedDeflate({
      ...(threshold === undefined || threshold === null ? {} : { thresholdBytes: Number(threshold) }),
      firstUseLevel: settings.publish.deflateFirstUseLevel,
    });
    // Deflated sessions then get shared pre-built frames too (imports/api/ddp/shared-send.js).
    const installed = (result) => {
      sharedDeflateInstall = result;
      if (result.installed) sharedSender.useSharedDeflate(sharedDeflate);
      else if (!result.pending) log.info(`shared deflate not installed: ${result.reason}`);
    };
    // Meteor 3.5 keeps no handle on its SockJS server: the install then waits for the first
    // websocket connection (onLateResult). MESHPULSE_SHARED_DEFLATE_INSTALL=first-connection takes
    // that path on an older Meteor too (tests/e2e/preframed.test.js checks it on the Meteor at hand).
    installed(installSharedDeflate(Meteor.server, sharedDeflate, {
      firstConnection: process.env.MESHPULSE_SHARED_DEFLATE_INSTALL === 'first-connection',
      onLateResult: installed,
    }));
  }

  /** GET /api/health and the `perf` publication: imports/core/health.js, redacted. */
  function health() {
    return buildHealth({
      engine, pipeline, persistence, cache, hub, metrics, simulatorFeed, mqttSources, redactor,
      runtime: {
        meteorRelease: Meteor.release,
        sessions: Meteor.server.sessions.size,
        sharedSend: sharedSender.stats(),
        sharedDeflate: { ...sharedDeflateInstall, ...(sharedDeflate ? sharedDeflate.stats() : {}) },
        websocketCompression: { ...describeWebsocketCompression(process.env.SERVER_WEBSOCKET_COMPRESSION), negotiated: negotiatedCompression() },
        asyncQueue: {
          batchSize: process.env.METEOR_ASYNC_QUEUE_BATCH_SIZE || 'meteor default',
          maxConcurrency: process.env.METEOR_ASYNC_QUEUE_MAX_CONCURRENT || 'meteor default',
        },
      },
    });
  }
  // The perf history samples the whole health document (ingest rate, queue depth, publish latency).
  metrics.startHistory(health);

  const viewNames = Array.from(engine.views.keys());
  const publications = registerViewPublications({ hub, viewNames: [...viewNames, 'perf'], settings, sharedSender });
  const methods = registerViewMethods({ engine, cache, decorate, metrics, extraViews: { perf: perfView } });
  registerRateLimits({ methods, publications, settings });
  registerRestApi({
    handlers: handlersOf(WebApp), engine, cache, decorate, health, settings,
    packetsHandler: createPacketsHandler({ pipeline, apiKey: settings.apiKey, maxBodyBytes: settings.sources.http.maxBodyBytes, maxBatch: settings.sources.http.maxBatch }),
  });
  registerSpecApi({ handlers: handlersOf(WebApp), engine, settings });

  // Pre-warm the method cache so the first dashboard call is a hit.
  for (const name of viewNames) {
    const view = engine.views.get(name);
    const params = (() => { try { return view.normalizeParams({}); } catch (err) { return null; } })();
    if (params) cache.warm(name, params, view.versionFor(params), () => decorate(name, view.snapshot(params, Date.now()))).catch(() => {});
  }

  if (settings.sources.mqtt.length) {
    mqttSources = createMqttSources({ brokers: settings.sources.mqtt, pipeline, log, redactor, onStatus: recordObserverStatus });
  }
  if (simulatorFeed) {
    simulatorFeed.start();
    log.info(`simulator feed on at ${simulatorSettings.ratePerSecond} reports/s (settings.sources.simulator)`);
  }
  log.info(`ready: ${viewNames.length} views, ${engine.store.size} transmissions in memory`);

  // SIGTERM / SIGINT (systemd, Docker, `npm start`'s Ctrl-C, Meteor's restart on a file change):
  // Node's default was to die at once, losing the reports still queued and the write-behind
  // batches not yet in MongoDB, which the sources had already acknowledged. Now: free the port
  // (a restarted server can listen while this one finishes), stop the sources (MQTT's unacked
  // messages come again on the next connection), ingest what is queued, write it, exit.
  const graceful = createGracefulStop({
    deadlineMs: settings.shutdown.deadlineMs,
    log,
    steps: serverStopSteps({
      // Stops listening at once; open websockets stay until the exit (clients reconnect).
      closeListener: () => { if (WebApp.httpServer && WebApp.httpServer.listening) WebApp.httpServer.close(); },
      simulatorFeed,
      mqttSources,
      pipeline,
      persistence,
      flushTimeoutMs: settings.shutdown.flushTimeoutMs,
    }),
  });
  for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => graceful.stop(signal));
});
