'use strict';
// bench:core's report of the ingest rounds: the per report + hop ratio, and older runs without it.
const test = require('node:test');
const assert = require('node:assert');
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

test('perReportAndHop: reports x (1 + hops) per CPU-second, large over default', () => {
  // 30,000 x 6 / (60,000 x 3.68) = 0.815
  assert.strictEqual(perReportAndHop(round(1, 60000, 30000)), 0.815);
  // Equal cost per report + hop: the per-report ratio is 3.68 / 6.
  assert.strictEqual(perReportAndHop(round(1, 60000, 60000 * 3.68 / 6)), 1);
});

test('renderCoreReport: the rounds table shows the per report + hop column only when the run stored it', () => {
  const rounds = [round(1, 60000, 30000), round(2, 62000, 25000)];
  const spread = (values) => ({ median: values[0], min: Math.min(...values), max: Math.max(...values) });
  const base = {
    rounds_count: 2, reports_per_round: 1000000, method: 'fresh processes',
    default_to_reference: spread(rounds.map((r) => r.default_to_reference)),
    large_to_default: spread(rounds.map((r) => r.large_to_default)),
    default_ingest_per_s: spread([60000, 62000]),
    large_ingest_per_s: spread([30000, 25000]),
    rounds,
  };
  const old = renderCoreReport({ benchmark: 'core', command: 'test', date: 'today', machine: { cpus: 2, cpu: 'test', memoryGiB: 1, node: 'v20' }, ingest_rounds: base });
  assert.match(old, /\| round \| order \|/);
  assert.doesNotMatch(old, /per report \+ hop/);
  for (const r of rounds) r.large_to_default_per_report_and_hop = perReportAndHop(r);
  const withHops = renderCoreReport({ benchmark: 'core', command: 'test', date: 'today', machine: { cpus: 2, cpu: 'test', memoryGiB: 1, node: 'v20' }, ingest_rounds: { ...base, large_to_default_per_report_and_hop: spread(rounds.map((r) => r.large_to_default_per_report_and_hop)) } });
  assert.match(withHops, /… per report \+ hop \|/);
  assert.match(withHops, /\| 0\.815 \|/);
  assert.match(withHops, /0\.6 target is about 0\.98/);
});
