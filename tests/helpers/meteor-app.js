'use strict';
/**
 * Start the real MeshPulse app under Meteor for end-to-end and browser tests.
 *
 *   const app = await startApp({ settings: { sources: { simulator: { ratePerSecond: 50 } } } });
 *   ... app.url, app.port, app.logs() ...
 *   await app.stop();
 *
 * Meteor is `$METEOR_BIN` or `meteor` on the PATH. When neither runs, startApp throws a
 * MeteorUnavailableError whose message says so; suites skip with that reason.
 * MongoDB: `$MONGO_URL`, else the test server from ./mongo-server.js (Meteor's own mongod
 * would also do, but it cannot be downloaded on every machine).
 */
const fs = require('fs');
const os = require('os');
const net = require('net');
const path = require('path');
const { spawn, spawnSync } = require('child_process');
const { mergeSettings, DEFAULT_SETTINGS } = require('../../imports/core/settings');

const ROOT = path.resolve(__dirname, '../..');
// A cold Meteor build (first run, no .meteor/local cache) takes minutes on 2 cores.
const START_TIMEOUT_MS = Number(process.env.MESHPULSE_APP_START_TIMEOUT_MS || 8 * 60 * 1000);

class MeteorUnavailableError extends Error {
  constructor(message) {
    super(message);
    this.name = 'MeteorUnavailableError';
  }
}

function findMeteor() {
  const candidates = [process.env.METEOR_BIN, 'meteor'].filter(Boolean);
  for (const candidate of candidates) {
    const probe = spawnSync(candidate, ['--version'], { encoding: 'utf8', timeout: 120000, cwd: ROOT });
    if (probe.status === 0) return { bin: candidate, version: (probe.stdout || '').trim() };
  }
  return null;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** Poll GET /api/health until it answers 200, the child exits, or the deadline passes. */
async function waitForHealth(url, child, deadline, pollMs = 1000) {
  while (Date.now() < deadline) {
    if (child.exitCode !== null) return false;
    try {
      const response = await fetch(`${url}/api/health`);
      if (response.ok) return true;
    } catch (err) {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  return false;
}

async function startApp({ settings = {}, env = {}, port } = {}) {
  const meteor = findMeteor();
  if (!meteor) throw new MeteorUnavailableError('Meteor is not available (set METEOR_BIN or put `meteor` on the PATH)');
  let mongo = null;
  let mongoUrl = process.env.MONGO_URL;
  if (!mongoUrl) {
    const { startMongo } = require('./mongo-server');
    mongo = await startMongo();
    // Meteor takes the database from the URL path.
    mongoUrl = mongo.url.replace('/?', `/${mongo.dbName}?`);
  }
  const appPort = port || await freePort();
  const settingsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'meshpulse-settings-'));
  const settingsFile = path.join(settingsDir, 'settings.json');
  const merged = mergeSettings(mergeSettings(DEFAULT_SETTINGS, { apiKey: 'test-api-key', sources: { simulator: { ratePerSecond: 20 } } }), settings);
  fs.writeFileSync(settingsFile, JSON.stringify(merged, null, 2));
  const output = [];
  const child = spawn(meteor.bin, ['run', '--settings', settingsFile, '--port', String(appPort), '--once'], {
    cwd: ROOT,
    env: { ...process.env, MONGO_URL: mongoUrl, METEOR_DISABLE_OPTIMISTIC_CACHING: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const keep = (chunk) => {
    output.push(chunk.toString());
    if (output.length > 2000) output.splice(0, 1000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const url = `http://127.0.0.1:${appPort}`;
  const stop = async () => {
    if (child.exitCode === null) {
      try { process.kill(-child.pid, 'SIGTERM'); } catch (err) { /* already gone */ }
      await new Promise((resolve) => {
        const timer = setTimeout(() => { try { process.kill(-child.pid, 'SIGKILL'); } catch (err) { /* gone */ } resolve(); }, 5000);
        child.once('exit', () => { clearTimeout(timer); resolve(); });
      });
    }
    if (mongo) await mongo.stop();
    fs.rmSync(settingsDir, { recursive: true, force: true });
  };
  const ready = await waitForHealth(url, child, Date.now() + START_TIMEOUT_MS);
  if (!ready) {
    const tail = output.join('').slice(-3000);
    await stop();
    throw new Error(`the app did not become healthy within ${START_TIMEOUT_MS / 1000} s:\n${tail}`);
  }
  return { url, port: appPort, meteorVersion: meteor.version, settings: merged, mongoUrl, logs: () => output.join(''), stop, pid: child.pid };
}

module.exports = { startApp, findMeteor, MeteorUnavailableError, freePort, waitForHealth };
