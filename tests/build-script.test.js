'use strict';
/**
 * scripts/build.js (`npm run build`): its arguments, the files it writes beside the bundle, and
 * the start.sh it writes run for real with a stand-in `node` (what a service manager starts),
 * then the whole script with a stand-in `meteor` (no Meteor needed). The real Meteor build is
 * checked by hand (README "Running it on a box"); tests/e2e covers the server it runs.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { parseBuildArgs, heapLimitMB, envFileText, startScriptText, serviceUnitText, MARKER } = require('../scripts/build');
const { UsageError } = require('../scripts/start');

const ROOT = path.resolve(__dirname, '..');
const hasSh = spawnSync('sh', ['-c', 'exit 0']).status === 0;

function tempDir(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'meshpulse-build-test-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('parseBuildArgs: ../meshpulse-build by default, --out in both spellings, npm start\'s flags, nothing else', () => {
  const root = '/srv/src/meshpulse';
  const defaults = parseBuildArgs([], {}, root);
  assert.equal(defaults.out, '/srv/src/meshpulse-build');
  assert.equal(defaults.port, '3000');
  assert.equal(defaults.compression, 'meteor-default');
  assert.equal(parseBuildArgs(['--out', '/opt/meshpulse'], {}, root).out, '/opt/meshpulse');
  const options = parseBuildArgs(['--out=/opt/m', '--port', '3100', '--compression', 'off', '--transport', 'uws'], {}, root);
  assert.deepEqual([options.out, options.port, options.compression, options.transport], ['/opt/m', '3100', 'off', 'uws']);
  assert.throws(() => parseBuildArgs(['--out'], {}, root), (err) => err instanceof UsageError && /--out needs a folder/.test(err.message));
  assert.throws(() => parseBuildArgs(['--production'], {}, root), /unknown argument --production/);
  // Inside the source tree Meteor would bundle the build into the next one.
  assert.throws(() => parseBuildArgs(['--out', '/srv/src/meshpulse/build'], {}, root), /inside the source tree/);
  assert.throws(() => parseBuildArgs(['--out', '/srv/src/meshpulse'], {}, root), /inside the source tree/);
  assert.equal(parseBuildArgs(['--out', '/srv/src/meshpulse2'], {}, root).out, '/srv/src/meshpulse2', 'a sibling whose name starts alike is outside');
});

test('heapLimitMB: 1.5 x the memory budget + 256 MB, rounded up to 128 MB; the default budget without one', () => {
  assert.equal(heapLimitMB(512), 1024);
  assert.equal(heapLimitMB(16), 384);
  assert.equal(heapLimitMB(2048), 3328);
  assert.equal(heapLimitMB(undefined), 1024);
  assert.equal(heapLimitMB('nonsense'), 1024);
});

test('envFileText: MONGO_URL left for the operator, the port, npm start\'s compression and transport, the heap limit', () => {
  const text = envFileText({ port: '3100', variables: { SERVER_WEBSOCKET_COMPRESSION: '{"level":6,"memLevel":8,"maxWindowBits":15}', DDP_TRANSPORT: 'uws', PATH: '/usr/bin' }, heapMB: 1024, builtWith: 'Meteor 3.5.2, Node 22.1.0', date: '2026-11-28' });
  const assignments = Object.fromEntries(text.split('\n').filter((line) => line && !line.startsWith('#')).map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
  assert.deepEqual(assignments, {
    MONGO_URL: '',
    ROOT_URL: 'http://localhost:3100',
    PORT: '3100',
    SERVER_WEBSOCKET_COMPRESSION: '{"level":6,"memLevel":8,"maxWindowBits":15}',
    DDP_TRANSPORT: 'uws',
    NODE_OPTIONS: '--max-old-space-size=1024',
  });
  assert.match(text, /Meteor 3\.5\.2, Node 22\.1\.0/);
  assert.match(text, /^# NODE=\/usr\/bin\/node$/m, 'no node of the build\'s major: a hint only');
  assert.match(envFileText({ port: '3000', variables: {}, heapMB: 1024, builtWith: 'x', date: 'd', nodePath: '/home/op/.nvm/versions/node/v22.11.0/bin/node' }), /^NODE=\/home\/op\/\.nvm\/versions\/node\/v22\.11\.0\/bin\/node$/m);
});

test('serviceUnitText: runs start.sh from the build folder, quoted when the path has spaces', () => {
  const unit = serviceUnitText({ out: '/opt/mesh pulse', user: 'mesh' });
  assert.match(unit, /^ExecStart="\/opt\/mesh pulse\/start\.sh"$/m);
  assert.match(unit, /^WorkingDirectory=\/opt\/mesh pulse$/m);
  assert.match(unit, /^User=mesh$/m);
  assert.match(unit, /^KillSignal=SIGTERM$/m);
  assert.match(serviceUnitText({ out: '/opt/m', user: 'u' }), /^ExecStart=\/opt\/m\/start\.sh$/m);
});

/** A build folder with start.sh and a stand-in `node` that prints what it was started with. */
function fakeBuild(t, { envFile, nodeMajor = process.versions.node.split('.')[0] }) {
  const out = tempDir(t);
  fs.mkdirSync(path.join(out, 'bundle'));
  fs.writeFileSync(path.join(out, 'bundle', 'main.js'), '');
  fs.writeFileSync(path.join(out, 'settings.json'), '{"apiKey":"k","store":{"memoryBudgetMB":64}}\n');
  if (envFile !== null) fs.writeFileSync(path.join(out, 'meshpulse.env'), envFile);
  fs.writeFileSync(path.join(out, 'start.sh'), startScriptText({ nodeMajor, builtWith: 'test' }), { mode: 0o755 });
  const bin = path.join(out, 'fake-bin');
  fs.mkdirSync(bin);
  // `node -p ...` (the version check) answers a major version; `node main.js` reports itself.
  fs.writeFileSync(path.join(bin, 'node'), `#!/bin/sh
if [ "$1" = "-p" ]; then echo "\${FAKE_NODE_MAJOR:-${nodeMajor}}"; exit 0; fi
printf '%s\\n' "args=$*" "cwd=$(pwd)" "MONGO_URL=\${MONGO_URL:-}" "PORT=\${PORT:-}" "ROOT_URL=\${ROOT_URL:-}" "NODE_OPTIONS=\${NODE_OPTIONS:-}" "SERVER_WEBSOCKET_COMPRESSION=\${SERVER_WEBSOCKET_COMPRESSION:-}" "METEOR_SETTINGS=\${METEOR_SETTINGS:-}"
`, { mode: 0o755 });
  const start = (env = {}) => spawnSync(path.join(out, 'start.sh'), [], { encoding: 'utf8', env: { PATH: `${bin}:/usr/bin:/bin`, ...env } });
  return { out, start };
}

const reported = (stdout) => Object.fromEntries(stdout.trim().split('\n').map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));

test('start.sh: loads meshpulse.env with the environment winning, hands over the settings, execs main.js in bundle/', { skip: !hasSh && 'needs sh' }, (t) => {
  const envFile = envFileText({ port: '3100', variables: { SERVER_WEBSOCKET_COMPRESSION: '{"level":6,"memLevel":8,"maxWindowBits":15}' }, heapMB: 384, builtWith: 'test', date: 'today' })
    .replace('MONGO_URL=', 'MONGO_URL=mongodb://db.example:27017/meshpulse?directConnection=true&w=1');
  const { out, start } = fakeBuild(t, { envFile });
  const run = start();
  assert.equal(run.status, 0, run.stderr);
  const seen = reported(run.stdout);
  assert.equal(seen.args, 'main.js');
  assert.equal(fs.realpathSync(seen.cwd), fs.realpathSync(path.join(out, 'bundle')));
  assert.equal(seen.MONGO_URL, 'mongodb://db.example:27017/meshpulse?directConnection=true&w=1', 'a value with = and & is kept whole');
  assert.equal(seen.PORT, '3100');
  assert.equal(seen.ROOT_URL, 'http://localhost:3100');
  assert.equal(seen.NODE_OPTIONS, '--max-old-space-size=384');
  assert.equal(seen.SERVER_WEBSOCKET_COMPRESSION, '{"level":6,"memLevel":8,"maxWindowBits":15}', 'JSON quotes are kept as written');
  assert.equal(seen.METEOR_SETTINGS, '{"apiKey":"k","store":{"memoryBudgetMB":64}}');
  assert.equal(run.stderr, '', 'no warning when the Node major matches');

  const overridden = reported(start({ PORT: '4000', MONGO_URL: 'mongodb://other/db' }).stdout);
  assert.equal(overridden.PORT, '4000', 'the environment wins over meshpulse.env');
  assert.equal(overridden.MONGO_URL, 'mongodb://other/db');
  assert.equal(overridden.ROOT_URL, 'http://localhost:3100');

  const otherNode = start({ FAKE_NODE_MAJOR: '18' });
  assert.equal(otherNode.status, 0);
  assert.match(otherNode.stderr, /warning: this build was made for Node \d+ .* this node is 18/);

  // NODE picks the executable (a service manager's PATH lacks nvm's); a wrong one is named.
  const elsewhere = path.join(out, 'nvm-node');
  fs.copyFileSync(path.join(out, 'fake-bin', 'node'), elsewhere);
  fs.chmodSync(elsewhere, 0o755);
  const chosen = spawnSync(path.join(out, 'start.sh'), [], { encoding: 'utf8', env: { PATH: '/usr/bin:/bin', NODE: elsewhere } });
  assert.equal(chosen.status, 0, chosen.stderr);
  assert.equal(reported(chosen.stdout).args, 'main.js');
  const missing = spawnSync(path.join(out, 'start.sh'), [], { encoding: 'utf8', env: { PATH: '/usr/bin:/bin', NODE: '/nowhere/node' } });
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /\/nowhere\/node not found \(set NODE in meshpulse\.env/);
});

test('start.sh: refuses to start without MONGO_URL, and on a line that is not an assignment, saying why', { skip: !hasSh && 'needs sh' }, (t) => {
  const unset = fakeBuild(t, { envFile: envFileText({ port: '3000', variables: {}, heapMB: 1024, builtWith: 'test', date: 'today' }) }).start();
  assert.equal(unset.status, 1);
  assert.match(unset.stderr, /set MONGO_URL in .*meshpulse\.env .*no MongoDB of its own/);
  assert.equal(unset.stdout, '', 'the server was not started');

  const noFile = fakeBuild(t, { envFile: null }).start({ MONGO_URL: 'mongodb://x/db' });
  assert.equal(noFile.status, 0, 'meshpulse.env is optional when the environment has MONGO_URL');

  const bad = fakeBuild(t, { envFile: 'MONGO_URL=mongodb://x/db\nrm -rf /\n' }).start();
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /not a variable assignment: rm -rf \//);
  const injection = fakeBuild(t, { envFile: 'MONGO_URL=mongodb://x/db\n$(touch pwned)=1\n' });
  assert.equal(injection.start().status, 2);
  assert.equal(fs.existsSync(path.join(injection.out, 'pwned')), false);
});

test('npm run build with a stand-in meteor: bundle, dependencies, the four files; a rebuild keeps the edited ones; refuses a folder it did not build', { skip: !hasSh && 'needs sh' }, (t) => {
  const dir = tempDir(t);
  const meteor = path.join(dir, 'meteor');
  // --version; `node -p` (the bundle's Node); `build --directory OUT --server-only` makes a bundle
  // whose server package has no dependencies, so npm install needs no registry.
  fs.writeFileSync(meteor, `#!/bin/sh
case "$1" in
  --version) echo "Meteor 3.5.2" ;;
  node) echo "22.11.0" ;;
  build) mkdir -p "$3/bundle/programs/server" && echo '{"name":"meshpulse-server","version":"1.0.0","private":true}' > "$3/bundle/programs/server/package.json" && echo "// main" > "$3/bundle/main.js" ;;
  *) exit 3 ;;
esac
`, { mode: 0o755 });
  const out = path.join(dir, 'out');
  const build = (args = []) => spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'build.js'), '--out', out, ...args], { encoding: 'utf8', cwd: ROOT, env: { ...process.env, METEOR_BIN: meteor, npm_config_offline: 'true' }, timeout: 120000 });
  const first = build(['--port', '3100']);
  assert.equal(first.status, 0, first.stderr + first.stdout);
  for (const file of ['bundle/main.js', 'settings.json', 'meshpulse.env', 'start.sh', 'meshpulse.service', MARKER]) assert.ok(fs.existsSync(path.join(out, file)), file);
  assert.ok(fs.existsSync(path.join(out, 'bundle/programs/server/package-lock.json')), 'npm install ran in programs/server');
  assert.equal(fs.statSync(path.join(out, 'start.sh')).mode & 0o777, 0o755);
  assert.equal(fs.statSync(path.join(out, 'settings.json')).mode & 0o777, 0o600, 'settings may hold secrets');
  assert.deepEqual(JSON.parse(fs.readFileSync(path.join(out, 'settings.json'), 'utf8')), JSON.parse(fs.readFileSync(path.join(ROOT, 'settings.json'), 'utf8')));
  const env = fs.readFileSync(path.join(out, 'meshpulse.env'), 'utf8');
  assert.match(env, /^PORT=3100$/m);
  assert.match(env, /^SERVER_WEBSOCKET_COMPRESSION=\{"level":6,"memLevel":8,"maxWindowBits":15\}$/m);
  assert.match(fs.readFileSync(path.join(out, 'start.sh'), 'utf8'), /made for Node 22 /);
  if (process.versions.node.split('.')[0] !== '22') assert.match(env, /^# NODE=/m, 'this node is not the bundle\'s major: not written as NODE');
  else assert.match(env, new RegExp(`^NODE=${process.execPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
  assert.equal(JSON.parse(fs.readFileSync(path.join(out, MARKER), 'utf8')).meteor, 'Meteor 3.5.2');
  assert.match(first.stdout, /set MONGO_URL \(and ROOT_URL\) in .*meshpulse\.env/);

  fs.writeFileSync(path.join(out, 'meshpulse.env'), 'MONGO_URL=mongodb://mine/db\n');
  fs.writeFileSync(path.join(out, 'bundle', 'left-from-the-first-build'), '');
  const again = build();
  assert.equal(again.status, 0, again.stderr);
  assert.equal(fs.existsSync(path.join(out, 'bundle', 'left-from-the-first-build')), false, 'the new bundle replaced the old one');
  assert.ok(fs.existsSync(path.join(out, 'bundle', 'main.js')));
  assert.deepEqual(fs.readdirSync(out).filter((name) => name.startsWith('.') && name !== MARKER), [], 'no staging folder left behind');
  assert.match(again.stdout, /runs the previous build until you restart it/);
  assert.equal(fs.readFileSync(path.join(out, 'meshpulse.env'), 'utf8'), 'MONGO_URL=mongodb://mine/db\n', 'the operator\'s edits survive a rebuild');
  assert.match(again.stdout, /Kept your settings\.json and meshpulse\.env|Kept your meshpulse\.env and settings\.json/);

  // A failed build leaves the working bundle alone.
  const failing = path.join(dir, 'meteor-failing');
  fs.writeFileSync(failing, fs.readFileSync(meteor, 'utf8').replace(/build\) .*;;/, 'build) echo "boom" >&2; exit 1 ;;'), { mode: 0o755 });
  const failed = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'build.js'), '--out', out], { encoding: 'utf8', cwd: ROOT, env: { ...process.env, METEOR_BIN: failing } });
  assert.equal(failed.status, 1);
  assert.match(failed.stderr, /build --directory .* exited with 1/);
  assert.ok(fs.existsSync(path.join(out, 'bundle', 'main.js')), 'the previous bundle is still there');

  const stranger = path.join(dir, 'stranger');
  fs.mkdirSync(stranger);
  fs.writeFileSync(path.join(stranger, 'notes.txt'), 'mine');
  const refused = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'build.js'), '--out', stranger], { encoding: 'utf8', cwd: ROOT, env: { ...process.env, METEOR_BIN: meteor } });
  assert.equal(refused.status, 2);
  assert.match(refused.stderr, /exists and is not a MeshPulse build/);
  assert.equal(fs.readFileSync(path.join(stranger, 'notes.txt'), 'utf8'), 'mine');
});
