'use strict';
/**
 * Production builds of the app for benchmarks and load tests.
 *
 *   const bundle = await ensureBundle();                 // meteor build --server-only, cached
 *   const server = await startServer({ bundle, port, cpu: 0, settings, env });
 *   ... server.url, server.pid ...
 *   await server.stop();
 *
 * The bundle is built once per source state (keyed by a hash of `git ls-files -s` plus the
 * working-tree diff) into the OS temp folder, never into the repository. Meteor is
 * `$METEOR_BIN` or `meteor` on the PATH; without it, ensureBundle throws MeteorUnavailableError
 * with a message a person can act on. MongoDB: `$MONGO_URL`, else the tests' mongo-java-server.
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const crypto = require('crypto');
const { spawn, spawnSync, execFileSync } = require('child_process');
const { findMeteor, MeteorUnavailableError, freePort, waitForHealth } = require('../../tests/helpers/meteor-app');
const { mergeSettings, DEFAULT_SETTINGS } = require('../../imports/core/settings');

const ROOT = path.resolve(__dirname, '../..');

// What goes into the server bundle; benchmark and test edits must not force a rebuild.
const BUNDLE_INPUTS = ['imports', 'server', 'client', '.meteor/packages', '.meteor/release', '.meteorignore', 'package.json', 'package-lock.json'];

function sourceKey() {
  const tracked = execFileSync('git', ['ls-files', '-s', '--', ...BUNDLE_INPUTS], { cwd: ROOT });
  const diff = execFileSync('git', ['diff', 'HEAD', '--', ...BUNDLE_INPUTS], { cwd: ROOT, maxBuffer: 256 * 1024 * 1024 });
  const hash = crypto.createHash('sha256').update(tracked).update(diff);
  const untracked = execFileSync('git', ['ls-files', '--others', '--exclude-standard', '--', ...BUNDLE_INPUTS], { cwd: ROOT }).toString().split('\n').filter(Boolean);
  for (const file of untracked.sort()) hash.update(file).update(fs.readFileSync(path.join(ROOT, file)));
  return hash.digest('hex').slice(0, 12);
}

function run(command, args, options) {
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed (${result.status}):\n${(result.stderr || '').slice(-3000)}${(result.stdout || '').slice(-2000)}`);
  }
  return result.stdout;
}

/** Build (or reuse) a production server bundle; returns { dir, main, meteorVersion }. */
async function ensureBundle({ log = console.log } = {}) {
  const meteor = findMeteor();
  if (!meteor) throw new MeteorUnavailableError('Meteor is not available: install it with `npx meteor`, or set METEOR_BIN to a meteor executable, then run this again');
  const dir = path.join(os.tmpdir(), `meshpulse-bundle-${sourceKey()}`);
  const main = path.join(dir, 'bundle', 'main.js');
  const ready = path.join(dir, '.ready');
  const built = !fs.existsSync(ready);
  if (built) {
    fs.rmSync(dir, { recursive: true, force: true });
    log(`building a production bundle with ${meteor.version} into ${dir} (a few minutes the first time)...`);
    run(meteor.bin, ['build', '--directory', dir, '--server-only'], { cwd: ROOT, timeout: 20 * 60 * 1000 });
    log('installing the bundle\'s server dependencies...');
    // Meteor copies every node_modules folder of the app into the bundle; .meteorignore keeps
    // Artillery's own (tests/artillery/runner) out, and this variable stays as a guard should one
    // come back: its playwright must not try to download a browser while dependencies are rebuilt.
    run('npm', ['install', '--omit=dev', '--no-audit', '--no-fund'], { cwd: path.join(dir, 'bundle', 'programs', 'server'), timeout: 10 * 60 * 1000, env: { ...process.env, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' } });
    fs.writeFileSync(ready, new Date().toISOString());
  }
  // `built`: this call built it (studies leave the build out of their own duration).
  return { dir, main, meteorVersion: meteor.version, built };
}

/**
 * Start the bundle. `cpu` pins the server to one core with taskset (so the load generator
 * can have the other); `env` adds variables such as SERVER_WEBSOCKET_COMPRESSION;
 * `settings` are merged over the defaults (simulator off unless asked, persistence off
 * unless asked, so a study measures delivery, not MongoDB).
 */
async function startServer({ bundle, port, cpu = null, settings = {}, env = {}, mongoUrl, nodeArgs = [] } = {}) {
  let mongo = null;
  let url = mongoUrl || process.env.MONGO_URL;
  if (!url) {
    const { startMongo } = require('../../tests/helpers/mongo-server');
    mongo = await startMongo();
    url = mongo.url.replace('/?', `/${mongo.dbName}?`);
  }
  const appPort = port || await freePort();
  const merged = mergeSettings(mergeSettings(DEFAULT_SETTINGS, {
    apiKey: 'bench-api-key',
    sources: { simulator: { enabled: false } },
    persistence: { enabled: false },
    limits: { methodCallsPerSecond: 100000, subscriptionsPerSecond: 100000 },
  }), settings);
  // Development: MESHPULSE_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the server.
  if (process.env.MESHPULSE_SERVER_NODE_ARGS) nodeArgs = [...nodeArgs, ...process.env.MESHPULSE_SERVER_NODE_ARGS.split(' ').filter(Boolean)];
  const command = cpu === null ? process.execPath : 'taskset';
  const args = cpu === null ? [...nodeArgs, bundle.main] : ['-c', String(cpu), process.execPath, ...nodeArgs, bundle.main];
  const output = [];
  const child = spawn(command, args, {
    cwd: path.dirname(bundle.main),
    env: { ...process.env, MONGO_URL: url, ROOT_URL: `http://127.0.0.1:${appPort}`, PORT: String(appPort), BIND_IP: '127.0.0.1', METEOR_SETTINGS: JSON.stringify(merged), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (chunk) => { output.push(chunk.toString()); if (output.length > 500) output.shift(); });
  child.stderr.on('data', (chunk) => { output.push(chunk.toString()); if (output.length > 500) output.shift(); });
  const baseUrl = `http://127.0.0.1:${appPort}`;
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((resolve) => {
        const timer = setTimeout(() => { child.kill('SIGKILL'); resolve(); }, 5000);
        child.once('exit', () => { clearTimeout(timer); resolve(); });
      });
    }
    if (mongo) await mongo.stop();
  };
  if (!(await waitForHealth(baseUrl, child, Date.now() + 120000, 250))) {
    const tail = output.join('').slice(-3000);
    await stop();
    throw new Error(`the server did not become healthy:\n${tail}`);
  }
  return { url: baseUrl, wsUrl: `ws://127.0.0.1:${appPort}/websocket`, port: appPort, pid: child.pid, settings: merged, logs: () => output.join(''), stop };
}

module.exports = { ensureBundle, startServer, MeteorUnavailableError };
