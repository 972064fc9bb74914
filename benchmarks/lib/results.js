'use strict';
/**
 * Where benchmark output goes. Every run writes into benchmarks/results/latest/ (ignored by
 * git), so running a study never dirties the tree; `npm run bench:publish` copies the chosen
 * JSON into benchmarks/results/ (tracked) and re-renders the committed Markdown, plots and
 * the headline table from it (benchmarks/publish.js).
 *
 *   benchmarks/results/latest/<name>[-quick].json   every run (ignored)
 *   benchmarks/results/latest/<REPORT>.md, plots/   rendered from the latest JSON (ignored)
 *   benchmarks/results/<name>[-quick].json          published (tracked), by bench:publish only
 *   benchmarks/<REPORT>.md, results/plots/          rendered from the published JSON (tracked)
 *
 *   const { writeResult } = require('./lib/results');
 *   writeResult('core', result, { report: 'CORE.md', render: renderCoreReport });
 */
const fs = require('fs');
const path = require('path');

const BENCH_DIR = path.resolve(__dirname, '..');
const PUBLISHED_DIR = path.join(BENCH_DIR, 'results');
const LATEST_DIR = path.join(PUBLISHED_DIR, 'latest');

/** The folder every run writes to (created on demand). */
function resultsDir() {
  fs.mkdirSync(LATEST_DIR, { recursive: true });
  return LATEST_DIR;
}

/** `core` + quick -> `core-quick.json`. */
function resultFileName(name, quick) {
  return `${name}${quick ? '-quick' : ''}.json`;
}

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    return null;
  }
}

/**
 * A result by file stem (`fanout`, `core-quick`): the latest run's if there is one, else the
 * published one, else null. `{ from: 'published' }` reads only the tracked copy.
 */
function readResult(stem, { from = 'any' } = {}) {
  const dirs = from === 'published' ? [PUBLISHED_DIR] : from === 'latest' ? [LATEST_DIR] : [LATEST_DIR, PUBLISHED_DIR];
  for (const dir of dirs) {
    const data = readJson(path.join(dir, `${stem}.json`));
    if (data) return data;
  }
  return null;
}

const shown = (file) => path.relative(process.cwd(), file) || file;

/**
 * Write one run's JSON into benchmarks/results/latest/, and its Markdown report beside it when
 * `report` and `render(result, companionQuickRun)` are given (the companion is the quick run of
 * the same benchmark, for reports that cite it; null for a quick run). Returns the paths.
 */
function writeResult(name, data, { quick = Boolean(data && data.quick), report, render, log = console.log } = {}) {
  const dir = resultsDir();
  const file = path.join(dir, resultFileName(name, quick));
  fs.writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
  let reportFile = null;
  if (report && render) {
    reportFile = path.join(dir, report);
    const companion = quick ? null : readResult(`${name}-quick`);
    fs.writeFileSync(reportFile, render(data, companion));
  }
  log(`wrote ${shown(file)}${reportFile ? ` and ${shown(reportFile)}` : ''} (not tracked; \`npm run bench:publish\` to commit it)`);
  return { file, reportFile };
}

/**
 * A result written where `--out=FILE` says (development runs, tests), its folder made first: a
 * fresh clone has no benchmarks/results/latest/ (ignored), and a long run must not end in ENOENT.
 */
function writeResultFile(file, data, { log = console.log } = {}) {
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
  log(`wrote ${shown(path.resolve(file))}`);
}

/**
 * Which run measured each part of a merged result: this partial run's part (`only`) and the
 * earlier runs' parts it kept. Each part keeps the run that measured it (a second partial run over
 * a merged result, costs then hostile, names all three). `--only=profiles` measures everything
 * but the hostile streams (profiles, rounds, costs, verification, hops), so it supersedes every
 * earlier part but the one that measured them: that one is named `hostile`, whatever it was
 * called before (run 17 had named the rounds of run 15, which it had measured again itself).
 */
function partsFrom(previous, only, run) {
  const earlier = previous.parts_from || { rest: { command: previous.command, date: previous.date } };
  if (only === 'profiles') {
    const hostileRun = earlier.hostile || earlier.rest || null;
    return hostileRun ? { profiles: run, hostile: hostileRun } : { profiles: run };
  }
  return { [only]: run, ...Object.fromEntries(Object.entries(earlier).filter(([part]) => part !== only)) };
}

module.exports = { BENCH_DIR, PUBLISHED_DIR, LATEST_DIR, resultsDir, resultFileName, readResult, writeResult, writeResultFile, partsFrom };
