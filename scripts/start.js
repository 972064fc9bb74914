#!/usr/bin/env node
'use strict';
/**
 * `npm start`: run MeshPulse with Meteor on its embedded defaults (simulator feed, Meteor's
 * own MongoDB, settings.json), with a websocket compression preset and Meteor's async queue
 * knobs passed through the environment variables Meteor reads at start-up.
 *
 *   npm start                                   # preset meteor-default, port 3000
 *   npm start -- --compression off --port 3100  # any preset: off, meteor-default, threshold-fast, balanced
 *   npm start -- --queue-batch 64 --queue-concurrency 8
 *   npm start -- --production                   # meteor run --production (minified, like a deploy)
 * Meteor is found as $METEOR_BIN, `meteor` on the PATH, or ~/.meteor/meteor.
 * Any other argument is passed to `meteor run` as is.
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawn, spawnSync } = require('child_process');
const { websocketCompressionEnv, DEFAULT_PRESET } = require('../imports/core/compression');

const ROOT = path.resolve(__dirname, '..');

function findMeteor() {
  const candidates = [process.env.METEOR_BIN, 'meteor', path.join(os.homedir(), '.meteor', 'meteor')].filter(Boolean);
  for (const candidate of candidates) {
    const probe = spawnSync(candidate, ['--version'], { encoding: 'utf8', timeout: 120000, cwd: ROOT });
    if (probe.status === 0) return { bin: candidate, version: (probe.stdout || '').trim() };
  }
  return null;
}

function parseArgs(argv) {
  const options = { compression: process.env.MESHPULSE_COMPRESSION || DEFAULT_PRESET, port: process.env.PORT || '3000', passthrough: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--compression') options.compression = argv[++i];
    else if (arg === '--port') options.port = argv[++i];
    else if (arg === '--queue-batch') options.queueBatch = argv[++i];
    else if (arg === '--queue-concurrency') options.queueConcurrency = argv[++i];
    else if (arg === '--settings') options.settings = argv[++i];
    else options.passthrough.push(arg);
  }
  return options;
}

function main() {
  const options = parseArgs(process.argv.slice(2));
  const meteor = findMeteor();
  if (!meteor) {
    console.error([
      'MeshPulse runs on Meteor, which is not installed here.',
      'Install it with `npx meteor` (Meteor 3.5.2; it brings its own MongoDB), then run `npm start` again,',
      'or point METEOR_BIN at a meteor executable.',
    ].join('\n'));
    process.exit(1);
  }
  const env = { ...process.env };
  let compressionValue;
  try {
    compressionValue = websocketCompressionEnv(options.compression, meteor.version);
  } catch (err) {
    console.error(err.message);
    process.exit(2);
  }
  if (compressionValue === undefined) delete env.SERVER_WEBSOCKET_COMPRESSION;
  else env.SERVER_WEBSOCKET_COMPRESSION = compressionValue;
  if (options.queueBatch) env.METEOR_ASYNC_QUEUE_BATCH_SIZE = String(options.queueBatch);
  if (options.queueConcurrency) env.METEOR_ASYNC_QUEUE_MAX_CONCURRENT = String(options.queueConcurrency);
  const settingsFile = options.settings || path.join(ROOT, 'settings.json');
  if (!fs.existsSync(settingsFile)) {
    console.error(`settings file not found: ${settingsFile}`);
    process.exit(2);
  }
  const args = ['run', '--settings', settingsFile, '--port', String(options.port), ...options.passthrough];
  console.log(`${meteor.version}: meteor ${args.join(' ')}  (websocket compression: ${options.compression})`);
  const child = spawn(meteor.bin, args, { cwd: ROOT, env, stdio: 'inherit' });
  const forward = (signal) => child.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  child.on('exit', (code, signal) => process.exit(signal ? 1 : code));
}

main();
