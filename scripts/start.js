#!/usr/bin/env node
'use strict';
/**
 * `npm start`: run MeshPulse with Meteor on its embedded defaults (simulator feed, Meteor's
 * own MongoDB, settings.json), with a websocket compression preset, a DDP transport and
 * Meteor's async queue knobs passed through the environment variables Meteor reads at start-up.
 *
 *   npm start                                   # preset meteor-default (with the shared deflate's window), port 3000
 *   npm start -- --compression off --port 3100  # any preset: off, meteor-default, threshold-fast, balanced
 *   npm start -- --transport uws                # DDP transport: ws (Meteor's default) or uws (Meteor 3.5+)
 *   npm start -- --queue-batch 64 --queue-concurrency 8
 *   npm start -- --production                   # meteor run --production (minified, like a deploy)
 *   MONGO_URL=mongodb://127.0.0.1:27017/meshpulse npm start   # your MongoDB instead of Meteor's
 * Meteor is found as $METEOR_BIN, `meteor` on the PATH, or ~/.meteor/meteor.
 * MongoDB: MONGO_URL when set, else the mongod in Meteor's dev bundle (`meteor run` starts it);
 * when neither exists, one line says to set MONGO_URL.
 * Ctrl-C / SIGTERM (to npm or to this script) stop the app server first (SIGTERM: its graceful
 * stop writes what is queued to MongoDB while Meteor's mongod still runs), then Meteor and
 * everything it started (its own process group). A second Ctrl-C kills them at once.
 * Any other argument is passed to `meteor run` as is.
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawn, spawnSync } = require('child_process');
const { websocketCompressionEnv, DEFAULT_PRESET, parseRelease, SHARED_DEFLATE_COMPRESSION } = require('../imports/core/compression');
const { GRACEFUL_STOP_DEFAULTS } = require('../imports/core/graceful-stop');

const ROOT = path.resolve(__dirname, '..');
// `ws` is Meteor's own websocket server (DDP_TRANSPORT left unset; Meteor 3.5 names it `sockjs`,
// accepted here too); `uws` is µWebSockets.js, which Meteor 3.5 added as DDP_TRANSPORT=uws.
// Older Meteor never reads the variable.
const TRANSPORTS = ['ws', 'sockjs', 'uws'];
// The names Meteor 3.5 accepts in DDP_TRANSPORT (packages/ddp-server/transports/index.js): any
// other value stops it at start-up with "Unknown DDP transport".
const METEOR_TRANSPORT_NAMES = ['sockjs', 'uws'];
const TRANSPORT_SINCE = [3, 5, 0];
// How long Meteor gets to stop after the signal is passed on, before its group is killed.
const STOP_GRACE_MS = 10000;
// How long the app server gets for its graceful stop before Meteor's group is signalled anyway
// (a little over the server's own default deadline, settings shutdown.deadlineMs).
const APP_STOP_MS = GRACEFUL_STOP_DEFAULTS.deadlineMs + 1000;

class UsageError extends Error {}

/** Parse `npm start -- ...` arguments; throws UsageError on a bad value. Pure. */
function parseArgs(argv, env = process.env) {
  const options = {
    compression: env.MESHPULSE_COMPRESSION || DEFAULT_PRESET,
    // Whether a preset was asked for (flag or MESHPULSE_COMPRESSION): if not, a
    // SERVER_WEBSOCKET_COMPRESSION already in the environment is the user's choice and stays.
    compressionChosen: Boolean(env.MESHPULSE_COMPRESSION),
    transport: null, // null: not asked for; DDP_TRANSPORT from the environment, if any, stays
    port: env.PORT || '3000',
    passthrough: [],
  };
  const value = (i, flag) => {
    const next = argv[i + 1];
    if (next === undefined || next.startsWith('--')) throw new UsageError(`${flag} needs a value`);
    return next;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const take = () => (inline !== undefined ? inline : value(i++, flag));
    if (flag === '--compression') { options.compression = take(); options.compressionChosen = true; }
    else if (flag === '--transport') options.transport = take();
    else if (flag === '--port') options.port = take();
    else if (flag === '--queue-batch') options.queueBatch = take();
    else if (flag === '--queue-concurrency') options.queueConcurrency = take();
    else if (flag === '--settings') options.settings = take();
    else options.passthrough.push(arg);
  }
  if (options.transport !== null && !TRANSPORTS.includes(options.transport)) {
    throw new UsageError(`unknown transport "${options.transport}"; choose one of ${TRANSPORTS.join(', ')}`);
  }
  return options;
}

// SHARED_DEFLATE_COMPRESSION (imports/core/compression.js) is what `meteor-default` sets when the
// shared deflate (imports/core/shared-deflate.js) is on:
// Meteor's defaults except the level, window and memLevel. Meteor 3.1.1+ spreads this over its
// own defaults (threshold 1024 and no context takeover stay) in place of level 1, memLevel 1 and
// the smallest window (8 bits, which Node's deflateRaw turns into 9), which kept large view
// documents at 58% saved on the lab build (level 1 with the full window: 68.8%); the shared
// deflate compresses each distinct message once for every session, so a full window and level 6
// cost one zlib call per message, not one per session. The
// server then announces no server_max_window_bits of its own (15 is the most a client can
// expect), and when a client asks for fewer bits permessage-deflate negotiates them and hands
// them to the shared deflate, which uses them (RFC 7692 7.1.2.1). On Meteor 3.0.x these are
// permessage-deflate's own defaults (its level -1 is zlib's 6, as the shared deflate reads it).

/** Whether the server will install the shared deflate: MESHPULSE_SHARED_DEFLATE, else settings publish.sharedDeflate (default on). Pure. */
function sharedDeflateOn(env, settings) {
  if (env.MESHPULSE_SHARED_DEFLATE !== undefined && env.MESHPULSE_SHARED_DEFLATE !== '') return env.MESHPULSE_SHARED_DEFLATE !== 'off';
  return !(settings && settings.publish && settings.publish.sharedDeflate === false);
}

/**
 * SERVER_WEBSOCKET_COMPRESSION for `npm start` (undefined: leave it unset) and the line that
 * says so. Pure; throws on an unknown preset or a variable from the environment that is not JSON.
 * Order: an explicit preset (--compression, MESHPULSE_COMPRESSION); else the variable already set
 * by the user; else meteor-default, with the shared deflate's window when the shared deflate is on.
 */
function websocketCompressionFor(options, meteorVersion, baseEnv = {}, settings = null) {
  const inherited = baseEnv.SERVER_WEBSOCKET_COMPRESSION;
  if (!options.compressionChosen && inherited !== undefined && inherited !== '') {
    try {
      JSON.parse(inherited);
    } catch (err) {
      throw new Error(`SERVER_WEBSOCKET_COMPRESSION in the environment is not JSON (${err.message}); unset it or use --compression`);
    }
    return { value: inherited, line: `websocket compression: SERVER_WEBSOCKET_COMPRESSION=${inherited} (from the environment)` };
  }
  const value = websocketCompressionEnv(options.compression, meteorVersion);
  if (value === undefined && options.compression === DEFAULT_PRESET && sharedDeflateOn(baseEnv, settings)) {
    const shared = JSON.stringify(SHARED_DEFLATE_COMPRESSION);
    return { value: shared, line: `websocket compression: ${options.compression} with the shared deflate's level 6 and full window (SERVER_WEBSOCKET_COMPRESSION=${shared}; Meteor's other defaults kept)` };
  }
  return { value, line: `websocket compression: ${options.compression}${value === undefined ? ' (SERVER_WEBSOCKET_COMPRESSION unset)' : ` (SERVER_WEBSOCKET_COMPRESSION=${value})`}` };
}

function atLeast(version, minimum) {
  for (let i = 0; i < 3; i++) if (version[i] !== minimum[i]) return version[i] > minimum[i];
  return true;
}

/**
 * The environment for `meteor run` and one line per choice it encodes. Pure: throws on an
 * unknown compression preset. `meteorVersion` is `meteor --version`'s output ("Meteor 3.0.4");
 * `settings` the parsed settings file (its publish.sharedDeflate), or null.
 */
function buildEnv(options, meteorVersion, baseEnv = process.env, settings = null) {
  const env = { ...baseEnv };
  const notes = [];
  const compression = websocketCompressionFor(options, meteorVersion, baseEnv, settings);
  if (compression.value === undefined) delete env.SERVER_WEBSOCKET_COMPRESSION;
  else env.SERVER_WEBSOCKET_COMPRESSION = compression.value;
  notes.push(compression.line);

  const version = parseRelease(meteorVersion);
  const readsTransport = version ? atLeast(version, TRANSPORT_SINCE) : true; // unknown: assume current Meteor
  const release = version ? version.join('.') : 'this Meteor';
  if (options.transport === 'uws') env.DDP_TRANSPORT = 'uws';
  else if (options.transport === 'ws' || options.transport === 'sockjs') delete env.DDP_TRANSPORT;
  if (env.DDP_TRANSPORT && readsTransport && !METEOR_TRANSPORT_NAMES.includes(env.DDP_TRANSPORT)) {
    throw new UsageError(`DDP_TRANSPORT=${env.DDP_TRANSPORT} in the environment: Meteor ${release} knows ${METEOR_TRANSPORT_NAMES.join(' and ')} only and would stop at start-up; unset it, or pass --transport ws|uws`);
  }
  if (env.DDP_TRANSPORT) {
    const from = options.transport ? '' : ' from the environment';
    notes.push(readsTransport
      ? `DDP transport: ${env.DDP_TRANSPORT} (DDP_TRANSPORT=${env.DDP_TRANSPORT}${from})`
      : `DDP transport: ws (Meteor ${release} ignores DDP_TRANSPORT=${env.DDP_TRANSPORT}${from}: only Meteor 3.5+ reads it)`);
  } else {
    notes.push(`DDP transport: ws (Meteor's default websocket server${readsTransport ? '' : `; --transport uws needs Meteor 3.5+, this is ${release}`})`);
  }

  if (options.queueBatch) env.METEOR_ASYNC_QUEUE_BATCH_SIZE = String(options.queueBatch);
  if (options.queueConcurrency) env.METEOR_ASYNC_QUEUE_MAX_CONCURRENT = String(options.queueConcurrency);
  if (options.queueBatch || options.queueConcurrency) {
    notes.push(`async queue: ${[options.queueBatch && `METEOR_ASYNC_QUEUE_BATCH_SIZE=${options.queueBatch}`, options.queueConcurrency && `METEOR_ASYNC_QUEUE_MAX_CONCURRENT=${options.queueConcurrency}`].filter(Boolean).join(', ')} (read by Meteor 3.1.1+)`);
  }
  return { env, notes };
}

/** A MongoDB URL fit to print: the password replaced. */
function redactMongoUrl(url) {
  return String(url).replace(/\/\/([^:@/]+):([^@/]*)@/, '//$1:***@');
}

/**
 * Where MongoDB comes from, or why there is none. Pure. `mongod` is what is known of the dev
 * bundle's mongod: { path, exists } (exists null when the bundle could not be found).
 * Returns { ok, source: 'MONGO_URL' | 'meteor', line }.
 */
function mongoPlan(env, mongod) {
  if (env.MONGO_URL) return { ok: true, source: 'MONGO_URL', line: `MongoDB: MONGO_URL (${redactMongoUrl(env.MONGO_URL)})` };
  if (mongod && mongod.exists === false) {
    return { ok: false, source: 'meteor', line: mongoMissingLine(mongod.path) };
  }
  const where = mongod && mongod.path ? ` (${mongod.path})` : '';
  return { ok: true, source: 'meteor', line: `MongoDB: Meteor's own; meteor run starts its embedded mongod${where}. Set MONGO_URL to use another.` };
}

function mongoMissingLine(mongodPath) {
  return `npm start: no MongoDB: Meteor's bundle has no mongod${mongodPath ? ` (${mongodPath})` : ''} and MONGO_URL is not set; start a MongoDB and run MONGO_URL=mongodb://127.0.0.1:27017/meshpulse npm start`;
}

/** The one line for meteor output that says its mongod could not start, or null. Pure. */
function mongoFailureInOutput(text, env = process.env) {
  if (env.MONGO_URL) return null;
  const missing = /spawn (\S*mongod) ENOENT/.exec(text);
  if (missing) return mongoMissingLine(missing[1]);
  if (/Can't start Mongo server|Unexpected mongo exit code/.test(text)) {
    return 'npm start: Meteor could not start its embedded MongoDB (see above); start a MongoDB and run MONGO_URL=mongodb://127.0.0.1:27017/meshpulse npm start';
  }
  return null;
}

function findMeteor() {
  const candidates = [process.env.METEOR_BIN, 'meteor', path.join(os.homedir(), '.meteor', 'meteor')].filter(Boolean);
  for (const candidate of candidates) {
    const probe = spawnSync(candidate, ['--version'], { encoding: 'utf8', timeout: 120000, cwd: ROOT });
    if (probe.status === 0) return { bin: candidate, version: (probe.stdout || '').trim() };
  }
  return null;
}

function resolveOnPath(bin) {
  if (bin.includes(path.sep)) return bin;
  for (const dir of (process.env.PATH || '').split(path.delimiter)) {
    const file = path.join(dir, bin);
    if (fs.existsSync(file)) return file;
  }
  return null;
}

/**
 * The dev bundle's mongod: { path, exists }, or null when the dev bundle cannot be found.
 * An installed Meteor (~/.meteor/meteor) and a checkout both keep dev_bundle/ beside the real
 * `meteor` script; a wrapper script is asked with `meteor node` (slower, so only then).
 */
function findBundledMongod(meteorBin) {
  const relative = path.join('mongodb', 'bin', process.platform === 'win32' ? 'mongod.exe' : 'mongod');
  const resolved = resolveOnPath(meteorBin);
  if (resolved) {
    try {
      const devBundle = path.join(path.dirname(fs.realpathSync(resolved)), 'dev_bundle');
      if (fs.existsSync(devBundle)) return { path: path.join(devBundle, relative), exists: fs.existsSync(path.join(devBundle, relative)) };
    } catch (err) { /* fall through to asking Meteor */ }
  }
  const probe = spawnSync(meteorBin, ['node', '-e', 'process.stdout.write(process.execPath)'], { encoding: 'utf8', timeout: 60000, cwd: ROOT });
  const nodePath = probe.status === 0 ? (probe.stdout || '').trim().split('\n').pop() : '';
  if (!nodePath || !path.isAbsolute(nodePath)) return null;
  const devBundle = path.dirname(path.dirname(nodePath)); // dev_bundle/bin/node
  return { path: path.join(devBundle, relative), exists: fs.existsSync(path.join(devBundle, relative)) };
}

/**
 * The app server's pid among `ps -A -o pid=,ppid=,args=` lines: the descendant of `rootPid`
 * (Meteor's tool) that runs the built `.meteor/local/build/main.js`; null when there is none
 * (still building, crashed). Pure.
 */
function appServerPid(psText, rootPid) {
  const parentOf = new Map();
  const argsOf = new Map();
  for (const line of String(psText).split('\n')) {
    const match = /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line);
    if (!match) continue;
    parentOf.set(Number(match[1]), Number(match[2]));
    argsOf.set(Number(match[1]), match[3]);
  }
  for (const [pid, args] of argsOf) {
    if (!/\.meteor[\\/]local[\\/]build[\\/]main\.js/.test(args)) continue;
    const seen = new Set();
    for (let parent = parentOf.get(pid); parent !== undefined && !seen.has(parent); parent = parentOf.get(parent)) {
      if (parent === rootPid) return pid;
      seen.add(parent);
    }
  }
  return null;
}

function findAppServer(rootPid) {
  const listing = spawnSync('ps', ['-A', '-o', 'pid=,ppid=,args='], { encoding: 'utf8', timeout: 5000 });
  return listing.status === 0 ? appServerPid(listing.stdout, rootPid) : null;
}

function isRunning(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return false;
  }
}

/**
 * Meteor's tool output with the lines it prints when the app server exits, which after our own
 * SIGTERM are not news ("Exited with code: 0", "Your application is crashing..."). Pure.
 */
function withoutStopNoise(text) {
  return text.split(/(?<=\n)/).filter((line) => !/^=> (Exited with code: \d+|Your application is crashing\. Waiting for file change\.)\s*$/.test(line)).join('');
}

/** Signal a whole process group, ignoring one that is already gone. */
function killGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
    return true;
  } catch (err) {
    return false;
  }
}

function main() {
  let options;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (err) {
    console.error(`npm start: ${err.message}`);
    process.exit(2);
  }
  const meteor = findMeteor();
  if (!meteor) {
    console.error([
      'MeshPulse runs on Meteor, which is not installed here.',
      'Install it with `npx meteor` (Meteor 3.5.2; it brings its own MongoDB), then run `npm start` again,',
      'or point METEOR_BIN at a meteor executable.',
    ].join('\n'));
    process.exit(1);
  }
  const settingsFile = options.settings || path.join(ROOT, 'settings.json');
  if (!fs.existsSync(settingsFile)) {
    console.error(`npm start: settings file not found: ${settingsFile}`);
    process.exit(2);
  }
  let settings = null;
  try {
    settings = JSON.parse(fs.readFileSync(settingsFile, 'utf8'));
  } catch (err) {
    // Meteor says what is wrong with it; here it only decides the shared deflate's default.
  }
  let built;
  try {
    built = buildEnv(options, meteor.version, process.env, settings);
  } catch (err) {
    console.error(`npm start: ${err.message}`);
    process.exit(2);
  }
  const { env, notes } = built;
  const mongo = mongoPlan(env, env.MONGO_URL ? null : findBundledMongod(meteor.bin));
  if (!mongo.ok) {
    console.error(mongo.line);
    process.exit(1);
  }
  const args = ['run', '--settings', settingsFile, '--port', String(options.port), ...options.passthrough];
  console.log(`${meteor.version}: meteor ${args.join(' ')}`);
  for (const line of [mongo.line, ...notes]) console.log(`  ${line}`);

  // Its own process group, so one signal reaches Meteor, its mongod and the app it runs.
  const child = spawn(meteor.bin, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let stopping = null;
  let failed = false;
  const stop = (signal, reason) => {
    if (reason) {
      failed = true;
      console.error(reason);
    }
    if (stopping) {
      killGroup(child.pid, 'SIGKILL'); // a second Ctrl-C: no more waiting
      return;
    }
    stopping = signal;
    // The app server first, alone: it ingests what is queued and writes it to MongoDB
    // (imports/core/graceful-stop.js) while Meteor's tool still relays its log and Meteor's own
    // mongod still runs; then Meteor's group. Signalled together, mongod and the tool went first.
    const server = findAppServer(child.pid);
    if (server === null) {
      killGroup(child.pid, signal);
      setTimeout(() => killGroup(child.pid, 'SIGKILL'), STOP_GRACE_MS).unref();
      return;
    }
    try { process.kill(server, 'SIGTERM'); } catch (err) { /* gone already */ }
    const since = Date.now();
    const waitForServer = setInterval(() => {
      if (isRunning(server) && Date.now() - since < APP_STOP_MS) return;
      clearInterval(waitForServer);
      killGroup(child.pid, signal);
      setTimeout(() => killGroup(child.pid, 'SIGKILL'), STOP_GRACE_MS).unref();
    }, 100);
  };
  let seen = '';
  const watch = (stream, out) => stream.on('data', (chunk) => {
    if (stopping) {
      // We stopped the app server ourselves: Meteor's tool calls that a crash. Not to alarm anyone.
      const text = withoutStopNoise(chunk.toString());
      if (text) out.write(text);
      return;
    }
    out.write(chunk);
    seen = (seen + chunk.toString()).slice(-4096);
    const failure = mongoFailureInOutput(seen, env);
    if (failure) stop('SIGTERM', failure);
  });
  watch(child.stdout, process.stdout);
  watch(child.stderr, process.stderr);
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGHUP', () => stop('SIGTERM'));
  // npm runs this through `sh -c`, and a SIGTERM to npm stops that shell but not us: once our
  // parent is gone (we are re-parented), stop Meteor as if signalled.
  const parent = process.ppid;
  setInterval(() => { if (process.ppid !== parent && !stopping) stop('SIGTERM'); }, 1000).unref();
  // The terminal may be gone by then: a failed write must not keep us from stopping Meteor.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
  // Whatever ends this process, leave nothing of Meteor's behind.
  process.on('exit', () => killGroup(child.pid, 'SIGKILL'));
  child.on('exit', (code, signal) => {
    killGroup(child.pid, 'SIGTERM'); // stragglers of the group (mongod, the app)
    if (failed) process.exit(1);
    if (stopping === 'SIGINT') process.exit(130);
    if (stopping) process.exit(stopping === 'SIGTERM' && code === 0 ? 0 : 1);
    process.exit(signal ? 1 : code);
  });
}

module.exports = { parseArgs, buildEnv, websocketCompressionFor, sharedDeflateOn, SHARED_DEFLATE_COMPRESSION, mongoPlan, mongoFailureInOutput, redactMongoUrl, findBundledMongod, findMeteor, appServerPid, withoutStopNoise, TRANSPORTS, UsageError };

if (require.main === module) main();
