#!/usr/bin/env node
'use strict';
/**
 * `npm run build`: MeshPulse as a production server for a box that runs it day and night, with
 * no Meteor tool in memory (the tool and its dev-mode rebuilds hold several hundred MB that a
 * small box needs for packets).
 *
 *   npm run build                              # into ../meshpulse-build (outside the source tree)
 *   npm run build -- --out /opt/meshpulse      # anywhere else
 *   npm run build -- --settings my.json --compression balanced --port 3000 --transport uws
 *
 * It runs `meteor build --server-only --directory`, installs the bundle's server dependencies
 * (`npm install --omit=dev`), and writes beside the bundle:
 *   meshpulse.env      the variables the server reads (MONGO_URL, ROOT_URL, PORT, the websocket
 *                      compression and DDP transport `npm start` would set, a heap limit sized to
 *                      the memory budget); edit it: a rebuild keeps it
 *   settings.json      a copy of the settings (kept too on a rebuild)
 *   start.sh           starts the server in the foreground (`exec $NODE main.js`, so a service
 *                      manager's SIGTERM reaches it and its graceful stop writes what is queued)
 *   meshpulse.service  a systemd unit that runs start.sh
 * A built server has no MongoDB of its own: start.sh refuses to start without MONGO_URL.
 * Meteor is found as `npm start` finds it ($METEOR_BIN, `meteor` on the PATH, ~/.meteor/meteor).
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { parseArgs, buildEnv, findMeteor, UsageError } = require('./start');

const ROOT = path.resolve(__dirname, '..');
// Marks a folder this script built, so that a rebuild may replace its bundle and nothing else is.
const MARKER = '.meshpulse-build.json';
// What the build writes that the operator edits: a rebuild leaves them as they are.
const KEPT_FILES = ['meshpulse.env', 'settings.json'];
// The variables of buildEnv() that the server reads; the rest of the builder's environment stays out.
const SERVER_VARIABLES = ['SERVER_WEBSOCKET_COMPRESSION', 'DDP_TRANSPORT', 'METEOR_ASYNC_QUEUE_BATCH_SIZE', 'METEOR_ASYNC_QUEUE_MAX_CONCURRENT'];

/** `npm run build -- ...` arguments: --out plus `npm start`'s own flags (--port, --compression, ...). Pure; throws UsageError. */
function parseBuildArgs(argv, env = {}, root = ROOT) {
  let out = path.resolve(root, '..', 'meshpulse-build');
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--out' || arg.startsWith('--out=')) {
      const value = arg === '--out' ? argv[++i] : arg.slice('--out='.length);
      if (!value || value.startsWith('--')) throw new UsageError('--out needs a folder');
      out = path.resolve(value);
    } else {
      rest.push(arg);
    }
  }
  const options = parseArgs(rest, env);
  if (options.passthrough.length > 0) throw new UsageError(`unknown argument ${options.passthrough[0]} (build takes --out, --settings, --port, --compression, --transport, --queue-batch, --queue-concurrency)`);
  const relative = path.relative(root, out);
  if (relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative))) {
    throw new UsageError(`--out ${out} is inside the source tree; Meteor would bundle the build into the next build. Pick a folder outside ${root}`);
  }
  return { ...options, out };
}

/** A heap limit for the server: the memory budget's worst case (1.25 x budget + 40 MB, bench:core's hostile streams) plus Meteor's own, rounded up to 128 MB. Pure. */
function heapLimitMB(memoryBudgetMB) {
  const budget = Number(memoryBudgetMB) > 0 ? Number(memoryBudgetMB) : 512;
  return Math.ceil((budget * 1.5 + 256) / 128) * 128;
}

/** The text of meshpulse.env. `variables`: buildEnv()'s values for SERVER_VARIABLES. Pure. */
function envFileText({ port, variables, heapMB, builtWith, date, nodePath = null }) {
  const lines = [
    '# MeshPulse server variables, read by start.sh; a variable already set in the environment wins.',
    `# Written by \`npm run build\` (${builtWith}) on ${date}; a rebuild keeps this file as you edit it.`,
    '#',
    '# The node that runs the server (a service manager\'s PATH often lacks nvm\'s or a tarball\'s).',
    nodePath ? `NODE=${nodePath}` : '# NODE=/usr/bin/node',
    '# MongoDB, required: a built server has no MongoDB of its own (mongodb://host:27017/meshpulse).',
    'MONGO_URL=',
    '# The address browsers use; Meteor builds its absolute URLs from it.',
    `ROOT_URL=http://localhost:${port}`,
    `PORT=${port}`,
    '# Listen on every interface (the default); 127.0.0.1 behind a reverse proxy.',
    '# BIND_IP=127.0.0.1',
    '# Behind one reverse proxy (README, "Behind HTTPS"): clients\' addresses from X-Forwarded-For.',
    '# HTTP_FORWARDED_COUNT=1',
  ];
  const notes = {
    SERVER_WEBSOCKET_COMPRESSION: '# permessage-deflate, as `npm start` sets it (README, "Websocket and HTTP compression").',
    DDP_TRANSPORT: '# DDP websocket server (Meteor 3.5+ reads it).',
    METEOR_ASYNC_QUEUE_BATCH_SIZE: '# Meteor\'s async queue (3.1.1+).',
  };
  for (const name of SERVER_VARIABLES) {
    if (variables[name] === undefined) continue;
    if (notes[name]) lines.push(notes[name]);
    lines.push(`${name}=${variables[name]}`);
  }
  lines.push(
    '# Heap limit: about 1.5 x settings store.memoryBudgetMB + 256 MB (README, "Memory, caps and hostile input").',
    `NODE_OPTIONS=--max-old-space-size=${heapMB}`,
    '',
  );
  return lines.join('\n');
}

/** The text of start.sh: loads meshpulse.env (environment wins), checks MONGO_URL and Node, execs the server. Pure. */
function startScriptText({ nodeMajor, builtWith }) {
  return `#!/bin/sh
# Starts the MeshPulse server built by \`npm run build\` (${builtWith}), in the foreground.
# Variables: meshpulse.env beside this script (a variable already in the environment wins);
# settings: settings.json beside it. SIGTERM / Ctrl-C stop it gracefully (queued reports are
# ingested and written to MongoDB first).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
if [ -f "$here/meshpulse.env" ]; then
  while IFS= read -r line || [ -n "$line" ]; do
    case "$line" in ''|'#'*) continue ;; esac
    key=\${line%%=*}
    value=\${line#*=}
    case "$key" in
      ''|[0-9]*|*[!A-Za-z0-9_]*) echo "start.sh: meshpulse.env: not a variable assignment: $line" >&2; exit 2 ;;
    esac
    eval "already=\\\${$key+set}"
    if [ -z "$already" ] && [ -n "$value" ]; then export "$key=$value"; fi
  done < "$here/meshpulse.env"
fi
if [ -z "\${MONGO_URL:-}" ]; then
  echo "start.sh: set MONGO_URL in $here/meshpulse.env (or in the environment): a built MeshPulse has no MongoDB of its own" >&2
  exit 1
fi
node=\${NODE:-node}
if ! command -v "$node" >/dev/null 2>&1; then
  echo "start.sh: $node not found (set NODE in meshpulse.env to a Node ${nodeMajor} executable)" >&2
  exit 1
fi
major=$("$node" -p 'process.versions.node.split(".")[0]')
if [ "$major" != "${nodeMajor}" ]; then
  echo "start.sh: warning: this build was made for Node ${nodeMajor} (its Meteor's); this node is $major" >&2
fi
METEOR_SETTINGS=$(cat "$here/settings.json")
export METEOR_SETTINGS
cd "$here/bundle"
exec "$node" main.js
`;
}

/** The text of meshpulse.service (systemd). Pure. */
function serviceUnitText({ out, user }) {
  const quoted = (file) => (/[\s"\\]/.test(file) ? `"${file.replace(/(["\\])/g, '\\$1')}"` : file);
  return `# systemd unit for MeshPulse, written by \`npm run build\`. Install:
#   sudo cp ${quoted(path.join(out, 'meshpulse.service'))} /etc/systemd/system/ && sudo systemctl enable --now meshpulse
[Unit]
Description=MeshPulse, live analyzer for MeshCore mesh networks
Wants=network-online.target
After=network-online.target mongod.service

[Service]
Type=simple
User=${user}
WorkingDirectory=${out}
ExecStart=${quoted(path.join(out, 'start.sh'))}
Restart=on-failure
RestartSec=5
# The server's graceful stop takes at most settings shutdown.deadlineMs (15 s by default).
KillSignal=SIGTERM
TimeoutStopSec=30

[Install]
WantedBy=multi-user.target
`;
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  if (result.error) throw new Error(`${command} ${args.join(' ')}: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${result.status}`);
}

function main() {
  let options;
  try {
    options = parseBuildArgs(process.argv.slice(2), process.env);
  } catch (err) {
    console.error(`npm run build: ${err.message}`);
    process.exit(2);
  }
  const meteor = findMeteor();
  if (!meteor) {
    console.error('npm run build: Meteor is not installed here. Install it with `npx meteor` (Meteor 3.5.2), or point METEOR_BIN at a meteor executable.');
    process.exit(1);
  }
  const settingsFile = path.resolve(options.settings || path.join(ROOT, 'settings.json'));
  let settings;
  try {
    settings = JSON.parse(fs.readFileSync(settingsFile, 'utf8'));
  } catch (err) {
    console.error(`npm run build: cannot read the settings ${settingsFile}: ${err.message}`);
    process.exit(2);
  }
  const { out } = options;
  if (fs.existsSync(out) && fs.readdirSync(out).length > 0 && !fs.existsSync(path.join(out, MARKER))) {
    console.error(`npm run build: ${out} exists and is not a MeshPulse build; pick another --out or empty it`);
    process.exit(2);
  }
  let variables;
  try {
    variables = buildEnv(options, meteor.version, {}, settings).env;
  } catch (err) {
    console.error(`npm run build: ${err.message}`);
    process.exit(2);
  }
  const nodeProbe = spawnSync(meteor.bin, ['node', '-p', 'process.versions.node'], { encoding: 'utf8', cwd: ROOT, timeout: 120000 });
  const nodeVersion = nodeProbe.status === 0 ? (nodeProbe.stdout || '').trim().split('\n').pop() : process.versions.node;
  const builtWith = `${meteor.version}, Node ${nodeVersion}`;

  fs.mkdirSync(out, { recursive: true });
  // Built beside the current bundle and swapped in when complete: a server running from this
  // folder keeps its bundle until then, and a failed build leaves it as it was.
  const staging = path.join(out, '.building');
  fs.rmSync(staging, { recursive: true, force: true });
  console.log(`building with ${builtWith} into ${out} (a few minutes)...`);
  try {
    run(meteor.bin, ['build', '--directory', staging, '--server-only'], { cwd: ROOT });
    console.log('installing the server\'s dependencies (npm install --omit=dev)...');
    run('npm', ['install', '--omit=dev', '--no-audit', '--no-fund'], { cwd: path.join(staging, 'bundle', 'programs', 'server') });
  } catch (err) {
    fs.rmSync(staging, { recursive: true, force: true });
    console.error(`npm run build: ${err.message}`);
    process.exit(1);
  }
  const bundle = path.join(out, 'bundle');
  const previous = path.join(out, '.bundle-previous');
  fs.rmSync(previous, { recursive: true, force: true });
  const replaced = fs.existsSync(bundle);
  if (replaced) fs.renameSync(bundle, previous);
  fs.renameSync(path.join(staging, 'bundle'), bundle);
  fs.rmSync(previous, { recursive: true, force: true });
  fs.rmSync(staging, { recursive: true, force: true });

  const kept = [];
  const write = (name, text, mode) => {
    const file = path.join(out, name);
    if (KEPT_FILES.includes(name) && fs.existsSync(file)) {
      kept.push(name);
      return;
    }
    fs.writeFileSync(file, text, { mode });
    fs.chmodSync(file, mode);
  };
  const port = options.port;
  const memoryBudgetMB = settings.store && settings.store.memoryBudgetMB;
  // settings.json may hold the API key and broker passwords: readable by its owner only.
  write('settings.json', fs.readFileSync(settingsFile, 'utf8'), 0o600);
  // The node running this build, when it is the bundle's major version: written as NODE so that a
  // service manager (whose PATH lacks nvm's) starts the right one.
  const nodePath = process.versions.node.split('.')[0] === nodeVersion.split('.')[0] ? process.execPath : null;
  write('meshpulse.env', envFileText({ port, variables, heapMB: heapLimitMB(memoryBudgetMB), builtWith, date: new Date().toISOString(), nodePath }), 0o600);
  write('start.sh', startScriptText({ nodeMajor: nodeVersion.split('.')[0], builtWith }), 0o755);
  write('meshpulse.service', serviceUnitText({ out, user: os.userInfo().username }), 0o644);
  fs.writeFileSync(path.join(out, MARKER), `${JSON.stringify({ builtAt: new Date().toISOString(), meteor: meteor.version, node: nodeVersion, source: ROOT }, null, 2)}\n`);

  console.log(`\nMeshPulse built into ${out} (${builtWith}).${kept.length ? ` Kept your ${kept.join(' and ')}.` : ''}${replaced ? ' A server already running from this folder runs the previous build until you restart it.' : ''}`);
  console.log(`  1. set MONGO_URL (and ROOT_URL) in ${path.join(out, 'meshpulse.env')}`);
  console.log(`  2. ${path.join(out, 'start.sh')}      # foreground; Ctrl-C stops it gracefully`);
  console.log(`  3. as a service: sudo cp ${path.join(out, 'meshpulse.service')} /etc/systemd/system/ && sudo systemctl enable --now meshpulse`);
}

module.exports = { parseBuildArgs, heapLimitMB, envFileText, startScriptText, serviceUnitText, SERVER_VARIABLES, MARKER };

if (require.main === module) main();
