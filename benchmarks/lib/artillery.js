'use strict';
/**
 * Run one of the tests/artillery scenarios as the load generator, pinned to the load core.
 *
 *   const run = await runArtillery({ script: 'dashboard.yml', scenario: 'reactive', target,
 *     phases: [{ duration: 10, arrivalCount: 50 }], variables: { holdSeconds: 40 } });
 *   run.passed  (exit code 0: the `ensure` checks held)   run.report  (Artillery's JSON)
 *   run.summary (flattened: counters + the percentiles of every custom metric)
 *
 * Phases and variables are passed with --overrides/--variables, so the YAML stays the single
 * description of the scenario and a study only scales it.
 *
 * Artillery is its own package (tests/artillery/runner/package.json), not a root devDependency:
 * it bundles Playwright, whose install would download a browser. The first study that needs it
 * installs it (`npm run load:install`, the same step), with browser downloads turned off. It
 * lives in runner/ so its node_modules (an older `ws`, say) never shadows the project's own
 * packages for tests/artillery/*.js.
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawn, spawnSync } = require('child_process');
const { LOAD_CPU, ROOT } = require('./study');

const ARTILLERY_DIR = path.join(ROOT, 'tests', 'artillery');
const RUNNER_DIR = path.join(ARTILLERY_DIR, 'runner');
const ARTILLERY_BIN = path.join(RUNNER_DIR, 'node_modules', 'artillery', 'bin', 'run');

class ArtilleryUnavailableError extends Error {}

/** Artillery's version when installed under tests/artillery/runner, else null. */
function artilleryVersion() {
  try {
    return JSON.parse(fs.readFileSync(path.join(RUNNER_DIR, 'node_modules', 'artillery', 'package.json'), 'utf8')).version;
  } catch (err) {
    return null;
  }
}

/** Install tests/artillery/runner's own lockfile once (`npm ci` there); throws a one-line reason on failure. */
function ensureArtillery({ log = console.log } = {}) {
  if (fs.existsSync(ARTILLERY_BIN)) return ARTILLERY_BIN;
  log('Artillery is not installed yet: npm ci in tests/artillery/runner (once; no browser download)...');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  // Artillery bundles @playwright/browser-chromium, whose install script downloads Chrome unless
  // told not to; browser.yml drives Debian's Chromium instead.
  const result = spawnSync(npm, ['ci', '--no-audit', '--no-fund'], {
    cwd: RUNNER_DIR,
    env: { ...process.env, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (result.status !== 0 || !fs.existsSync(ARTILLERY_BIN)) {
    throw new ArtilleryUnavailableError(`Artillery could not be installed (npm ci in tests/artillery/runner exited ${result.status ?? result.error?.code}): run \`npm run load:install\` and see its output`);
  }
  return ARTILLERY_BIN;
}

// Artillery runs in its own process: if the study exits early (Ctrl-C, a failure), stop it too.
const running = new Set();
process.on('exit', () => { for (const child of running) child.kill('SIGKILL'); });

function summaryOf(block) {
  const out = { counters: { ...(block.counters || {}) }, summaries: {} };
  for (const [name, s] of Object.entries(block.summaries || {})) {
    out.summaries[name] = { count: s.count, min: s.min, p50: s.median ?? s.p50, p95: s.p95, p99: s.p99, max: s.max, mean: s.mean };
  }
  return out;
}

/**
 * Returns { passed, exitCode, report, summary, periods: [{ t, summary }], startedAt, endedAt,
 * pid, log }. `onStart(pid)` is called once the process runs (to sample its CPU).
 */
async function runArtillery({ script, scenario, target, phases, config = {}, variables = {}, timeoutMs = 15 * 60 * 1000, onStart, env = {}, label }) {
  ensureArtillery();
  const outFile = path.join(os.tmpdir(), `meshpulse-artillery-${process.pid}-${Date.now()}.json`);
  const args = ['-c', String(LOAD_CPU), process.execPath, ARTILLERY_BIN, 'run', '--target', target, '--output', outFile, '--variables', JSON.stringify(variables)];
  if (scenario) args.push('--scenario-name', scenario);
  // `config`: more of the script's config to override (e.g. { ws: { perMessageDeflate: false } }).
  if (phases || Object.keys(config).length) args.push('--overrides', JSON.stringify({ config: { ...config, ...(phases ? { phases } : {}) } }));
  args.push(path.join(ARTILLERY_DIR, script));
  const log = [];
  const startedAt = Date.now();
  const child = spawn('taskset', args, {
    cwd: ROOT,
    env: { ...process.env, ARTILLERY_DISABLE_TELEMETRY: 'true', DO_NOT_TRACK: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.on('exit', () => running.delete(child));
  if (onStart) onStart(child.pid);
  const keep = (chunk) => { log.push(chunk.toString()); if (log.length > 400) log.splice(0, 200); };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exitCode = await new Promise((resolve) => {
    const timer = setTimeout(() => { child.kill('SIGKILL'); }, timeoutMs);
    child.on('exit', (code, signal) => { clearTimeout(timer); resolve(code === null ? `killed (${signal}) after ${timeoutMs} ms` : code); });
  });
  const endedAt = Date.now();
  let report = null;
  try {
    report = JSON.parse(fs.readFileSync(outFile, 'utf8'));
    fs.rmSync(outFile, { force: true });
  } catch (err) {
    const tail = log.join('').slice(-2000);
    throw new Error(`Artillery${label ? ` (${label})` : ''} wrote no report (exit ${exitCode}):\n${tail}`);
  }
  const text = log.join('');
  const checks = [];
  for (const line of text.split('\n')) {
    const match = /^(ok|fail): (.+)$/.exec(line.replace(/\u001b\[[0-9;]*m/g, '').trim());
    if (match) checks.push({ ok: match[1] === 'ok', check: match[2] });
  }
  return {
    passed: exitCode === 0,
    exitCode,
    checks,
    startedAt,
    endedAt,
    pid: child.pid,
    summary: summaryOf(report.aggregate),
    periods: (report.intermediate || []).map((block) => ({ t: block.lastMetricAt || block.period, ...summaryOf(block) })),
    errors: Object.fromEntries(Object.entries(report.aggregate.counters || {}).filter(([name]) => name.startsWith('errors.'))),
    log: text.slice(-3000),
  };
}

if (require.main === module && process.argv.includes('--install')) {
  // `npm run load:install`
  try {
    const bin = ensureArtillery();
    console.log(`Artillery ${artilleryVersion()} at ${path.relative(process.cwd(), bin)}`);
  } catch (err) {
    console.error(err.message);
    process.exit(1);
  }
}

module.exports = { runArtillery, ensureArtillery, artilleryVersion, ArtilleryUnavailableError, ARTILLERY_DIR, RUNNER_DIR, ARTILLERY_BIN };
