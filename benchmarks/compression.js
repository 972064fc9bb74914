#!/usr/bin/env node
'use strict';
/**
 * Websocket compression presets: `npm run bench:compression` (`-- --quick`).
 *
 * Presets (imports/core/compression.js): off, meteor-default, threshold-fast, balanced, plus
 * experiments: fast-keep-context (threshold-fast with the deflate context kept) and
 * meteor-default-per-session (Meteor's defaults with MESHPULSE_SHARED_DEFLATE=off: every
 * session runs its own zlib stream, as Meteor does by itself; the other runs use the shared
 * deflate of imports/core/shared-deflate.js, which compresses each distinct message once and
 * sends messages under 1 KB as stored blocks). `meteor-default` is what `npm start` sets
 * (scripts/start.js: with the shared deflate on, level 6, memLevel 8 and a full window over
 * Meteor's other defaults); meteor-default-level-1 is the same at level 1 (the default until
 * 2026-11-28); meteor-default-unset leaves the variable unset (Meteor's own defaults, shared
 * deflate on). --quick: off, meteor-default, meteor-default-unset (only where the bundle has
 * permessage-deflate2: elsewhere it equals meteor-default) and meteor-default-per-session,
 * 2 rounds of 12 s (≤ 4 min). The
 * variable is read once at start-up, so each measurement is its own server (core 0, simulator
 * 50 packets/s) with the same dashboard subscribers (the Artillery processor's dashboard:
 * 5 views + the live feed; 20 clients on core 1). Presets run in rounds whose order alternates
 * (A B C D, then D C B A, ...), so drift on a shared machine hits every preset alike.
 * Per message, the clients read the frame headers off the socket (lib/wire-tap.js): payload vs
 * wire bytes and whether the frame was deflated, split into small (< 1,024 bytes) and large
 * messages, which is how "messages under the threshold are sent uncompressed" is checked.
 */
const fs = require('fs');
const path = require('path');
const { runStudy, sleep } = require('./lib/study');
const { createClientPool, measureWindow } = require('./lib/client-pool');
const { median } = require('./lib/report');
const { WEBSOCKET_COMPRESSION_PRESETS, DEFAULT_PRESET, supportsThreshold } = require('../imports/core/compression');
const { websocketCompressionFor } = require('../scripts/start');
const { dashboardSubscriptions } = require('../tests/artillery/processor');

const INGEST_PER_S = 50;
const CLIENTS = 20;
const round = (value, digits = 2) => (value === null || value === undefined || !Number.isFinite(value) ? null : Math.round(value * 10 ** digits) / 10 ** digits);

/**
 * Not a preset: threshold-fast's level and window with per-connection context kept
 * (noContextTakeover off), to show what a fresh deflate context per message costs.
 */
const EXPERIMENTS = {
  'fast-keep-context': { level: 1, memLevel: 8, maxWindowBits: 15 },
  // Meteor's defaults, each session deflating on its own (the shared deflate turned off).
  'meteor-default-per-session': { preset: 'meteor-default', env: { MESHPULSE_SHARED_DEFLATE: 'off' } },
  // What meteor-default set until 2026-11-28: level 1 (Meteor 3.1.1+'s, and the shared deflate's
  // reading of zlib's default then) with the full window, shared deflate on; against level 6 now.
  'meteor-default-level-1': { options: { level: 1, memLevel: 8, maxWindowBits: 15 } },
  // The variable left unset (Meteor's own defaults: on 3.1.1+ memLevel 1 and the smallest
  // window) with the shared deflate: what meteor-default was before npm start set the window.
  'meteor-default-unset': { unset: true },
  // Why npm start keeps Meteor's small window when the shared deflate is off: the same full
  // window with each session deflating on its own (a fresh 256 KB state per message per session
  // under noContextTakeover on 3.1.1+).
  'full-window-per-session': { options: { memLevel: 8, maxWindowBits: 15 }, env: { MESHPULSE_SHARED_DEFLATE: 'off' } },
};

/**
 * SERVER_WEBSOCKET_COMPRESSION for a preset or experiment (undefined: unset). Presets go through
 * the same function as `npm start` (scripts/start.js), so `meteor-default` here is what a user
 * gets: with the shared deflate on, its full window and memLevel.
 */
function envFor(name, meteorVersion) {
  const experiment = EXPERIMENTS[name];
  if (experiment && experiment.unset) return undefined;
  if (experiment && experiment.options) return JSON.stringify(experiment.options);
  if (experiment && !experiment.preset) return JSON.stringify(experiment);
  const preset = experiment ? experiment.preset : name;
  return websocketCompressionFor({ compression: preset, compressionChosen: true }, meteorVersion, extraEnvFor(name), null).value;
}

/** Other variables a run sets beside SERVER_WEBSOCKET_COMPRESSION. */
function extraEnvFor(name) {
  return (EXPERIMENTS[name] && EXPERIMENTS[name].env) || {};
}

async function measurePreset(study, preset, windowS) {
  const bundle = await study.bundle();
  const value = envFor(preset, bundle.meteorVersion);
  const server = await study.startServer({
    settings: { sources: { simulator: { enabled: true, ratePerSecond: INGEST_PER_S } } },
    env: { ...extraEnvFor(preset), ...(value === undefined ? {} : { SERVER_WEBSOCKET_COMPRESSION: value }) },
  });
  await sleep(study.quick ? 5000 : 8000);
  const pool = createClientPool({ url: server.wsUrl, subscriptions: dashboardSubscriptions({ vars: {} }), perMessageDeflate: true });
  try {
    const grown = await pool.grow(CLIENTS);
    await sleep(2000);
    const m = await measureWindow(pool, server.pid, windowS);
    const ratio = (bucket) => (bucket.payload_bytes ? bucket.wire_bytes / bucket.payload_bytes : null);
    const health = await fetch(`${server.url}/api/health`).then((r) => r.json()).catch(() => null);
    const extra = extraEnvFor(preset);
    return {
      preset,
      env: `${value === undefined ? '(unset)' : value}${Object.keys(extra).length ? ` + ${Object.entries(extra).map(([k, v]) => `${k}=${v}`).join(' ')}` : ''}`,
      shared_deflate: health && health.sharedDeflate ? health.sharedDeflate : null,
      connect_failures: grown.failures,
      server_cpu_pct: round(m.server_cpu_pct, 1),
      delay_p50_ms: m.delay.p50,
      delay_p99_ms: m.delay.p99,
      updates_per_s: round(m.updates / m.elapsed_s, 1),
      wire_bytes_per_s: Math.round((m.messages.small.wire_bytes + m.messages.large.wire_bytes) / m.elapsed_s),
      payload_bytes_per_s: Math.round((m.messages.small.payload_bytes + m.messages.large.payload_bytes) / m.elapsed_s),
      small: { ...m.messages.small, wire_to_payload: round(ratio(m.messages.small), 4), deflated_share: m.messages.small.messages ? round(m.messages.small.deflated / m.messages.small.messages, 4) : null },
      large: { ...m.messages.large, wire_to_payload: round(ratio(m.messages.large), 4), deflated_share: m.messages.large.messages ? round(m.messages.large.deflated / m.messages.large.messages, 4) : null },
      client_lag_p99_ms: round(m.lagP99Ms, 1),
    };
  } finally {
    await pool.close();
    await server.stop();
  }
}

function mean(values) {
  const usable = values.filter((v) => v !== null && v !== undefined && Number.isFinite(v));
  return usable.length ? usable.reduce((a, b) => a + b, 0) / usable.length : null;
}

runStudy('compression', async (study) => {
  const bundle = await study.bundle();
  // meteor-default-unset differs from meteor-default only where Meteor configures
  // permessage-deflate2 (3.1.1+, or a build with its stream_server.js): the quick run measures
  // it there only, and stays under 4 minutes elsewhere.
  const deflate2 = fs.existsSync(path.join(bundle.dir, 'bundle', 'programs', 'server', 'npm', 'node_modules', 'meteor', 'ddp-server', 'node_modules', 'permessage-deflate2'));
  const presets = study.quick
    ? ['off', DEFAULT_PRESET, ...(deflate2 ? ['meteor-default-unset'] : []), 'meteor-default-per-session']
    : [...Object.keys(WEBSOCKET_COMPRESSION_PRESETS), ...Object.keys(EXPERIMENTS)];
  const rounds = study.quick ? 2 : 3;
  const windowS = study.quick ? 12 : 20;
  const runs = [];
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? presets : presets.slice().reverse();
    for (const preset of order) {
      const run = await measurePreset(study, preset, windowS);
      runs.push({ round: r + 1, ...run });
      study.log(`round ${r + 1} ${preset}: CPU ${run.server_cpu_pct}%, wire ${run.wire_bytes_per_s} B/s of ${run.payload_bytes_per_s} B/s payload; large wire/payload ${run.large.wire_to_payload}, small deflated ${run.small.deflated_share}`);
    }
  }
  const summary = {};
  for (const preset of presets) {
    const mine = runs.filter((run) => run.preset === preset);
    summary[preset] = {
      env: mine[0].env,
      server_cpu_pct: round(mean(mine.map((m) => m.server_cpu_pct)), 1),
      server_cpu_pct_rounds: mine.map((m) => m.server_cpu_pct),
      server_cpu_pct_median: round(median(mine.map((m) => m.server_cpu_pct)), 1),
      large_wire_to_payload_rounds: mine.map((m) => m.large.wire_to_payload),
      delay_p99_ms: round(mean(mine.map((m) => m.delay_p99_ms)), 1),
      wire_bytes_per_s: Math.round(mean(mine.map((m) => m.wire_bytes_per_s))),
      payload_bytes_per_s: Math.round(mean(mine.map((m) => m.payload_bytes_per_s))),
      large_wire_to_payload: round(mean(mine.map((m) => m.large.wire_to_payload)), 4),
      small_wire_to_payload: round(mean(mine.map((m) => m.small.wire_to_payload)), 4),
      small_deflated_share: round(mean(mine.map((m) => m.small.deflated_share)), 4),
      large_deflated_share: round(mean(mine.map((m) => m.large.deflated_share)), 4),
    };
  }
  const off = summary.off;
  for (const preset of presets) {
    const s = summary[preset];
    s.large_bytes_saved_vs_off = off.large_wire_to_payload ? round(1 - s.large_wire_to_payload / off.large_wire_to_payload, 4) : null;
    s.total_bytes_saved_vs_off = off.wire_bytes_per_s && off.payload_bytes_per_s ? round(1 - (s.wire_bytes_per_s / s.payload_bytes_per_s) / (off.wire_bytes_per_s / off.payload_bytes_per_s), 4) : null;
    s.cpu_overhead_vs_off = off.server_cpu_pct ? round(s.server_cpu_pct / off.server_cpu_pct - 1, 4) : null;
    s.cpu_points_over_off = round(s.server_cpu_pct - off.server_cpu_pct, 1);
    // Per round against that round's off run (rounds alternate the order, so each pair ran
    // close together): the spread a reader needs beside the mean.
    const pairs = runs.filter((run) => run.preset === preset).map((run) => [run, runs.find((o) => o.preset === 'off' && o.round === run.round)]).filter(([, o]) => o);
    s.cpu_points_over_off_rounds = pairs.map(([run, o]) => round(run.server_cpu_pct - o.server_cpu_pct, 1));
    s.large_bytes_saved_vs_off_rounds = pairs.map(([run, o]) => (o.large.wire_to_payload ? round(1 - run.large.wire_to_payload / o.large.wire_to_payload, 4) : null));
    s.cpu_points_over_off_median = round(median(s.cpu_points_over_off_rounds), 1);
  }
  const chosen = summary[DEFAULT_PRESET];
  // Which package the server configured, as its shared deflate probed it (/api/health): the
  // release number alone misses a build with a newer stream_server.js swapped in.
  const probed = runs.map((run) => run.shared_deflate && run.shared_deflate.package).find(Boolean) || null;
  const thresholdSupported = probed ? probed === 'permessage-deflate2' : supportsThreshold(bundle.meteorVersion);
  return {
    settings: { ingest_per_s: INGEST_PER_S, clients: CLIENTS, window_s: windowS, rounds, small_message_bytes: '< 1024 (payload)', dashboard: dashboardSubscriptions({ vars: {} }), default_preset: DEFAULT_PRESET, presets: WEBSOCKET_COMPRESSION_PRESETS, experiments: EXPERIMENTS },
    threshold_supported: thresholdSupported,
    websocket_package: probed,
    threshold_note: thresholdSupported
      ? `${bundle.meteorVersion} configures permessage-deflate2, which takes \`threshold\` (Meteor's default 1024): messages under it travel as plain frames${probed ? ' (package probed by the shared deflate at start-up)' : ''}.`
      : `${bundle.meteorVersion} passes SERVER_WEBSOCKET_COMPRESSION straight to permessage-deflate, which rejects \`threshold\`; websocketCompressionEnv drops it, so every message is deflated under every preset but off. The threshold behaviour cannot be shown on this release (Meteor 3.1.1+ needed); small vs large bytes are measured anyway.`,
    summary,
    runs,
    targets: {
      bytes_saved_70: { target: `the default preset (${DEFAULT_PRESET}) cuts wire bytes of large view documents by >= 70% vs off`, measured: chosen.large_bytes_saved_vs_off, met: chosen.large_bytes_saved_vs_off !== null && chosen.large_bytes_saved_vs_off >= 0.7 },
      cpu_overhead_10: { target: `the default preset adds <= 15% server CPU over off`, measured: chosen.cpu_overhead_vs_off, met: chosen.cpu_overhead_vs_off !== null && chosen.cpu_overhead_vs_off <= 0.15 },
      ...(summary['meteor-default-per-session'] ? { per_session_for_comparison: { target: 'for comparison, not a target: CPU added over off by the same preset with each session deflating on its own (MESHPULSE_SHARED_DEFLATE=off, Meteor\'s own path)', measured: summary['meteor-default-per-session'].cpu_overhead_vs_off, met: null } } : {}),
    },
  };
});
