'use strict';
/**
 * What every load study shares: flags, the bundle, the machine description, process
 * clean-up, writing results, and a clear one-line failure instead of a stack trace.
 *
 *   runStudy('delivery', async (study) => {
 *     const bundle = await study.bundle();
 *     const server = await study.startServer({ settings: {...} });   // pinned to core 0
 *     ...
 *     return { ...result };                                          // written as JSON
 *   });
 *
 * Flags: `--quick` (shorter, smaller), `--keep-going` (capacity: do not stop at the first
 * failing step). Environment: MESHPULSE_BUNDLE_DIR reuses an already built bundle directory
 * (a `meteor build --directory` output) instead of ensureBundle()'s source-hash cache.
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { ensureBundle, startServer, MeteorUnavailableError } = require('./app');
const { DEFAULT_SETTINGS } = require('../../imports/core/settings');
const { writeResult, LATEST_DIR } = require('./results');

const ROOT = path.resolve(__dirname, '../..');
// Runs write here (ignored); `npm run bench:publish` copies into the tracked benchmarks/results/.
const RESULTS_DIR = LATEST_DIR;
// Server on core 0, load generators on core 1: the two never compete for a core.
const SERVER_CPU = 0;
const LOAD_CPU = 1;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A package's installed version under `root` (the project, or tests/artillery/runner for Artillery). */
function packageVersion(name, root = ROOT) {
  try {
    return JSON.parse(fs.readFileSync(path.join(root, 'node_modules', name, 'package.json'), 'utf8')).version;
  } catch (err) {
    return null;
  }
}

function machineInfo() {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    cpu: cpus[0] ? cpus[0].model : 'unknown',
    memoryGiB: Math.round(os.totalmem() / 1024 ** 3),
    platform: `${os.platform()} ${os.release()}`,
    node: process.version,
  };
}

function gitRevision() {
  const result = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' });
  const dirty = spawnSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT, encoding: 'utf8' });
  return result.status === 0 ? `${result.stdout.trim()}${dirty.stdout.trim() ? ' (with uncommitted changes)' : ''}` : null;
}

/** Why the studies cannot pin processes, or null. */
function tasksetProblem() {
  const probe = spawnSync('taskset', ['-c', String(LOAD_CPU), 'true']);
  if (probe.error) return 'taskset is not installed (apt-get install util-linux)';
  if (probe.status !== 0) return `taskset -c ${LOAD_CPU} failed: this machine needs at least 2 cores`;
  return null;
}

class StudyError extends Error {}

async function runStudy(name, body) {
  const quick = process.argv.includes('--quick');
  const started = Date.now();
  const cleanups = [];
  let cleaning = false;
  const cleanup = async () => {
    if (cleaning) return;
    cleaning = true;
    for (const fn of cleanups.reverse()) {
      try { await fn(); } catch (err) { /* best effort: keep stopping the rest */ }
    }
  };
  const onSignal = async (signal) => {
    console.error(`bench:${name}: ${signal}, stopping everything this study started...`);
    await cleanup();
    process.exit(130);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  let bundle = null;
  // Wall time spent building the production bundle (0 when a cached one was reused): a study's
  // own duration excludes it.
  let bundleBuildMs = 0;
  // Where the time went: [{ part, started_s, duration_s }], in the JSON as `parts`.
  const parts = [];
  const study = {
    name,
    quick,
    flags: process.argv.slice(2),
    log: (...args) => console.log(`[${name}]`, ...args),
    /** Record that `part` ran from `startedAtMs` until now (Date.now() values). */
    part(part, startedAtMs, endedAtMs = Date.now()) {
      parts.push({ part, started_s: Math.round((startedAtMs - started) / 100) / 10, duration_s: Math.round((endedAtMs - startedAtMs) / 100) / 10 });
    },
    /** Register an async clean-up (run in reverse order at the end, on failure and on Ctrl-C). */
    onCleanup: (fn) => cleanups.push(fn),
    async bundle() {
      if (bundle) return bundle;
      const given = process.env.MESHPULSE_BUNDLE_DIR;
      if (given) {
        const main = path.join(given, 'bundle', 'main.js');
        if (!fs.existsSync(main)) throw new StudyError(`MESHPULSE_BUNDLE_DIR=${given} has no bundle/main.js`);
        const { findMeteor } = require('../../tests/helpers/meteor-app');
        const meteor = findMeteor();
        if (!meteor) throw new MeteorUnavailableError('Meteor is not available: install it with `npx meteor`, or set METEOR_BIN to a meteor executable, then run this again');
        bundle = { dir: given, main, meteorVersion: meteor.version };
      } else {
        const buildStarted = Date.now();
        bundle = await ensureBundle({ log: study.log });
        if (bundle.built) bundleBuildMs = Date.now() - buildStarted;
      }
      return bundle;
    },
    /** Start the production server pinned to core 0; stopped automatically at the end. */
    async startServer(options = {}) {
      const b = await study.bundle();
      const server = await startServer({ bundle: b, cpu: SERVER_CPU, ...options });
      let stopped = false;
      const stop = async () => {
        if (stopped) return;
        stopped = true;
        await server.stop();
      };
      cleanups.push(stop);
      return { ...server, stop };
    },
  };

  try {
    const problem = tasksetProblem();
    if (problem) throw new StudyError(problem);
    const result = await body(study);
    const b = bundle || {};
    const full = {
      benchmark: name,
      quick,
      date: new Date().toISOString(),
      // As it was run: the MeshPulse variables its servers inherited, the npm script of this
      // file and the flags it was given.
      command: studyCommand(process.argv, process.env, name),
      machine: machineInfo(),
      versions: {
        meteor: b.meteorVersion || null,
        node: process.version,
        artillery: packageVersion('artillery', path.join(ROOT, 'tests', 'artillery', 'runner')),
        ws: packageVersion('ws'),
        meshpulse: gitRevision(),
        // Which production build ran (its folder name carries the source hash).
        bundle: b.dir ? path.basename(b.dir) : null,
      },
      pinning: { server_cpu: SERVER_CPU, load_cpu: LOAD_CPU, tool: 'taskset -c' },
      // The server's defaults for what the studies do not override (imports/core/settings.js).
      server_defaults: { publish: DEFAULT_SETTINGS.publish, queue: DEFAULT_SETTINGS.queue, limits_in_studies: 'raised by benchmarks/lib/app.js' },
      duration_s: Math.round((Date.now() - started) / 1000),
      // The study's own time: without building the production bundle (reused from a cache when
      // the source did not change), and each part's share of it.
      bundle_build_s: Math.round(bundleBuildMs / 1000),
      duration_excluding_bundle_build_s: Math.round((Date.now() - started - bundleBuildMs) / 1000),
      parts,
      // The machine is shared: a high load average means other work ran beside the study.
      load_average_end: os.loadavg().map((v) => Math.round(v * 100) / 100),
      ...result,
    };
    writeResult(name, full, { quick });
    await cleanup();
    // Re-render the latest reports so their Markdown and plots match the JSON just written.
    const { renderAll } = require('../render');
    await renderAll({ target: 'latest', log: (line) => console.log(line) });
    process.exit(0);
  } catch (err) {
    await cleanup();
    if (err instanceof MeteorUnavailableError) {
      console.error(`bench:${name}: cannot run: ${err.message}`);
      process.exit(2);
    }
    if (err instanceof StudyError) {
      console.error(`bench:${name}: ${err.message}`);
      process.exit(1);
    }
    console.error(`bench:${name} failed: ${err.message}`);
    if (process.env.DEBUG) console.error(err.stack);
    process.exit(1);
  }
}

// Variables that may hold secrets are never written into a result.
const SECRET_NAME = /KEY|PASSWORD|SECRET|TOKEN|CREDENTIAL/i;

/**
 * The command line that reproduces a study: the MESHPULSE_* variables set in its environment
 * (the servers it starts inherit them, e.g. MESHPULSE_DEFLATE_FIRST_USE_LEVEL for an A/B), then
 * `npm run bench:<script>` with the flags it was given. Secret-looking variables are left out.
 */
function studyCommand(argv, env, name) {
  const variables = Object.keys(env).filter((key) => key.startsWith('MESHPULSE_') && env[key] !== '' && !SECRET_NAME.test(key)).sort()
    .map((key) => `${key}=${/^[\w.,:\/-]*$/.test(env[key]) ? env[key] : JSON.stringify(env[key])} `).join('');
  return `${variables}npm run bench:${path.basename(argv[1] || name, '.js')}${argv.length > 2 ? ` -- ${argv.slice(2).join(' ')}` : ''}`;
}

module.exports = { runStudy, studyCommand, StudyError, sleep, machineInfo, SERVER_CPU, LOAD_CPU, RESULTS_DIR, ROOT, packageVersion };
