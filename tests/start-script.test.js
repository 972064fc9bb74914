'use strict';
/**
 * scripts/start.js (`npm start`), its pure parts: arguments, the environment handed to
 * `meteor run`, and how MongoDB is found or why it cannot be.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { parseArgs, buildEnv, websocketCompressionFor, sharedDeflateOn, SHARED_DEFLATE_COMPRESSION, mongoPlan, mongoFailureInOutput, redactMongoUrl, findBundledMongod, appServerPid, withoutStopNoise, UsageError } = require('../scripts/start');

test('parseArgs: defaults, flags in both spellings, the rest passed to meteor run', () => {
  const defaults = parseArgs([], {});
  assert.equal(defaults.compression, 'meteor-default');
  assert.equal(defaults.transport, null);
  assert.equal(defaults.port, '3000');
  assert.deepEqual(defaults.passthrough, []);

  const options = parseArgs(['--compression', 'off', '--transport=uws', '--port', '3100', '--queue-batch', '64', '--queue-concurrency=8', '--production'], {});
  assert.equal(options.compression, 'off');
  assert.equal(options.transport, 'uws');
  assert.equal(options.port, '3100');
  assert.equal(options.queueBatch, '64');
  assert.equal(options.queueConcurrency, '8');
  assert.deepEqual(options.passthrough, ['--production']);

  assert.equal(parseArgs([], { PORT: '4000', MESHPULSE_COMPRESSION: 'off' }).port, '4000');
  assert.equal(parseArgs([], { PORT: '4000', MESHPULSE_COMPRESSION: 'off' }).compression, 'off');
});

test('parseArgs: a bad transport or a missing value is a usage error naming it', () => {
  assert.throws(() => parseArgs(['--transport', 'faye'], {}), (err) => err instanceof UsageError && /unknown transport "faye".*ws, sockjs, uws/.test(err.message));
  assert.throws(() => parseArgs(['--transport'], {}), /--transport needs a value/);
  assert.throws(() => parseArgs(['--port', '--production'], {}), /--port needs a value/);
});

test('buildEnv: compression preset, queue knobs, and the base environment kept', () => {
  const { env, notes } = buildEnv(parseArgs(['--compression', 'off', '--queue-batch', '64'], {}), 'Meteor 3.1.1', { KEEP: '1', SERVER_WEBSOCKET_COMPRESSION: 'x' });
  assert.equal(env.KEEP, '1');
  assert.equal(env.SERVER_WEBSOCKET_COMPRESSION, 'false');
  assert.equal(env.METEOR_ASYNC_QUEUE_BATCH_SIZE, '64');
  assert.equal(env.METEOR_ASYNC_QUEUE_MAX_CONCURRENT, undefined);
  assert.ok(notes.some((line) => /websocket compression: off/.test(line)));
  assert.ok(notes.some((line) => /METEOR_ASYNC_QUEUE_BATCH_SIZE=64/.test(line)));

  assert.throws(() => buildEnv(parseArgs(['--compression', 'gzip'], {}), 'Meteor 3.1.1', {}), /unknown compression preset "gzip"/);
});

test('buildEnv: meteor-default sets the shared deflate\'s level, window and memLevel, only while the shared deflate is on', () => {
  for (const release of ['Meteor 3.0.4', 'Meteor 3.1.1', 'Meteor 3.5.2']) {
    const { env, notes } = buildEnv(parseArgs([], {}), release, {});
    assert.deepEqual(JSON.parse(env.SERVER_WEBSOCKET_COMPRESSION), { level: 6, memLevel: 8, maxWindowBits: 15 }, release);
    assert.ok(notes.some((line) => /meteor-default with the shared deflate's level 6 and full window/.test(line)), notes.join('\n'));
  }
  // Meteor 3.1.1+ spreads it over its own defaults: threshold and no context takeover stay; its
  // level 1 does not (Meteor 3.5's stream_server.js puts the variable's keys after its own).
  assert.equal('threshold' in SHARED_DEFLATE_COMPRESSION, false);
  assert.equal('noContextTakeover' in SHARED_DEFLATE_COMPRESSION, false);
  assert.equal(SHARED_DEFLATE_COMPRESSION.level, 6);
  // Per-session zlib with a full window and no context takeover would cost every session a
  // fresh 256 KB deflate state per message: without the shared deflate, Meteor's defaults stay.
  const envOff = buildEnv(parseArgs([], {}), 'Meteor 3.1.1', { MESHPULSE_SHARED_DEFLATE: 'off' });
  assert.equal('SERVER_WEBSOCKET_COMPRESSION' in envOff.env, false);
  assert.ok(envOff.notes.includes('websocket compression: meteor-default (SERVER_WEBSOCKET_COMPRESSION unset)'), envOff.notes.join('\n'));
  const settingsOff = buildEnv(parseArgs([], {}), 'Meteor 3.1.1', {}, { publish: { sharedDeflate: false } });
  assert.equal('SERVER_WEBSOCKET_COMPRESSION' in settingsOff.env, false);
  // The environment variable wins over the settings file, as on the server (imports/core/settings.js).
  assert.ok(buildEnv(parseArgs([], {}), 'Meteor 3.1.1', { MESHPULSE_SHARED_DEFLATE: 'on' }, { publish: { sharedDeflate: false } }).env.SERVER_WEBSOCKET_COMPRESSION);
  assert.equal(sharedDeflateOn({}, null), true);
  // Other presets are what they say, shared deflate or not.
  assert.equal(buildEnv(parseArgs(['--compression', 'off'], {}), 'Meteor 3.1.1', {}).env.SERVER_WEBSOCKET_COMPRESSION, 'false');
  assert.equal(buildEnv(parseArgs(['--compression', 'meteor-default'], {}), 'Meteor 3.1.1', {}).env.SERVER_WEBSOCKET_COMPRESSION, JSON.stringify(SHARED_DEFLATE_COMPRESSION));
});

test('buildEnv: a SERVER_WEBSOCKET_COMPRESSION the user set stays unless a preset is asked for; one that is not JSON is a clear error', () => {
  const kept = buildEnv(parseArgs([], {}), 'Meteor 3.1.1', { SERVER_WEBSOCKET_COMPRESSION: '{"level":6}' });
  assert.equal(kept.env.SERVER_WEBSOCKET_COMPRESSION, '{"level":6}');
  assert.ok(kept.notes.includes('websocket compression: SERVER_WEBSOCKET_COMPRESSION={"level":6} (from the environment)'), kept.notes.join('\n'));
  const chosen = buildEnv(parseArgs(['--compression', 'meteor-default'], {}), 'Meteor 3.1.1', { SERVER_WEBSOCKET_COMPRESSION: '{"level":6}' });
  assert.equal(chosen.env.SERVER_WEBSOCKET_COMPRESSION, JSON.stringify(SHARED_DEFLATE_COMPRESSION));
  const byEnvPreset = buildEnv(parseArgs([], { MESHPULSE_COMPRESSION: 'off' }), 'Meteor 3.1.1', { SERVER_WEBSOCKET_COMPRESSION: '{"level":6}' });
  assert.equal(byEnvPreset.env.SERVER_WEBSOCKET_COMPRESSION, 'false');
  assert.throws(() => buildEnv(parseArgs([], {}), 'Meteor 3.1.1', { SERVER_WEBSOCKET_COMPRESSION: 'x' }), /SERVER_WEBSOCKET_COMPRESSION in the environment is not JSON/);
  assert.equal(websocketCompressionFor(parseArgs([], {}), 'Meteor 3.1.1', { SERVER_WEBSOCKET_COMPRESSION: 'false' }).value, 'false');
});

test('buildEnv: --transport sets DDP_TRANSPORT for Meteor 3.5+ and says when older Meteor ignores it', () => {
  const uws = buildEnv(parseArgs(['--transport', 'uws'], {}), 'Meteor 3.5.2', {});
  assert.equal(uws.env.DDP_TRANSPORT, 'uws');
  assert.ok(uws.notes.includes('DDP transport: uws (DDP_TRANSPORT=uws)'), uws.notes.join('\n'));

  const old = buildEnv(parseArgs(['--transport', 'uws'], {}), 'Meteor 3.0.4', {});
  assert.equal(old.env.DDP_TRANSPORT, 'uws', 'set anyway: harmless where it is not read');
  assert.ok(old.notes.some((line) => /^DDP transport: ws \(Meteor 3\.0\.4 ignores DDP_TRANSPORT=uws: only Meteor 3\.5\+ reads it\)$/.test(line)), old.notes.join('\n'));

  // `ws` is Meteor's default server: the variable is removed rather than set to a value Meteor rejects.
  const ws = buildEnv(parseArgs(['--transport', 'ws'], {}), 'Meteor 3.5.2', { DDP_TRANSPORT: 'uws' });
  assert.equal('DDP_TRANSPORT' in ws.env, false);
  assert.ok(ws.notes.some((line) => /^DDP transport: ws \(Meteor's default websocket server\)$/.test(line)), ws.notes.join('\n'));

  const inherited = buildEnv(parseArgs([], {}), 'Meteor 3.5.2', { DDP_TRANSPORT: 'uws' });
  assert.equal(inherited.env.DDP_TRANSPORT, 'uws');
  assert.ok(inherited.notes.includes('DDP transport: uws (DDP_TRANSPORT=uws from the environment)'));

  // Meteor 3.5's own name for its default transport.
  const sockjs = buildEnv(parseArgs(['--transport', 'sockjs'], {}), 'Meteor 3.5.2', { DDP_TRANSPORT: 'uws' });
  assert.equal('DDP_TRANSPORT' in sockjs.env, false);
  // A value Meteor 3.5 rejects ("Unknown DDP transport") is refused before Meteor starts; older
  // Meteor never reads it, and --transport replaces it.
  assert.throws(() => buildEnv(parseArgs([], {}), 'Meteor 3.5.2', { DDP_TRANSPORT: 'ws' }), (err) => err instanceof UsageError && /DDP_TRANSPORT=ws in the environment: Meteor 3\.5\.2 knows sockjs and uws only/.test(err.message));
  assert.ok(buildEnv(parseArgs([], {}), 'Meteor 3.0.4', { DDP_TRANSPORT: 'ws' }).notes.some((line) => /ignores DDP_TRANSPORT=ws/.test(line)));
  assert.equal('DDP_TRANSPORT' in buildEnv(parseArgs(['--transport', 'ws'], {}), 'Meteor 3.5.2', { DDP_TRANSPORT: 'ws' }).env, false);
});

test('mongoPlan: MONGO_URL first (password hidden), else Meteor\'s own mongod, else one line saying to set MONGO_URL', () => {
  const external = mongoPlan({ MONGO_URL: 'mongodb://meshpulse:secret@db.example:27017/meshpulse' }, { path: '/x/mongod', exists: false });
  assert.equal(external.ok, true);
  assert.equal(external.source, 'MONGO_URL');
  assert.equal(external.line, 'MongoDB: MONGO_URL (mongodb://meshpulse:***@db.example:27017/meshpulse)');

  const own = mongoPlan({}, { path: '/m/dev_bundle/mongodb/bin/mongod', exists: true });
  assert.equal(own.ok, true);
  assert.equal(own.source, 'meteor');
  assert.match(own.line, /^MongoDB: Meteor's own; meteor run starts its embedded mongod \(\/m\/dev_bundle\/mongodb\/bin\/mongod\)\. Set MONGO_URL to use another\.$/);

  assert.equal(mongoPlan({}, null).ok, true, 'a dev bundle that cannot be found is left to meteor run (its output is watched)');

  const none = mongoPlan({}, { path: '/m/dev_bundle/mongodb/bin/mongod', exists: false });
  assert.equal(none.ok, false);
  assert.equal(none.line.split('\n').length, 1);
  assert.match(none.line, /no mongod \(\/m\/dev_bundle\/mongodb\/bin\/mongod\) and MONGO_URL is not set; .*MONGO_URL=mongodb:\/\/127\.0\.0\.1:27017\/meshpulse npm start$/);
});

test('mongoFailureInOutput: meteor\'s "spawn .../mongod ENOENT" becomes the same one line; nothing when MONGO_URL is set', () => {
  const output = 'Started proxy.\nUnexpected mongo exit code null. Restarting.\nError: spawn /tmp/lab/dev_bundle/mongodb/bin/mongod ENOENT\n';
  const line = mongoFailureInOutput(output, {});
  assert.match(line, /no mongod \(\/tmp\/lab\/dev_bundle\/mongodb\/bin\/mongod\) and MONGO_URL is not set/);
  assert.equal(line.split('\n').length, 1);
  assert.match(mongoFailureInOutput("Can't start Mongo server.\n", {}), /could not start its embedded MongoDB/);
  assert.equal(mongoFailureInOutput(output, { MONGO_URL: 'mongodb://127.0.0.1/x' }), null);
  assert.equal(mongoFailureInOutput('=> Started your app.\n', {}), null);
});

test('redactMongoUrl leaves URLs without a password alone', () => {
  assert.equal(redactMongoUrl('mongodb://127.0.0.1:27017/meshpulse'), 'mongodb://127.0.0.1:27017/meshpulse');
  assert.equal(redactMongoUrl('mongodb+srv://u:p@cluster/x?retryWrites=true'), 'mongodb+srv://u:***@cluster/x?retryWrites=true');
});

test('findBundledMongod: dev_bundle beside the real meteor script (installed Meteor or a checkout)', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'meshpulse-meteor-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const tool = path.join(dir, 'packages', 'meteor-tool', 'mt-os');
  fs.mkdirSync(path.join(tool, 'dev_bundle', 'mongodb', 'bin'), { recursive: true });
  fs.writeFileSync(path.join(tool, 'meteor'), '#!/bin/sh\n');
  fs.symlinkSync(path.join(tool, 'meteor'), path.join(dir, 'meteor')); // like ~/.meteor/meteor
  const mongod = path.join(tool, 'dev_bundle', 'mongodb', 'bin', 'mongod');
  assert.deepEqual(findBundledMongod(path.join(dir, 'meteor')), { path: mongod, exists: false });
  fs.writeFileSync(mongod, '');
  assert.deepEqual(findBundledMongod(path.join(dir, 'meteor')), { path: mongod, exists: true });
});

test('appServerPid: the built main.js under Meteor\'s tool, not another app\'s or a stranger\'s', () => {
  const ps = [
    '    1     0 /sbin/init',
    '  100     1 node /usr/lib/node_modules/npm/bin/npm-cli.js start',
    '  200   100 node scripts/start.js',
    '  300   200 /home/u/.meteor/packages/meteor-tool/3.5.2/mt-os.linux.x86_64/dev_bundle/bin/node tools/index.js run --settings settings.json',
    '  310   300 /home/u/.meteor/.../dev_bundle/mongodb/bin/mongod --bind_ip 127.0.0.1 --port 3001',
    '  320   300 /home/u/.meteor/.../dev_bundle/bin/node --no-wasm-code-gc /srv/meshpulse/.meteor/local/build/main.js',
    // Another Meteor app on the same machine: its server is not ours to stop.
    '  400     1 /opt/other/dev_bundle/bin/node /opt/other/.meteor/local/build/main.js',
    'garbage line',
  ].join('\n');
  assert.equal(appServerPid(ps, 300), 320);
  assert.equal(appServerPid(ps, 200), 320, 'a deeper descendant is found too');
  assert.equal(appServerPid(ps, 999), null);
  assert.equal(appServerPid(ps.replace(/  320 .*\n/, ''), 300), null, 'still building: no server yet');
  assert.equal(appServerPid('', 300), null);
  // A loop in the parent links (pid reuse while listing) ends the walk instead of spinning.
  assert.equal(appServerPid('  5 6 node .meteor/local/build/main.js\n  6 5 x', 300), null);
});

test('withoutStopNoise: after our own stop, Meteor\'s "crashing" lines go, the app\'s own lines stay', () => {
  const output = 'I20261128-21:52:17.184(0)? [meshpulse] stopped in 0.0 s\n=> Exited with code: 0\n=> Your application is crashing. Waiting for file change.\n';
  assert.equal(withoutStopNoise(output), 'I20261128-21:52:17.184(0)? [meshpulse] stopped in 0.0 s\n');
  assert.equal(withoutStopNoise('=> Exited with code: 1\n'), '', 'an exit code is the server\'s own log to tell');
  assert.equal(withoutStopNoise('=> Meteor server restarted\n'), '=> Meteor server restarted\n');
  assert.equal(withoutStopNoise('partial line without newline'), 'partial line without newline');
});
