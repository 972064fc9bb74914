'use strict';
// The benchmarks' headline table (benchmarks/render.js): its delivery delay rows must show what
// DELIVERY.md's tables show, the median over rounds, not the first round alone.
const test = require('node:test');
const assert = require('node:assert/strict');
const { headlineRows } = require('../benchmarks/render');

function deliveryLevel(extra = {}) {
  return {
    users: 10,
    rounds: [{ round: 1 }, { round: 2 }, { round: 3 }],
    // The first round's runs: what the rows showed before the medians were used.
    reactive: { delay_p99_ms: 27, displayed_age: { p50: 219 }, displayed_age_p99_ms: 273 },
    method: { delay_p99_ms: 46, displayed_age_p99_ms: 2019 },
    reactive_to_method_cpu_per_update: 0.014,
    reactive_to_method_cpu_per_user_s: 0.3,
    reactive_to_method_cpu_per_user_s_spread: { n: 3, min: 0.21, max: 0.47 },
    ...extra,
  };
}

// The full study's settings (CPU counted from 60 s after the first user joined); a quick run has no settleS.
const FULL_SETTINGS = { settleS: 60, holdS: 45 };

function rowsFor(level, settings = FULL_SETTINGS) {
  return headlineRows({ delivery: { file: 'results/delivery.json', data: { settings, levels: [level] } } });
}

test('headline delivery rows: delay and on-screen age p99 are the medians over rounds, and say so', () => {
  const rows = rowsFor(deliveryLevel({ reactive_delay_p99_ms: 25, method_delay_p99_ms: 44, reactive_displayed_age_p99_ms: 252, method_displayed_age_p99_ms: 2019 }));
  const delay = rows.find((row) => row[0].startsWith('ingest -> client delay p99'));
  const age = rows.find((row) => row[0].startsWith('data age on screen p99'));
  assert.equal(delay[0], 'ingest -> client delay p99, reactive / method, 10 users, median of 3 rounds');
  assert.equal(delay[1], '25 / 44 ms');
  assert.equal(age[0], 'data age on screen p99 (sampled every 250 ms), reactive / method, 10 users, median of 3 rounds');
  assert.equal(age[1], '252 / 2,019 ms');
});

test('headline delivery rows: a result without medians (older JSON) shows the first round, labelled', () => {
  const rows = rowsFor(deliveryLevel());
  const age = rows.find((row) => row[0].startsWith('data age on screen p99'));
  assert.equal(age[0], 'data age on screen p99 (sampled every 250 ms), reactive / method, 10 users, first round');
  assert.equal(age[1], '273 / 2,019 ms');
});

test('headline delivery rows: a run that counts CPU from the first connection (quick) says so on its per-user·s ratio', () => {
  const perUserSecond = (rows) => rows.find((row) => row[0].startsWith('reactive / method net server CPU per user·second'));
  const full = perUserSecond(rowsFor(deliveryLevel()));
  assert.equal(full[0], 'reactive / method net server CPU per user·second, 10 users (median of 3, 0.21–0.47)');
  assert.equal(full[3], 'met');
  const quick = perUserSecond(rowsFor(deliveryLevel({ reactive_to_method_cpu_per_user_s_spread: { n: 1, min: 0.6, max: 0.6 } }), { holdS: 20 }));
  assert.equal(quick[0], 'reactive / method net server CPU per user·second, 10 users, CPU from the first connection (first-use compiles included)');
  assert.equal(quick[1], '0.3');
  assert.equal(quick[3], 'n/a'); // no verdict: not the target's window
});
