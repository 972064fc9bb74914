'use strict';
/**
 * benchmarks/mesh-factors.js: each variant in a process of its own, ratios to the default mesh,
 * and the study's premise, that `large-default-shape` sends reports shaped like the default
 * mesh's (path length, observers per transmission) from the large world. Rates are never
 * asserted (this machine is noisy).
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const { REAL_CAPTURE_PATH } = require('../benchmarks/lib/hop-lengths');

test('mesh factors: the large world with the default mesh\'s report shape, beside both meshes', { timeout: 180000 }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'meshpulse-mesh-factors-'));
  try {
    const out = path.join(dir, 'mesh-factors.json');
    execFileSync(process.execPath, [path.join(__dirname, '..', 'benchmarks', 'mesh-factors.js'), '--reports=20000', '--rounds=1', '--variants=default,large,large-default-shape,large-uncalibrated', `--out=${out}`], { encoding: 'utf8' });
    const result = JSON.parse(fs.readFileSync(out, 'utf8'));
    const { summary } = result;
    assert.deepEqual(Object.keys(summary), ['default', 'large', 'large-default-shape', 'large-uncalibrated']);
    assert.equal(summary.default.to_default.median, 1);
    for (const variant of Object.values(summary)) assert.ok(variant.ingest_per_s.median > 0 && Number.isFinite(variant.to_default.median));
    // The large world: its 64 observers (8 on the default mesh), more nodes heard from already.
    assert.ok(summary['large-default-shape'].observers_known > 4 * summary.default.observers_known, JSON.stringify(summary));
    assert.ok(summary['large-default-shape'].nodes_known > summary.default.nodes_known, JSON.stringify(summary));
    // The large mesh before its calibration: longer paths, many more observers per transmission.
    const long = summary['large-uncalibrated'];
    assert.ok(long.hops_per_report > summary.default.hops_per_report + 1.5, JSON.stringify(summary));
    assert.ok(long.observations_per_transmission > 2 * summary.default.observations_per_transmission, JSON.stringify(summary));
    // The default shape from the large world: within half a hop and half an observer of the default's.
    const shaped = summary['large-default-shape'];
    assert.ok(Math.abs(shaped.hops_per_report - summary.default.hops_per_report) < 0.5, JSON.stringify(summary));
    assert.ok(Math.abs(shaped.observations_per_transmission - summary.default.observations_per_transmission) < 0.5, JSON.stringify(summary));
    // Path lengths per variant: of every report and of each transmission's first heard (shorter
    // on average: each relay adds 250-900 ms, so the first report mostly came through the fewest).
    for (const variant of Object.values(summary)) {
      assert.ok(variant.hop_lengths.reports > 0 && variant.first_heard_hop_lengths.reports > 0);
      assert.ok(variant.first_heard_hop_lengths.mean <= variant.hop_lengths.mean, JSON.stringify(variant));
      const shares = Object.values(variant.hop_lengths.histogram).reduce((sum, share) => sum + share, 0);
      assert.ok(Math.abs(shares - 1) < 0.01, JSON.stringify(variant.hop_lengths));
    }
    // The large profile's loss per hop shortens its paths by more than two hops on average, to
    // within the real capture's 95% interval (1.90-2.74 hops) over every report and over each
    // transmission's first heard.
    assert.ok(summary.large.hop_lengths.mean < long.hop_lengths.mean - 2, JSON.stringify(summary));
    for (const lengths of [summary.large.hop_lengths, summary.large.first_heard_hop_lengths]) {
      assert.ok(lengths.mean >= 1.9 && lengths.mean <= 2.74, JSON.stringify(lengths));
    }
    // Hop hash sizes: the calibrated profile's near the capture's 93/6.5/0.5%, the uncalibrated 60/30/10%.
    assert.ok(summary.large.hash_sizes[1] > 0.88 && summary.large.hash_sizes[3] < 0.03, JSON.stringify(summary.large.hash_sizes));
    assert.ok(long.hash_sizes[1] < 0.7 && long.hash_sizes[3] > 0.05, JSON.stringify(long.hash_sizes));
    // The real capture is read when this machine has the shared fixtures, and said absent otherwise.
    if (fs.existsSync(REAL_CAPTURE_PATH)) {
      assert.equal(result.real_capture.hop_lengths.reports, 246); // 250 transmissions, 4 of them TRACE
      assert.equal(result.real_capture.hop_lengths.mean, 2.32);
      // 184 of them with a hop: 171 with 1-byte hashes, 12 with 2-byte, 1 with 3-byte.
      assert.deepEqual(result.real_capture.hash_sizes, { reports: 184, 1: 0.929, 2: 0.065, 3: 0.005 });
    } else {
      assert.match(result.real_capture.absent, /meshcore-real-packets\.ndjson/);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('mesh factors refuses a study without the default mesh', () => {
  assert.throws(() => execFileSync(process.execPath, [path.join(__dirname, '..', 'benchmarks', 'mesh-factors.js'), '--variants=large'], { encoding: 'utf8', stdio: 'pipe' }), /must include default/);
});
