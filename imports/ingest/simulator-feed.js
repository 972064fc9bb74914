'use strict';
/**
 * A live feed from the synthetic mesh (imports/core/simulate.js), for demos and load tests.
 * Each simulated observer report goes through `pipeline.submitMessage(topic, JSON)`, the very
 * path MQTT messages take, so the simulator exercises parsing, the queue and the store alike.
 * Every `statusEveryMs` each observer also publishes a `status` message (simulate/status.js),
 * parsed as the MQTT source parses one and handed to `onStatus` in the same shape.
 *
 *   const feed = createSimulatorFeed({ pipeline, simulator: { seed: 7 }, ratePerSecond: 50 });
 *   const engine = createEngine({ channels: feed.channels });  // so group texts decrypt
 *   feed.start();  ...  feed.stop();
 */
const { createSimulator } = require('../core/simulate');
const { parseStatusMessage } = require('../core/observer-message');
const { statusFromMessage } = require('../core/observer-status');

/** Every option of createSimulatorFeed() besides pipeline, with its default. */
const FEED_DEFAULTS = Object.freeze({
  // Options for createSimulator() (seed, profile, observers ...; see simulate/profiles.js).
  // The feed starts with every node's advert, so names show within seconds (override with
  // `startupAdverts: false`).
  simulator: Object.freeze({}),
  // Observer reports per second.
  ratePerSecond: 20,
  // Stop by itself after this many reports or this much wall time (Infinity = run until stop()).
  count: Infinity,
  durationMs: Infinity,
  // Restamp each report's timestamp with the wall clock, so the feed looks live.
  wallClock: true,
  // Source label the pipeline records with each report.
  source: 'simulator',
  // (status) for each observer status message, the shape MQTT's onStatus gets; null = none.
  onStatus: null,
  // How often every observer publishes its status (wall time; 0 = never).
  statusEveryMs: 60 * 1000,
});

/**
 * @param {object} options
 * @param {object} options.pipeline   imports/ingest/pipeline.js
 * @returns {{ start, stop, stats, channels, simulator }}
 */
function createSimulatorFeed(options = {}) {
  const { pipeline } = options;
  if (!pipeline || typeof pipeline.submitMessage !== 'function') throw new TypeError('createSimulatorFeed: pipeline with submitMessage() is required');
  const settings = { ...FEED_DEFAULTS };
  for (const name of Object.keys(FEED_DEFAULTS)) if (options[name] !== undefined) settings[name] = options[name];
  const simulator = createSimulator({ startupAdverts: true, ...settings.simulator });
  const counters = { emitted: 0, rejected: 0, runs: 0, statuses: 0, statusErrors: 0 };
  let stopRun = null;
  let statusTimer = null;

  /** Every observer's status, through the same parser as MQTT's status topic. */
  function publishStatuses() {
    if (typeof settings.onStatus !== 'function') return;
    const time = settings.wallClock ? Date.now() : simulator.time;
    for (const message of simulator.statusMessages(time)) {
      const status = statusFromMessage(parseStatusMessage(message.topic, JSON.stringify(message.payload)), time, settings.source);
      if (status === null) {
        counters.statusErrors++;
        continue;
      }
      counters.statuses++;
      try {
        settings.onStatus(status);
      } catch (err) {
        counters.statusErrors++; // a failing consumer must not stop the feed
      }
    }
  }

  function onMessage(message) {
    counters.emitted++;
    // Serialise exactly as an observer would publish: the pipeline must not see a shortcut.
    const result = pipeline.submitMessage(message.topic, JSON.stringify(message.payload), settings.source);
    if (result && result.error) counters.rejected++;
  }

  return {
    simulator,
    /** The simulator's channels ({ name, key }), for createEngine({ channels }). */
    channels: simulator.channels.map((channel) => ({ name: channel.name, key: channel.key })),
    /** Start emitting (no-op if already running). Continues the same stream after a stop(). */
    start() {
      if (stopRun) return;
      counters.runs++;
      stopRun = simulator.run({
        ratePerSecond: settings.ratePerSecond,
        count: settings.count,
        durationMs: settings.durationMs,
        wallClock: settings.wallClock,
        onMessage,
        onDone: () => {
          stopRun = null;
          if (statusTimer !== null) clearInterval(statusTimer);
          statusTimer = null;
        },
      });
      if (typeof settings.onStatus === 'function' && settings.statusEveryMs > 0 && statusTimer === null) {
        publishStatuses();
        statusTimer = setInterval(publishStatuses, settings.statusEveryMs);
        if (statusTimer.unref) statusTimer.unref();
      }
    },
    stop() {
      if (stopRun) stopRun();
      stopRun = null;
      if (statusTimer !== null) clearInterval(statusTimer);
      statusTimer = null;
    },
    /** Publish every observer's status now (also done on start and every statusEveryMs). */
    publishStatuses,
    stats: () => ({ running: stopRun !== null, ratePerSecond: settings.ratePerSecond, ...counters }),
  };
}

module.exports = { createSimulatorFeed, FEED_DEFAULTS };
