'use strict';
/**
 * Websocket compression presets. Meteor reads permessage-deflate settings from the
 * SERVER_WEBSOCKET_COMPRESSION environment variable at start-up (JSON, or `false`), so a
 * preset is applied by whoever starts the server (scripts/start.js, the benchmarks).
 *
 * Since Meteor 3.1.1 the JSON may carry `threshold` (bytes below which a message is sent
 * uncompressed); Meteor 3.0.x passes the object straight to permessage-deflate, which
 * rejects unknown keys at start-up, so `threshold` is dropped for releases before 3.1.1.
 */
const WEBSOCKET_COMPRESSION_PRESETS = {
  // No compression: the baseline for bytes and CPU.
  off: false,
  // Leave the variable unset: Meteor's own defaults (3.1.1+: threshold 1024 bytes, fastest
  // level, smallest memLevel and window, no context takeover; 3.0.x: compress every message).
  'meteor-default': null,
  // Skip small messages, compress big ones fast with a full window (better ratio on large
  // view documents than Meteor's minimal window, at a little more memory per message).
  'threshold-fast': { threshold: 1024, level: 1, memLevel: 8, maxWindowBits: 15, noContextTakeover: true },
  // Middle level and window: better ratio, more CPU.
  balanced: { threshold: 1024, level: 6, memLevel: 8, maxWindowBits: 15, noContextTakeover: true },
};

// Chosen from benchmarks/COMPRESSION.md (Meteor 3.0.4, 20 dashboards, 50 packets/s): Meteor's own
// defaults saved 80.7% of large-message bytes for +6.5 points of a core, while the presets
// with noContextTakeover and a full window cost +40 points (a fresh 256 KB deflate state for
// every message of every connection). On 3.1.1+ Meteor's defaults also skip messages < 1 KB.
const DEFAULT_PRESET = 'meteor-default';

/** Parse "3.0.4" / "METEOR@3.1.1" into a comparable [major, minor, patch]. */
function parseRelease(release) {
  const match = /(\d+)\.(\d+)(?:\.(\d+))?/.exec(String(release || ''));
  return match ? [Number(match[1]), Number(match[2]), Number(match[3] || 0)] : null;
}

function supportsThreshold(release) {
  const version = parseRelease(release);
  if (!version) return true; // unknown: assume current Meteor
  const [major, minor, patch] = version;
  return major > 3 || (major === 3 && (minor > 1 || (minor === 1 && patch >= 1)));
}

/**
 * The SERVER_WEBSOCKET_COMPRESSION value for a preset and Meteor release:
 * a string to set, or undefined to leave the variable unset. Throws on an unknown preset.
 */
function websocketCompressionEnv(presetName, release) {
  if (!Object.prototype.hasOwnProperty.call(WEBSOCKET_COMPRESSION_PRESETS, presetName)) {
    throw new Error(`unknown compression preset "${presetName}"; choose one of ${Object.keys(WEBSOCKET_COMPRESSION_PRESETS).join(', ')}`);
  }
  const preset = WEBSOCKET_COMPRESSION_PRESETS[presetName];
  if (preset === null) return undefined;
  if (preset === false) return 'false';
  const options = { ...preset };
  if (!supportsThreshold(release)) delete options.threshold;
  return JSON.stringify(options);
}

/**
 * What `npm start` sets for `meteor-default` while the shared deflate is on (see scripts/start.js):
 * Meteor's defaults with permessage-deflate's full window and memLevel 8 in place of 3.1.1+'s
 * memLevel 1 and smallest window, and zlib's middle level 6 in place of 3.1.1+'s level 1. The
 * shared deflate pays for the level once per distinct message, not once per session. In the
 * full compression study (benchmarks/README.md) level 1 left large view documents at 68.8% saved
 * on 2026-11-24 (the >= 70% target missed) and 70.7% on 2026-11-28, where level 6 saved 73.0%
 * for no server CPU the study could resolve.
 */
const SHARED_DEFLATE_COMPRESSION = { level: 6, memLevel: 8, maxWindowBits: 15 };

/** Describe what the server was started with, for /api/health. */
function describeWebsocketCompression(envValue) {
  if (envValue === undefined || envValue === '') return { mode: 'meteor-default', options: null };
  if (envValue === 'false') return { mode: 'off', options: null };
  try {
    const options = JSON.parse(envValue);
    const preset = Object.entries(WEBSOCKET_COMPRESSION_PRESETS).find(([, value]) => value && JSON.stringify(value) === JSON.stringify(options));
    if (preset) return { mode: preset[0], options };
    if (JSON.stringify(options) === JSON.stringify(SHARED_DEFLATE_COMPRESSION)) return { mode: 'meteor-default (shared deflate, level 6, full window)', options };
    return { mode: 'custom', options };
  } catch (err) {
    return { mode: 'invalid', options: null, error: err.message };
  }
}

module.exports = { WEBSOCKET_COMPRESSION_PRESETS, SHARED_DEFLATE_COMPRESSION, DEFAULT_PRESET, websocketCompressionEnv, describeWebsocketCompression, supportsThreshold, parseRelease };
