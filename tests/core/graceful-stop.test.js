'use strict';
/**
 * imports/core/graceful-stop.js: the server's stop on SIGTERM / SIGINT. Steps in order, a failing
 * step does not skip the rest, the deadline and a second signal exit anyway, and the exit code
 * says whether everything finished. (That the real server loses nothing on SIGTERM is
 * tests/e2e/graceful-stop.test.js.)
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { createGracefulStop, serverStopSteps, GRACEFUL_STOP_DEFAULTS } = require('../../imports/core/graceful-stop');

function recorder() {
  const lines = [];
  const log = { info: (line) => lines.push(['info', line]), warn: (line) => lines.push(['warn', line]), error: (line) => lines.push(['error', line]) };
  return { lines, log };
}

// Timers under the test's control: the deadline fires only when the test says so.
function manualTimers() {
  const timers = [];
  return {
    timers,
    setTimer: (fn, ms) => { const timer = { fn, ms, cleared: false }; timers.push(timer); return timer; },
    clearTimer: (timer) => { timer.cleared = true; },
    fire: () => { for (const timer of timers) if (!timer.cleared) timer.fn(); },
  };
}

test('steps run one after another in order, each awaited, then exit(0); summaries are logged', async () => {
  const { lines, log } = recorder();
  const order = [];
  const exits = [];
  let releaseDrain;
  const graceful = createGracefulStop({
    log,
    exit: (code) => exits.push(code),
    steps: [
      { name: 'sources', run: () => { order.push('sources'); return 'simulator'; } },
      { name: 'pipeline', run: () => new Promise((resolve) => { order.push('pipeline:start'); releaseDrain = () => { order.push('pipeline:end'); resolve('drained'); }; }) },
      { name: 'persistence', run: async () => { order.push('persistence'); return 'every write flushed'; } },
    ],
  });
  assert.equal(graceful.stopping, false);
  const done = graceful.stop('SIGTERM');
  assert.equal(graceful.stopping, true);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(order, ['sources', 'pipeline:start'], 'persistence waits for the pipeline to drain');
  assert.deepEqual(exits, []);
  releaseDrain();
  assert.equal(await done, 0);
  assert.deepEqual(order, ['sources', 'pipeline:start', 'pipeline:end', 'persistence']);
  assert.deepEqual(exits, [0]);
  const text = lines.map(([, line]) => line).join('\n');
  assert.match(text, /stopping \(SIGTERM\): sources, pipeline, persistence/);
  assert.match(text, /stopping: pipeline: drained/);
  assert.match(text, /stopping: persistence: every write flushed/);
  assert.match(text, /stopped in \d+\.\d s$/);
});

test('a failing step is logged by name, the next steps still run, and the exit code is 1', async () => {
  const { lines, log } = recorder();
  const ran = [];
  const exits = [];
  const graceful = createGracefulStop({
    log,
    exit: (code) => exits.push(code),
    steps: [
      { name: 'sources', run: async () => { ran.push('sources'); throw new Error('broker gone'); } },
      { name: 'persistence', run: () => { ran.push('persistence'); } },
    ],
  });
  assert.equal(await graceful.stop('SIGINT'), 1);
  assert.deepEqual(ran, ['sources', 'persistence']);
  assert.deepEqual(exits, [1]);
  assert.ok(lines.some(([level, line]) => level === 'error' && line === 'stopping: sources failed: broker gone'), JSON.stringify(lines));
  assert.ok(lines.some(([, line]) => /\(1 step failed\)/.test(line)));
});

test('past the deadline the process exits with 1, naming the step it was stuck in; the late finish exits no second time', async () => {
  const { lines, log } = recorder();
  const exits = [];
  const timers = manualTimers();
  let finishFlush;
  const graceful = createGracefulStop({
    log,
    deadlineMs: 1234,
    exit: (code) => exits.push(code),
    setTimer: timers.setTimer,
    clearTimer: timers.clearTimer,
    steps: [{ name: 'persistence', run: () => new Promise((resolve) => { finishFlush = resolve; }) }],
  });
  const done = graceful.stop('SIGTERM');
  assert.equal(timers.timers.length, 1);
  assert.equal(timers.timers[0].ms, 1234);
  await new Promise((resolve) => setImmediate(resolve));
  timers.fire();
  assert.deepEqual(exits, [1]);
  assert.ok(lines.some(([level, line]) => level === 'error' && /longer than 1234 ms \(still in: persistence\)/.test(line)), JSON.stringify(lines));
  finishFlush();
  await done;
  assert.deepEqual(exits, [1], 'exit is called once');
});

test('a finished stop clears its deadline', async () => {
  const timers = manualTimers();
  const graceful = createGracefulStop({ log: recorder().log, exit: () => {}, setTimer: timers.setTimer, clearTimer: timers.clearTimer, steps: [] });
  await graceful.stop('SIGTERM');
  assert.equal(timers.timers[0].cleared, true);
});

test('a second signal while stopping exits at once with 1', async () => {
  const { lines, log } = recorder();
  const exits = [];
  let release;
  const graceful = createGracefulStop({
    log,
    exit: (code) => exits.push(code),
    steps: [{ name: 'pipeline', run: () => new Promise((resolve) => { release = resolve; }) }],
  });
  const first = graceful.stop('SIGINT');
  await new Promise((resolve) => setImmediate(resolve));
  graceful.stop('SIGINT');
  assert.deepEqual(exits, [1]);
  assert.ok(lines.some(([level, line]) => level === 'warn' && /SIGINT again while stopping \(in: pipeline\): exiting now/.test(line)), JSON.stringify(lines));
  release();
  await first;
  assert.deepEqual(exits, [1]);
});

test('bad arguments are refused by name', () => {
  assert.throws(() => createGracefulStop({ steps: null }), /steps must be an array/);
  assert.throws(() => createGracefulStop({ steps: [{ name: 'x' }] }), /needs a name and a run\(\) function/);
  for (const bad of [0, -1, NaN, Infinity, '15000', null]) {
    assert.throws(() => createGracefulStop({ steps: [], deadlineMs: bad }), (err) => err instanceof RangeError && /shutdown\.deadlineMs/.test(err.message), String(bad));
  }
  assert.equal(GRACEFUL_STOP_DEFAULTS.deadlineMs, 15000);
});

test('serverStopSteps: listener, sources (MQTT asked for a graceful stop), pipeline, persistence, in that order', async () => {
  const calls = [];
  const steps = serverStopSteps({
    closeListener: () => calls.push('listener'),
    simulatorFeed: { stop: () => calls.push('simulator') },
    mqttSources: { stop: async (options) => calls.push(`mqtt ${JSON.stringify(options)}`), stats: () => [{}, {}] },
    pipeline: { close: async () => calls.push('pipeline'), stats: () => ({ accepted: 7, rejected: 1 }) },
    persistence: {
      stopRetention: () => calls.push('retention'),
      stats: () => ({ failed: 2 }),
      close: async (timeoutMs) => { calls.push(`persistence ${timeoutMs}`); return { pending: 0, written: 40, failed: 2 }; },
    },
    flushTimeoutMs: 1234,
  });
  const summaries = [];
  for (const step of steps) summaries.push(`${step.name}: ${await step.run()}`);
  assert.deepEqual(calls, ['listener', 'simulator', 'mqtt {"graceful":true}', 'pipeline', 'retention', 'persistence 1234']);
  assert.deepEqual(summaries, [
    'listener: port closed',
    'sources: simulator, 2 MQTT brokers',
    'pipeline: queue drained (7 reports accepted, 1 rejected since start)',
    // Two writes failed before the stop (an earlier outage): not the stop's failure.
    'persistence: every write flushed (40 since start)',
  ]);
});

test('serverStopSteps: writes left or failed while stopping make the persistence step fail, saying how many', async () => {
  const persistence = { stats: () => ({ failed: 0 }), close: async () => ({ pending: 3, written: 10, failed: 5 }) };
  const steps = serverStopSteps({ pipeline: { close: async () => {}, stats: () => ({ accepted: 0, rejected: 0 }) }, persistence });
  const step = steps.find((s) => s.name === 'persistence');
  await assert.rejects(step.run(), /3 writes not flushed and 5 failed while stopping \(10 written since start\)/);
  const without = serverStopSteps({ pipeline: { close: async () => {}, stats: () => ({ accepted: 0, rejected: 0 }) } });
  assert.deepEqual(await Promise.all(without.map((s) => s.run())), ['none', 'none', 'queue drained (0 reports accepted, 0 rejected since start)', 'off']);
});
