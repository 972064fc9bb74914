#!/usr/bin/env node
'use strict';
/**
 * The only commands that write tracked report files; runs and tests write to ignored folders.
 *
 *   npm run bench:publish                      every JSON in benchmarks/results/latest/
 *   npm run bench:publish -- core delivery     only these (`core` = core.json and core-quick.json;
 *                                              `core-quick` = that file alone)
 *     copies it into benchmarks/results/ (tracked), then renders benchmarks/<REPORT>.md,
 *     benchmarks/results/plots/ and the headline table in benchmarks/README.md from it.
 *   npm run shots:publish                      tests/browser/screenshots/*.png -> docs/screenshots/
 */
const fs = require('fs');
const path = require('path');
const { LATEST_DIR, PUBLISHED_DIR } = require('./results');

const ROOT = path.resolve(__dirname, '../..');
// tests/browser/ui.test.js writes here (ignored); docs/screenshots/ is what the README shows.
const SHOTS_DIR = path.join(ROOT, 'tests', 'browser', 'screenshots');
const PUBLISHED_SHOTS_DIR = path.join(ROOT, 'docs', 'screenshots');

const shown = (file) => path.relative(process.cwd(), file) || file;

/** Which latest JSON files the names select (all when none given). */
function selectResults(files, names) {
  if (names.length === 0) return files;
  const chosen = files.filter((file) => names.some((name) => file === `${name}.json` || file === `${name}-quick.json`));
  const unmatched = names.filter((name) => !files.some((file) => file === `${name}.json` || file === `${name}-quick.json`));
  if (unmatched.length) throw new Error(`no result in ${shown(LATEST_DIR)} for ${unmatched.join(', ')} (there: ${files.join(', ') || 'nothing'})`);
  return chosen;
}

async function publishResults(names, { log = console.log } = {}) {
  const files = fs.existsSync(LATEST_DIR) ? fs.readdirSync(LATEST_DIR).filter((file) => file.endsWith('.json')).sort() : [];
  const chosen = selectResults(files, names);
  if (chosen.length === 0) throw new Error(`nothing to publish: ${shown(LATEST_DIR)} has no JSON yet (run a benchmark first)`);
  for (const file of chosen) {
    fs.copyFileSync(path.join(LATEST_DIR, file), path.join(PUBLISHED_DIR, file));
    log(`published ${shown(path.join(PUBLISHED_DIR, file))}`);
  }
  const { renderAll } = require('../render');
  await renderAll({ target: 'published', log });
}

function publishScreenshots({ log = console.log } = {}) {
  const shots = fs.existsSync(SHOTS_DIR) ? fs.readdirSync(SHOTS_DIR).filter((file) => file.endsWith('.png')).sort() : [];
  if (shots.length === 0) throw new Error(`no screenshots in ${shown(SHOTS_DIR)}: run the browser tests first (node --test tests/browser/)`);
  fs.mkdirSync(PUBLISHED_SHOTS_DIR, { recursive: true });
  for (const file of shots) fs.copyFileSync(path.join(SHOTS_DIR, file), path.join(PUBLISHED_SHOTS_DIR, file));
  log(`published ${shots.length} screenshots into ${shown(PUBLISHED_SHOTS_DIR)}`);
}

module.exports = { publishResults, publishScreenshots, selectResults, SHOTS_DIR, PUBLISHED_SHOTS_DIR };

if (require.main === module) {
  const args = process.argv.slice(2);
  const run = args.includes('--screenshots') ? async () => publishScreenshots() : () => publishResults(args.filter((arg) => !arg.startsWith('--')));
  run().catch((err) => {
    console.error(`publish: ${err.message}`);
    process.exit(1);
  });
}
