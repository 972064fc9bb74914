#!/usr/bin/env node
'use strict';
/**
 * Same-process A/B of the engine at two commits: the tool behind the ingest ratios quoted in
 * engine commits (issue 8). Back-to-back `bench:core` runs cannot resolve a 3-10% change on a
 * shared machine (identical code differed by 30% under other load); two engines in one process,
 * ingesting the same reports in alternating chunks, see the same machine at the same moments.
 *
 *   node benchmarks/engine-ab.js --base=<commit> [--new=<commit>|HEAD] [--profile=large|default]
 *        [--reports=150000] [--pairs=1] [--chunk=2000] [--cpu=1] [--views=name,name]
 *
 * Each commit's `imports/` is extracted (`git archive`) into a temporary tree that uses this
 * checkout's node_modules. The simulator of the `--new` tree generates the reports once; each
 * pair runs two processes, base engine first and new engine first (the second engine created in
 * a process runs a few percent slower), and prints the order-corrected ratio
 * sqrt((new/base first run) x (new/base second run)) of ingest per CPU-second, every view on
 * unless `--views` names some.
 * `--cpu=N` pins the processes with taskset. `--views=` builds only the named views (the store
 * always runs): a change inside one view is then most of what is measured, not a few percent
 * of every view's time lost in the machine's noise. Prints JSON lines; writes nothing in the checkout.
 * A development tool: published rates come from `npm run bench:core`.
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync, spawnSync } = require('child_process');

const ROOT = path.join(__dirname, '..');

function argValue(name, fallback) {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  return arg ? arg.slice(name.length + 3) : fallback;
}

/** Child: ingest `reportsFile` into one engine per root, alternating chunks; print CPU per root. */
function runChild([reportsFile, chunkText, viewsText, ...roots]) {
  const data = JSON.parse(fs.readFileSync(reportsFile, 'utf8'));
  const chunk = Number(chunkText);
  const views = viewsText === '*' ? undefined : viewsText.split(',').filter((name) => name !== '');
  const engines = roots.map((root) => require(path.join(root, 'imports/core/engine')).createEngine({ channels: data.channels, views, store: { memoryBudgetBytes: 64 * 1024 ** 3 } }));
  // Each engine gets its own copies: nothing mutable is shared between them.
  const copies = roots.map(() => data.reports.map((report) => ({ ...report })));
  const cpu = roots.map(() => 0);
  for (let start = 0; start < data.reports.length; start += chunk) {
    const end = Math.min(data.reports.length, start + chunk);
    const order = (start / chunk) % 2 === 0 ? roots.map((_, i) => i) : roots.map((_, i) => roots.length - 1 - i);
    for (const index of order) {
      const before = process.cpuUsage();
      const engine = engines[index];
      const list = copies[index];
      for (let i = start; i < end; i++) engine.ingest(list[i]);
      // A store that holds view updates for a batch (store.js flushViews) runs what it holds
      // inside the chunk's time: nothing ingested is left unmeasured.
      if (typeof engine.store.flushViews === 'function') engine.store.flushViews();
      const used = process.cpuUsage(before);
      cpu[index] += (used.user + used.system) / 1e6;
    }
  }
  console.log(JSON.stringify({ roots, reports: data.reports.length, perCpuSecond: cpu.map((s) => Math.round(data.reports.length / s)), transmissions: engines.map((e) => e.store.size) }));
}

/** A temporary tree holding `commit`'s imports/ and a link to this checkout's node_modules. */
function extractTree(commit, into) {
  fs.mkdirSync(into, { recursive: true });
  const archive = execFileSync('git', ['archive', commit, 'imports'], { cwd: ROOT, maxBuffer: 256 * 1024 * 1024 });
  execFileSync('tar', ['-x', '-C', into], { input: archive });
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(into, 'node_modules'));
  return into;
}

function generateReports(root, profile, count, file) {
  const { createSimulator } = require(path.join(root, 'imports/core/simulate'));
  const { parseObserverMessage } = require(path.join(root, 'imports/core/observer-message'));
  const sim = createSimulator({ seed: 2026, profile });
  const reports = [];
  for (const message of sim.messages(count)) {
    const { report, error } = parseObserverMessage(message.topic, JSON.stringify(message.payload), Date.parse(message.payload.timestamp));
    if (error) throw new Error(`simulator report refused: ${error.message}`);
    reports.push(report);
  }
  fs.writeFileSync(file, JSON.stringify({ channels: sim.channels.map((c) => ({ name: c.name, key: c.key })), reports }));
}

function runPair(reportsFile, chunk, views, first, second, cpu) {
  const args = ['--max-old-space-size=8192', __filename, '--child', reportsFile, String(chunk), views, first, second];
  const command = cpu === null ? process.execPath : 'taskset';
  const result = spawnSync(command, cpu === null ? args : ['-c', String(cpu), process.execPath, ...args], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`A/B child failed: ${result.stderr || result.error}`);
  return JSON.parse(result.stdout.trim().split('\n').pop());
}

function main() {
  const base = argValue('base', null);
  if (!base) throw new Error('--base=<commit> is required');
  const next = argValue('new', 'HEAD');
  const profile = argValue('profile', 'large');
  if (!['default', 'large'].includes(profile)) throw new Error(`--profile must be default or large, not ${profile}`);
  const count = Number(argValue('reports', '150000'));
  const pairs = Number(argValue('pairs', '1'));
  const chunk = Number(argValue('chunk', '2000'));
  const views = argValue('views', '*'); // '*': every view
  if (views !== '*') {
    const { VIEWS_BY_NAME } = require(path.join(ROOT, 'imports/core/analytics'));
    for (const name of views.split(',')) if (!VIEWS_BY_NAME.has(name)) throw new Error(`--views: unknown view "${name}"; known: ${Array.from(VIEWS_BY_NAME.keys()).join(', ')}`);
  }
  const cpuArg = argValue('cpu', null);
  const cpu = cpuArg === null ? null : Number(cpuArg);
  if (!(Number.isInteger(count) && count >= 10000)) throw new Error('--reports must be an integer of at least 10000');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'meshpulse-engine-ab-'));
  try {
    const commits = { base: execFileSync('git', ['rev-parse', '--short', base], { cwd: ROOT }).toString().trim(), new: execFileSync('git', ['rev-parse', '--short', next], { cwd: ROOT }).toString().trim() };
    const baseRoot = extractTree(commits.base, path.join(dir, 'base'));
    const newRoot = extractTree(commits.new, path.join(dir, 'new'));
    const reportsFile = path.join(dir, 'reports.json');
    generateReports(newRoot, profile, count, reportsFile);
    for (let pair = 1; pair <= pairs; pair++) {
      const baseFirst = runPair(reportsFile, chunk, views, baseRoot, newRoot, cpu);
      const newFirst = runPair(reportsFile, chunk, views, newRoot, baseRoot, cpu);
      const ratioBaseFirst = baseFirst.perCpuSecond[1] / baseFirst.perCpuSecond[0];
      const ratioNewFirst = newFirst.perCpuSecond[0] / newFirst.perCpuSecond[1];
      console.log(JSON.stringify({
        at: new Date().toISOString(),
        load: os.loadavg().map((l) => Math.round(l * 100) / 100),
        commits,
        profile,
        views,
        reports: count,
        pair,
        base_first_per_cpu_s: { base: baseFirst.perCpuSecond[0], new: baseFirst.perCpuSecond[1] },
        new_first_per_cpu_s: { new: newFirst.perCpuSecond[0], base: newFirst.perCpuSecond[1] },
        new_to_base_order_corrected: Math.round(Math.sqrt(ratioBaseFirst * ratioNewFirst) * 1000) / 1000,
        // Both engines deduplicated the stream to the same transmissions (a sanity check, not a rate).
        transmissions: { base: baseFirst.transmissions[0], new: baseFirst.transmissions[1] },
      }));
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--child') runChild(process.argv.slice(3));
else main();
