'use strict';
// benchmarks/hub-refresh.js (npm run bench:hub) on a small stream: it runs, measures every
// home-dashboard view, and its per-second total is the sum it claims. No timing is asserted.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');

const SCRIPT = path.join(__dirname, '..', 'benchmarks', 'hub-refresh.js');

test('bench:hub writes one entry per dashboard view and a consistent total', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-refresh-'));
  const out = path.join(dir, 'hub.json');
  try {
    execFileSync(process.execPath, [SCRIPT, '--reports=3000', '--rounds=1', `--out=${out}`], { stdio: 'pipe' });
    const result = JSON.parse(fs.readFileSync(out, 'utf8'));
    assert.equal(result.benchmark, 'hub-refresh');
    assert.deepEqual(Object.keys(result.views).sort(), ['channels', 'nodes', 'rf', 'stats', 'topology']);
    let total = 0;
    for (const [name, view] of Object.entries(result.views)) {
      assert.ok(view.document_bytes > 0, `${name} has a document`);
      assert.ok(view.snapshot_ms_median >= 0 && view.split_ms_median >= 0, `${name} has timings`);
      total += view.refreshes_per_s * (view.snapshot_ms_median + view.split_ms_median);
    }
    // Each figure is rounded to 3 decimals (11 refreshes a second x 2 figures): rounding only.
    assert.ok(Math.abs(total - result.dashboard_refresh_ms_per_s) < 0.02, `${total} vs ${result.dashboard_refresh_ms_per_s}`);
    assert.equal(result.settings.reports, 3000);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('bench:hub refuses a bad --reports', () => {
  assert.throws(() => execFileSync(process.execPath, [SCRIPT, '--reports=12', '--out=/dev/null'], { stdio: 'pipe' }), /--reports must be an integer of at least 1000/);
});
