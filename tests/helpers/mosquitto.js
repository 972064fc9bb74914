'use strict';
/**
 * A real mosquitto broker for tests and benchmarks, started on a free loopback port with a
 * config file in a temp directory:
 *
 *   const reason = await mosquittoMissing();      // null, or why we can't run one (skip reason)
 *   const broker = await startMosquitto({ persistence: true, maxQueuedMessages: 0 });
 *   broker.url;                                   // mqtt://127.0.0.1:<port>
 *   await broker.restart();                       // SIGTERM (mosquitto saves its db), same port
 *   await broker.stop();                          // and removes the temp directory
 *
 * Options (all optional): port, persistence, maxQueuedMessages, maxInflightMessages,
 * sysInterval (s), users ({ name: password } -> password_file, anonymous refused), tls
 * (true -> a self-signed certificate for 127.0.0.1/localhost made with openssl; broker.ca is
 * its path), extra (config lines). Debian: `apt-get install -y mosquitto`.
 */
const { spawn, execFile } = require('child_process');
const fs = require('fs');
const net = require('net');
const os = require('os');
const path = require('path');

const START_TIMEOUT_MS = 10000;
const CANDIDATES = ['mosquitto', '/usr/sbin/mosquitto', '/usr/local/sbin/mosquitto'];

function run(command, args) {
  return new Promise((resolve, reject) => {
    execFile(command, args, { timeout: 30000 }, (err, stdout, stderr) => {
      if (err) {
        err.message = `${command} ${args[0]} ... failed: ${err.message} ${stderr}`.trim();
        reject(err);
      } else resolve(stdout);
    });
  });
}

/** Resolves with the path of a runnable mosquitto, or null. */
async function findMosquitto() {
  for (const candidate of [process.env.MOSQUITTO_BIN, ...CANDIDATES].filter(Boolean)) {
    const ok = await new Promise((resolve) => execFile(candidate, ['-h'], (err) => resolve(!(err && err.code === 'ENOENT'))));
    if (ok) return candidate;
  }
  return null;
}

/** null when mosquitto (and what the options need) can run here; otherwise the skip reason. */
async function mosquittoMissing({ tls = false, users = false } = {}) {
  if (!(await findMosquitto())) return 'mosquitto is not installed (Debian: apt-get install -y mosquitto; or set MOSQUITTO_BIN)';
  const has = (command, args) => new Promise((resolve) => execFile(command, args, (err) => resolve(!(err && err.code === 'ENOENT'))));
  if (tls && !(await has('openssl', ['version']))) return 'openssl is not installed (needed for the self-signed test certificate)';
  if (users && !(await has('mosquitto_passwd', ['-h'])) && !fs.existsSync('/usr/bin/mosquitto_passwd')) return 'mosquitto_passwd is not installed (it comes with the mosquitto package)';
  return null;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function canConnect(port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

async function makeCertificate(dir) {
  const key = path.join(dir, 'server-key.pem');
  const cert = path.join(dir, 'server-cert.pem');
  await run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=localhost',
    '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost']);
  return { key, cert };
}

async function startMosquitto(options = {}) {
  const binary = await findMosquitto();
  if (!binary) throw new Error('mosquitto is not installed (Debian: apt-get install -y mosquitto)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'meshpulse-mosquitto-'));
  const port = options.port || (await freePort());
  const lines = [
    `listener ${port} 127.0.0.1`,
    `sys_interval ${options.sysInterval ?? 1}`,
    `persistence ${options.persistence ? 'true' : 'false'}`,
    `persistence_location ${dir}/`,
    'log_dest stderr',
    'log_type error',
    'log_type warning',
  ];
  // As root, mosquitto would switch to user `mosquitto`, who cannot read our temp directory.
  if (process.getuid && process.getuid() === 0) lines.push('user root');
  if (options.maxQueuedMessages !== undefined) lines.push(`max_queued_messages ${options.maxQueuedMessages}`);
  if (options.maxInflightMessages !== undefined) lines.push(`max_inflight_messages ${options.maxInflightMessages}`);
  if (options.users) {
    const file = path.join(dir, 'passwords');
    let first = true;
    for (const [name, password] of Object.entries(options.users)) {
      await run('mosquitto_passwd', [...(first ? ['-c'] : []), '-b', file, name, password]);
      first = false;
    }
    lines.push(`password_file ${file}`, 'allow_anonymous false');
  } else {
    lines.push('allow_anonymous true');
  }
  let ca = null;
  if (options.tls) {
    const { key, cert } = await makeCertificate(dir);
    lines.push(`certfile ${cert}`, `keyfile ${key}`);
    ca = cert;
  }
  lines.push(...(options.extra || []));
  const configFile = path.join(dir, 'mosquitto.conf');
  fs.writeFileSync(configFile, `${lines.join('\n')}\n`);

  let child = null;
  let stderr = '';
  async function launch() {
    stderr = '';
    child = spawn(binary, ['-c', configFile], { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr.on('data', (chunk) => { stderr = (stderr + chunk).slice(-4000); });
    const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    child.exited = exited;
    const deadline = Date.now() + START_TIMEOUT_MS;
    let early = null;
    exited.then((result) => { early = result; });
    while (!(await canConnect(port))) {
      if (early) throw new Error(`mosquitto exited on start (code ${early.code}): ${stderr}`);
      if (Date.now() > deadline) throw new Error(`mosquitto did not accept connections within ${START_TIMEOUT_MS} ms: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** SIGTERM (mosquitto writes its persistence file on the way out) and wait for the exit. */
  async function halt(signal = 'SIGTERM') {
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.kill(signal);
    await child.exited;
  }

  await launch();
  return {
    port,
    url: `${options.tls ? 'mqtts' : 'mqtt'}://127.0.0.1:${port}`,
    dir,
    ca,
    configFile,
    /** The settings written to mosquitto.conf, as { name: value } (what a benchmark records). */
    settings: Object.fromEntries(lines.map((line) => line.split(' ')).filter(([name]) => !['listener', 'persistence_location', 'log_dest', 'log_type', 'user', 'password_file', 'certfile', 'keyfile'].includes(name)).map(([name, ...value]) => [name, value.join(' ')])),
    pid: () => child.pid,
    stderr: () => stderr,
    halt,
    start: launch,
    async restart(signal = 'SIGTERM') {
      await halt(signal);
      await launch();
    },
    async stop() {
      await halt();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

module.exports = { startMosquitto, mosquittoMissing, findMosquitto, freePort };
