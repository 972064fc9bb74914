'use strict';
/**
 * A MongoDB for tests: `const { url, dbName, stop } = await startMongo()`.
 *
 * - With MONGO_URL set, that server is used as it is: `dbName` is fresh for every call, and
 *   stop() does nothing (the server is not ours to stop).
 * - Otherwise an in-memory de.bwaldvogel:mongo-java-server is started on a free loopback port
 *   (tests/support/mongo-java-server). Its classpath is built once with Maven and javac into
 *   tests/.cache/ (keyed by a hash of the pom and Main.java, so editing either rebuilds);
 *   on a warm cache a start costs about one JVM start-up. stop() closes its standard input and
 *   kills it. That backend has no transactions and no oplog, and its TTL indexes never expire.
 *
 * When Java or Maven is missing, startMongo() rejects with an Error whose message says what is
 * missing and how to get around it, for the tests to print as their skip reason.
 */
const { spawn, execFile } = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const net = require('net');
const path = require('path');

const SUPPORT_DIR = path.resolve(__dirname, '../support/mongo-java-server');
const CACHE_ROOT = path.resolve(__dirname, '../.cache/mongo-java-server');
const BUILD_TIMEOUT_MS = 5 * 60 * 1000; // a cold Maven download
const START_TIMEOUT_MS = 30 * 1000;

let databaseCounter = 0;

function freshDatabaseName() {
  return `meshpulse_test_${process.pid}_${Date.now().toString(36)}_${++databaseCounter}`;
}

function run(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    execFile(command, args, { maxBuffer: 16 * 1024 * 1024, ...options }, (err, stdout, stderr) => {
      if (err) {
        err.message = `${command} ${args.join(' ')} failed: ${err.message}\n${stdout}\n${stderr}`.trim();
        reject(err);
      } else {
        resolve(stdout);
      }
    });
  });
}

/** Resolves true when `command` can be run at all (ENOENT means it is not installed). */
function hasCommand(command, args) {
  return new Promise((resolve) => {
    execFile(command, args, (err) => resolve(!(err && err.code === 'ENOENT')));
  });
}

function sourceHash() {
  const sha = crypto.createHash('sha256');
  for (const name of ['pom.xml', 'Main.java']) sha.update(fs.readFileSync(path.join(SUPPORT_DIR, name)));
  return sha.digest('hex').slice(0, 12);
}

/** The directory holding lib/*.jar and Main.class, built on first use. */
async function buildClasspath() {
  const dir = path.join(CACHE_ROOT, sourceHash());
  if (fs.existsSync(path.join(dir, 'Main.class'))) return dir;

  if (!(await hasCommand('java', ['-version']))) throw new Error('mongo-java-server needs Java: `java` was not found (apt-get install default-jdk-headless), or set MONGO_URL to a running MongoDB');
  if (!(await hasCommand('javac', ['-version']))) throw new Error('mongo-java-server needs a JDK: `javac` was not found (apt-get install default-jdk-headless), or set MONGO_URL to a running MongoDB');
  if (!(await hasCommand('mvn', ['-v']))) throw new Error('mongo-java-server needs Maven to fetch its jars: `mvn` was not found (apt-get install maven), or set MONGO_URL to a running MongoDB');

  // Build beside the final directory and rename, so concurrent test files never see half a cache.
  const staging = `${dir}.tmp-${process.pid}-${Date.now()}`;
  fs.mkdirSync(staging, { recursive: true });
  try {
    await run('mvn', ['-q', '-B', '-f', path.join(SUPPORT_DIR, 'pom.xml'), 'dependency:copy-dependencies', `-DoutputDirectory=${path.join(staging, 'lib')}`], { timeout: BUILD_TIMEOUT_MS });
    await run('javac', ['-cp', path.join(staging, 'lib', '*'), '-d', staging, path.join(SUPPORT_DIR, 'Main.java')], { timeout: BUILD_TIMEOUT_MS });
    try {
      fs.renameSync(staging, dir);
    } catch (err) {
      // Another process finished first: its cache is as good as ours.
      if (!fs.existsSync(path.join(dir, 'Main.class'))) throw err;
      fs.rmSync(staging, { recursive: true, force: true });
    }
  } catch (err) {
    fs.rmSync(staging, { recursive: true, force: true });
    throw new Error(`could not build mongo-java-server into ${CACHE_ROOT}: ${err.message}`);
  }
  return dir;
}

/** Resolves once a TCP connection to 127.0.0.1:port succeeds. */
function canConnect(port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

/** Spawn the server on `port` (0 = any free port); resolves with { port, child } when it accepts connections. */
function spawnServer(classDir, port) {
  return new Promise((resolve, reject) => {
    const classpath = [classDir, path.join(classDir, 'lib', '*')].join(path.delimiter);
    // MONGO_JAVA_OPTS (e.g. -Xmx12g) for benchmarks that hold millions of documents in memory.
    const javaOptions = (process.env.MONGO_JAVA_OPTS || '').split(/\s+/).filter(Boolean);
    const child = spawn('java', [...javaOptions, '-cp', classpath, 'Main', String(port)], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let settled = false;
    const fail = (err) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(err);
    };
    const timer = setTimeout(() => fail(new Error(`mongo-java-server did not start within ${START_TIMEOUT_MS} ms; stderr: ${stderr.slice(-2000)}`)), START_TIMEOUT_MS);
    child.on('error', (err) => fail(new Error(err.code === 'ENOENT'
      ? 'mongo-java-server needs Java: `java` was not found (apt-get install default-jdk-headless), or set MONGO_URL to a running MongoDB'
      : `could not run java: ${err.message}`)));
    child.on('exit', (code, signal) => fail(new Error(`mongo-java-server exited early (code ${code}, signal ${signal}); stderr: ${stderr.slice(-2000)}`)));
    child.stderr.on('data', (chunk) => { stderr += chunk; });
    child.stdout.on('data', async (chunk) => {
      stdout += chunk;
      const match = /listening (\d+)/.exec(stdout);
      if (!match || settled) return;
      const boundPort = Number(match[1]);
      if (!(await canConnect(boundPort))) return fail(new Error(`mongo-java-server reported port ${boundPort} but refuses connections`));
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      // Don't let a forgotten stop() keep the test process alive; its exit closes our stdin anyway.
      child.unref();
      for (const stream of [child.stdin, child.stdout, child.stderr]) if (stream.unref) stream.unref();
      resolve({ port: boundPort, child });
    });
  });
}

/**
 * Start (or, with MONGO_URL, borrow) a MongoDB. `options.port` asks for a fixed port (default: any free one).
 * @returns {Promise<{ url: string, dbName: string, external: boolean, port?: number, stop: () => Promise<void> }>}
 */
async function startMongo(options = {}) {
  if (process.env.MONGO_URL) {
    return { url: process.env.MONGO_URL, dbName: freshDatabaseName(), external: true, stop: async () => {} };
  }
  const classDir = await buildClasspath();
  const { port, child } = await spawnServer(classDir, options.port || 0);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    url: `mongodb://127.0.0.1:${port}/?directConnection=true`,
    dbName: freshDatabaseName(),
    external: false,
    port,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.stdin.end(); // Main exits when its stdin closes
      const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
      await exited;
      clearTimeout(timer);
    },
  };
}

module.exports = { startMongo, buildClasspath };
