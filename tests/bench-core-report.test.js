'use strict';
// bench:core's report of the ingest rounds: the per report + hop ratio, and older runs without it.
const test = require('node:test');
const assert = require('node:assert');
const path = require('path');
const { execFileSync } = require('child_process');
const { renderCoreReport, perReportAndHop } = require('../benchmarks/lib/report');

function round(n, defaultPerS, largePerS) {
  const entry = {
    round: n,
    order: ['default', 'large'],
    default: { ingest_per_s: defaultPerS, reference_library_decode_only_per_s: 50000, hops_per_report: 2.68 },
    large: { ingest_per_s: largePerS, hops_per_report: 5 },
  };
  entry.default_to_reference = defaultPerS / 50000;
  entry.large_to_default = largePerS / defaultPerS;
  return entry;
}

// The first value as median: two rounds have no middle one, and the tests read it back.
const spread = (values) => ({ median: values[0], min: Math.min(...values), max: Math.max(...values) });

/** ingest_rounds of a run with these rounds (round(1, 60000, 30000) and round(2, 62000, 25000)). */
function roundsResult(rounds) {
  return {
    rounds_count: 2, reports_per_round: 1000000, method: 'fresh processes',
    default_to_reference: spread(rounds.map((r) => r.default_to_reference)),
    large_to_default: spread(rounds.map((r) => r.large_to_default)),
    default_ingest_per_s: spread([60000, 62000]),
    large_ingest_per_s: spread([30000, 25000]),
    rounds,
  };
}

/** The two test rounds, `key` set to values[i] in round i, and their rounds result (without the spread of `key`). */
function roundsWith(key, values) {
  const rounds = [round(1, 60000, 30000), round(2, 62000, 25000)];
  rounds.forEach((entry, i) => { entry[key] = values[i]; });
  return roundsResult(rounds);
}

/** A default-mesh profile result with every field the report reads (1, no views), then `extra`. */
function profileResult(extra) {
  return { views: {}, ingest_per_s: 1, decode_only_per_s: 1, reference_library_decode_only_per_s: 1, nodes: 1, observers: 1, packets: 1, transmissions: 1, hops_per_report: 1, ingest_cpu_us_per_report: 1, ingest_to_reference_decode_ratio: 1, fifth_rates_per_s: [1], ingest_flatness: 1, bytes_per_packet: 1, memory_calibration: { estimate_to_heap: 1 }, ...extra };
}

/** renderCoreReport of a test run holding only `parts` (ingest_rounds, profiles). */
function renderRun(parts) {
  return renderCoreReport({ benchmark: 'core', command: 'test', date: 'today', machine: { cpus: 2, cpu: 'test', memoryGiB: 1, node: 'v20' }, ...parts });
}

test('perReportAndHop: reports x (1 + hops) per CPU-second, large over default', () => {
  // 30,000 x 6 / (60,000 x 3.68) = 0.815
  assert.strictEqual(perReportAndHop(round(1, 60000, 30000)), 0.815);
  // Equal cost per report + hop: the per-report ratio is 3.68 / 6.
  assert.strictEqual(perReportAndHop(round(1, 60000, 60000 * 3.68 / 6)), 1);
});

test('renderCoreReport: the machine line says how the run used the cores (older runs: pinned to one by hand)', () => {
  const rounds = roundsResult([round(1, 60000, 30000), round(2, 62000, 25000)]);
  assert.match(renderRun({ ingest_rounds: rounds }), /One process, one core\./);
  const spread = renderRun({ cores_available: 2, ingest_rounds: { ...rounds, pinned_to_core: 1 } });
  assert.match(spread, /could use 2 cores: its main thread measures on one, V8's helper threads \(JIT compiles, GC\) run beside it/);
  assert.match(spread, /The ingest rounds each ran in a process pinned to core 1\./);
  const pinned = renderRun({ cores_available: 1, ingest_rounds: { ...rounds, pinned_to_core: null } });
  assert.match(pinned, /pinned to one core: V8's helper threads \(JIT compiles, GC\) take turns with the main thread/);
  assert.doesNotMatch(pinned, /ingest rounds each ran/);
});

test('renderCoreReport: the rounds table shows the per report + hop column only when the run stored it', () => {
  const rounds = [round(1, 60000, 30000), round(2, 62000, 25000)];
  const base = roundsResult(rounds);
  const old = renderRun({ ingest_rounds: base });
  assert.match(old, /\| round \| order \|/);
  assert.doesNotMatch(old, /per report \+ hop/);
  for (const r of rounds) r.large_to_default_per_report_and_hop = perReportAndHop(r);
  const withHops = renderRun({ ingest_rounds: { ...base, large_to_default_per_report_and_hop: spread(rounds.map((r) => r.large_to_default_per_report_and_hop)) } });
  assert.match(withHops, /… per report \+ hop \|/);
  assert.match(withHops, /\| 0\.815 \|/);
  assert.match(withHops, /0\.6 target is about 0\.98/);
});

test('renderCoreReport: a view over its p99 target says what its first call and its later calls took, when the run recorded them', () => {
  const view = (extra) => ({ p50_ms_28k: 0.2, p99_ms_28k: 14.5, cpu_p99_ms_28k: 14.6, p50_ms_1m: 0.5, p99_ms_1m: 9.7, cpu_p99_ms_1m: 9.7, params: ['pubKey+days'], ...extra });
  const render = (views) => renderRun({ profiles: { default: profileResult({ views }) } });
  const withFirst = render({ node: view({ first_call_ms_28k: 21.3, p99_after_first_calls_ms_28k: 4.3, first_call_ms_1m: 9.7, p99_after_first_calls_ms_1m: 4.4 }) });
  assert.match(withFirst, /\| \*\*28k over \(first call 21\.3; later calls p99 4\.3\)\*\* \|/);
  assert.match(withFirst, /The verdict is on every call\..*nearest rank/);
  const stillOver = render({ node: view({ first_call_ms_28k: 21.3, p99_after_first_calls_ms_28k: 6.1, first_call_ms_1m: 9.7, p99_after_first_calls_ms_1m: 4.4 }) });
  assert.match(stillOver, /\*\*28k over \(first call 21\.3; later calls p99 6\.1, also over\)\*\*/);
  const older = render({ node: view({}) });
  assert.match(older, /\| \*\*28k over\*\* \|/);
  assert.doesNotMatch(older, /The verdict is on every call/);
});

test('renderCoreReport: the default mesh without advert checks beside the target, when the run measured it', () => {
  const base = roundsWith('default_unverified_to_reference', [1.4, 1.5]);
  const without = renderRun({ ingest_rounds: base });
  assert.doesNotMatch(without, /Without Ed25519 advert checks/);
  const withBare = renderRun({ ingest_rounds: { ...base, default_unverified_to_reference: spread([1.4, 1.5]) } });
  assert.match(withBare, /Without Ed25519 advert checks .*: default \/ reference \*\*1\.4\*\* \(1\.4–1\.5\) \(rounds 1\.4, 1\.5\)/);
  // The target's verdict stays on the figure with the checks (1.2 here: missed).
  assert.match(withBare, /default \/ reference ≥ 1\.5 \(\*\*missed\*\*\)/);
});

test('renderCoreReport: the reference timed over the whole stream, with its first 50k beside it, when the run measured both', () => {
  const base = roundsWith('default_to_reference_first_50k', [1.3, 1.25]);
  const older = renderRun({ ingest_rounds: base });
  assert.doesNotMatch(older, /first 50k reports alone/);
  const both = renderRun({ ingest_rounds: { ...base, default_to_reference_first_50k: spread([1.3, 1.25]) } });
  assert.match(both, /timed over every report of the stream.*first 50k reports alone, as runs 1–10 timed it: default \/ reference \*\*1\.3\*\* \(1\.25–1\.3\) \(rounds 1\.3, 1\.25\)/);
  // The verdict stays on the whole-stream figure (1.2 and 1.24 here: missed).
  assert.match(both, /default \/ reference ≥ 1\.5 \(\*\*missed\*\*\)/);

  const render = (extra) => renderRun({ profiles: { default: profileResult({ ingest_per_s: 60000, reference_library_decode_only_per_s: 50000, ingest_to_reference_decode_ratio: 1.2, ...extra }) } });
  const oldProfile = render({});
  assert.match(oldProfile, /reference library \(@michaelhart\/meshcore-decoder\), over its first 50k reports \| 50,000\/s/);
  const newProfile = render({ reference_decode_reports: 1000000, reference_library_first_50k_per_s: 44000, ingest_to_reference_first_50k_ratio: 1.364 });
  assert.match(newProfile, /reference library \(@michaelhart\/meshcore-decoder\), over every report \| 50,000\/s/);
  assert.match(newProfile, /over its first 50k reports alone .*\| 44,000\/s/);
  assert.match(newProfile, /against the reference's first 50k reports alone \| 1\.364 \|/);
});

test('renderCoreReport: the reference given the ingest\'s channel keys beside the target, when the run measured it', () => {
  const base = roundsWith('default_to_reference_with_keys', [3.1, 3.3]);
  base.rounds.forEach((entry, i) => { entry.default.reference_library_with_keys_per_s = [19500, 18800][i]; });
  const older = renderRun({ ingest_rounds: roundsWith('default_to_reference_first_50k', [1.3, 1.25]) });
  assert.doesNotMatch(older, /same channel keys/);
  const keyed = renderRun({ ingest_rounds: { ...base, default_to_reference_with_keys: spread([3.1, 3.3]) } });
  assert.match(keyed, /reference given the same channel keys as the ingest .*: default \/ reference \*\*3\.1\*\* \(3\.1–3\.3\) \(rounds 3\.1, 3\.3; reference 19,500, 18,800\/s\)/);
  // The verdict stays on the decode-only figure (1.2 and 1.24 here: missed).
  assert.match(keyed, /default \/ reference ≥ 1\.5 \(\*\*missed\*\*\)/);
});

test('an ingest round of the default mesh times the reference with the channel keys too, and it decrypts every group text', { timeout: 120000 }, () => {
  const out = execFileSync(process.execPath, ['--expose-gc', path.join(__dirname, '..', 'benchmarks', 'core.js'), '--ingest-round=default', '--quick', '--round-reports=50000'], { encoding: 'utf8' });
  const result = JSON.parse(out.trim().split('\n').pop());
  assert.strictEqual(result.profile, 'default');
  assert.ok(result.reference_library_with_keys_per_s > 0);
  // The simulator's group texts are all on channels the engine (and so the reference) has keys for.
  assert.ok(result.reference_with_keys_group_texts > 1000, `${result.reference_with_keys_group_texts} group texts`);
  assert.strictEqual(result.reference_with_keys_decrypted, result.reference_with_keys_group_texts);
});

test('an ingest round of the default mesh without advert checks runs with verification off', { timeout: 120000 }, () => {
  const out = execFileSync(process.execPath, ['--expose-gc', path.join(__dirname, '..', 'benchmarks', 'core.js'), '--ingest-round=default-unverified', '--quick', '--round-reports=60000'], { encoding: 'utf8' });
  const result = JSON.parse(out.trim().split('\n').pop());
  assert.strictEqual(result.profile, 'default-unverified');
  assert.strictEqual(result.advert_verification, 'off');
  assert.strictEqual(result.reports, 60000);
  assert.ok(result.ingest_per_s > 0 && result.reference_library_decode_only_per_s > 0);
  // The reference decodes every report the ingest takes; its first 50k are timed apart.
  assert.strictEqual(result.reference_decode_reports, 60000);
  assert.ok(result.reference_library_first_50k_per_s > 0);
});

test('the cost shares find decoding, the node tracker and each view by the files that hold them', { timeout: 120000 }, (t) => {
  // The shares are read from a CPU profile by file and function name: a file renamed without
  // the benchmark would silently count 0 (the node tracker moved out of node-health.js).
  const dir = require('fs').mkdtempSync(path.join(require('os').tmpdir(), 'meshpulse-costs-'));
  t.after(() => require('fs').rmSync(dir, { recursive: true, force: true }));
  const out = path.join(dir, 'not-yet', 'costs.json'); // --out creates its folder (a fresh clone has no results/latest/)
  execFileSync(process.execPath, ['--expose-gc', path.join(__dirname, '..', 'benchmarks', 'core.js'), '--only=costs', '--quick', `--out=${out}`], { encoding: 'utf8' });
  const { shares } = JSON.parse(require('fs').readFileSync(out, 'utf8')).cost_shares.default;
  for (const part of ['decode', 'decode_ed25519', 'decode_content_hash', 'store', 'views', 'node_health_tracker']) assert.ok(shares[part] > 0, `${part}: ${shares[part]}`);
  // The tracker runs under the first of nodes/node/bulkHealth to apply: inside nodes' share.
  assert.ok(shares.node_health_tracker <= shares.by_view_file.nodes, JSON.stringify(shares));
  for (const view of ['nodes', 'node', 'rf', 'neighbours', 'topology', 'subpaths']) assert.ok(shares.by_view_file[view] > 0, `${view}: ${JSON.stringify(shares.by_view_file)}`);
});

test('a partial run names the run that measured each part of the merged result', () => {
  const { partsFrom } = require('../benchmarks/lib/results');
  const full = { command: 'npm run bench:core', date: 'D1' };
  const run = (command, date) => ({ command, date });
  // A first partial run over a full one: its part, and the full run for the rest.
  const costs = partsFrom(full, 'costs', run('costs', 'D2'));
  assert.deepStrictEqual(costs, { costs: run('costs', 'D2'), rest: run('npm run bench:core', 'D1') });
  // A second partial run keeps both earlier ones.
  assert.deepStrictEqual(partsFrom({ parts_from: costs }, 'hostile', run('hostile', 'D3')), { hostile: run('hostile', 'D3'), costs: run('costs', 'D2'), rest: run('npm run bench:core', 'D1') });
  // --only=profiles measures everything but the hostile streams: every earlier part is superseded
  // but the one that measured those (here the full run, named `rest` before).
  const merged = { parts_from: { rounds: run('rounds', 'D4'), rest: run('npm run bench:core', 'D1') } };
  assert.deepStrictEqual(partsFrom(merged, 'profiles', run('profiles', 'D5')), { profiles: run('profiles', 'D5'), hostile: run('npm run bench:core', 'D1') });
  assert.deepStrictEqual(partsFrom({ parts_from: { hostile: run('hostile', 'D3'), profiles: run('profiles', 'D5') } }, 'profiles', run('profiles', 'D6')), { profiles: run('profiles', 'D6'), hostile: run('hostile', 'D3') });
});

test('renderCoreReport: the helper threads\' share of the rounds\' CPU, when the run read it (and not when /proc gave none)', () => {
  const base = roundsResult([round(1, 60000, 30000), round(2, 62000, 25000)]);
  assert.doesNotMatch(renderRun({ ingest_rounds: base }), /helper threads \(GC/);
  const none = { default_ingest: null, reference: null, large_ingest: null };
  assert.doesNotMatch(renderRun({ ingest_rounds: { ...base, helper_threads_cpu_share: none } }), /helper threads \(GC/);
  const shares = { default_ingest: spread([0.131, 0.12]), reference: spread([0.031, 0.03]), large_ingest: spread([0.15, 0.14]) };
  const text = renderRun({ ingest_rounds: { ...base, helper_threads_cpu_share: shares } });
  assert.match(text, /helper threads \(GC.*used 13\.1% \(12\.0–13\.1%\) while the default mesh was ingested, 3\.1% \(3\.0–3\.1%\) while the reference decoded the same reports, 15\.0% \(14\.0–15\.0%\) while the large mesh was ingested/);
});
