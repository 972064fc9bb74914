'use strict';
// bench:server's report: the reload rows (1M reports against issue 8's 40 s, 1M transmissions
// against 60 s), and older runs that measured only the second.
const test = require('node:test');
const assert = require('node:assert');
const { renderServerReport } = require('../benchmarks/lib/report');

function reloadPart(reports, transmissions, seconds) {
  return { reports, transmissions, observations: reports, reload_s: seconds, reload_engine_s: seconds / 2, reload_reading_s: seconds / 2, complete: true };
}

function serverResult(extra = {}) {
  return {
    benchmark: 'server', quick: false, command: 'npm run bench:server', date: 'today',
    machine: { cpus: 2, memoryGiB: 1, node: 'v20' }, mongo: 'test', load_average: [0, 0, 0],
    reload_1m_s: 70,
    reload: reloadPart(2073763, 1000000, 70),
    sustained: { offered_per_s: 2000, seconds: 60, sustained_ingest_per_s: 2000, overflowed: 0, failed: 0, max_backlog: 10, backlog_second_half_max: 5, drain_after_stop_s: 0 },
    bytes_per_subscriber: null, fanout_cpu_ratio_1000: 1.37, fanout_source: 'results/fanout-quick.json (quick)',
    ...extra,
  };
}

test('renderServerReport: the 1M-report reload row with its own 40 s target, beside the 1M-transmission row', () => {
  const met = renderServerReport(serverResult({ reload_1m_reports_s: 30.2, reload_reports: reloadPart(1000000, 482093, 30.2) }));
  assert.match(met, /\| reload of 1,000,000 stored reports \(482,093 transmissions\) \| 30\.2 s \(engine replay 15\.1 s, reading MongoDB 15\.1 s\) \| ≤ 40 s for 1M reports \| met \|/);
  assert.match(met, /\| reload of 1,000,000 stored transmissions \(2,073,763 observations\) \| 70 s .*\| ≤ 60 s for 1M \| \*\*missed\*\* \|/);
  const slow = renderServerReport(serverResult({ reload_1m_reports_s: 41, reload_reports: reloadPart(1000000, 482093, 41) }));
  assert.match(slow, /≤ 40 s for 1M reports \| \*\*missed\*\* \|/);
  const incomplete = renderServerReport(serverResult({ reload_reports: { ...reloadPart(1000000, 482093, 30), complete: false } }));
  assert.match(incomplete, /≤ 40 s for 1M reports \| \*\*missed\*\* \|/);
});

test('renderServerReport: an older run without the 1M-report reload shows only the transmissions row', () => {
  const old = renderServerReport(serverResult());
  assert.doesNotMatch(old, /stored reports/);
  assert.match(old, /stored transmissions/);
  assert.match(old, /fan-out CPU ratio, 1,000 vs 1 subscriber, same updates \| 1\.37 \| ≤ 5 \| met \|/);
  assert.match(old, /The last two rows come from results\/fanout-quick\.json/);
});
