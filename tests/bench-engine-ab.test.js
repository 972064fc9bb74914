'use strict';
/**
 * benchmarks/engine-ab.js runs (the tool behind the engine commits' A/B ratios): two trees
 * extracted from git, one report stream, both orders, one JSON line per pair. Shape only: rates
 * are never asserted (this machine is noisy).
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { execFileSync } = require('child_process');

test('engine A/B of a commit against itself: one line per pair, both engines see the same stream', { timeout: 120000 }, () => {
  const output = execFileSync(process.execPath, [path.join(__dirname, '..', 'benchmarks', 'engine-ab.js'), '--base=HEAD', '--new=HEAD', '--reports=10000', '--profile=default'], { encoding: 'utf8' });
  const lines = output.trim().split('\n').map((line) => JSON.parse(line));
  assert.equal(lines.length, 1);
  const [pair] = lines;
  assert.equal(pair.commits.base, pair.commits.new);
  assert.equal(pair.reports, 10000);
  assert.ok(pair.transmissions.base > 0 && pair.transmissions.base === pair.transmissions.new, JSON.stringify(pair.transmissions));
  for (const side of [pair.base_first_per_cpu_s, pair.new_first_per_cpu_s]) assert.ok(side.base > 0 && side.new > 0);
  assert.ok(Number.isFinite(pair.new_to_base_order_corrected) && pair.new_to_base_order_corrected > 0);
});

test('engine A/B refuses a missing base', () => {
  assert.throws(() => execFileSync(process.execPath, [path.join(__dirname, '..', 'benchmarks', 'engine-ab.js')], { encoding: 'utf8', stdio: 'pipe' }), /--base=<commit> is required/);
});
