'use strict';
// Behaviour of imports/core/queue.js: ordering, bounds and counters, never speed.
const test = require('node:test');
const assert = require('node:assert/strict');
const { createQueue, QueueOverflowError, SampleWindow, QUEUE_DEFAULTS } = require('../../imports/core/queue');
const { deferred, sleep } = require('../helpers/async');
const { seededRandom } = require('../helpers/mesh');

const tick = () => new Promise((resolve) => setImmediate(resolve));



test('defaults follow Meteor AsynchronousQueue knobs', () => {
  assert.equal(QUEUE_DEFAULTS.batchSize, 128);
  assert.equal(QUEUE_DEFAULTS.maxConcurrency, 16);
  assert.equal(QUEUE_DEFAULTS.maxLength, 100000);
  assert.equal(QUEUE_DEFAULTS.overflow, 'reject');
});

test('options are validated and unknown ones are refused', () => {
  assert.throws(() => createQueue(async () => {}, { batchsize: 10 }), /unknown option 'batchsize'/);
  assert.throws(() => createQueue(async () => {}, { batchSize: 0 }), /batchSize must be an integer >= 1/);
  assert.throws(() => createQueue(async () => {}, { overflow: 'drop-newest' }), /overflow must be one of/);
  assert.throws(() => createQueue(async () => {}, { mode: 'bulk' }), /mode must be/);
  assert.throws(() => createQueue('nope'), /handler must be a function/);
});

test('per-task mode runs every task once and counts it', async () => {
  const seen = [];
  const queue = createQueue(async (task) => {
    seen.push(task);
  });
  for (let i = 0; i < 50; i++) assert.equal(queue.push(i), true);
  await queue.drain();
  assert.deepEqual([...seen].sort((a, b) => a - b), Array.from({ length: 50 }, (_, i) => i));
  const stats = queue.stats();
  assert.equal(stats.pushed, 50);
  assert.equal(stats.completed, 50);
  assert.equal(stats.failed, 0);
  assert.equal(stats.depth, 0);
  assert.equal(stats.inFlight, 0);
  assert.equal(stats.invocations, 50);
  assert.equal(stats.waitMs.count, 50);
  assert.equal(stats.runMs.count, 50);
});

test('tasks of one key run in push order and never overlap, under random delays', async () => {
  const random = seededRandom(42);
  const keys = ['a', 'b', 'c', 'd', 'e'];
  const order = new Map(keys.map((key) => [key, []]));
  const active = new Map(keys.map((key) => [key, 0]));
  let overlaps = 0;
  let maxInFlight = 0;
  let inFlight = 0;

  const queue = createQueue(async ({ key, index }) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    active.set(key, active.get(key) + 1);
    if (active.get(key) > 1) overlaps++;
    await sleep(Math.floor(random() * 3));
    order.get(key).push(index);
    active.set(key, active.get(key) - 1);
    inFlight--;
  }, { maxConcurrency: 8 });

  const expected = new Map(keys.map((key) => [key, []]));
  for (let i = 0; i < 200; i++) {
    const key = keys[Math.floor(random() * keys.length)];
    expected.get(key).push(i);
    queue.push({ key, index: i }, key);
  }
  await queue.drain();

  assert.equal(overlaps, 0);
  for (const key of keys) assert.deepEqual(order.get(key), expected.get(key), `order of key ${key}`);
  // Different keys did run side by side.
  assert.ok(maxInFlight > 1);
  assert.equal(queue.stats().activeKeys, 0);
});

test('concurrency never exceeds maxConcurrency, and reaches it when there is work', async () => {
  const random = seededRandom(7);
  let inFlight = 0;
  let maxInFlight = 0;
  const queue = createQueue(async () => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    await sleep(Math.floor(random() * 3));
    inFlight--;
  }, { maxConcurrency: 4 });
  for (let i = 0; i < 100; i++) queue.push(i);
  await queue.drain();
  assert.equal(maxInFlight, 4);
  assert.equal(queue.stats().maxInFlightSeen, 4);
  assert.equal(queue.stats().completed, 100);
});

test('batch mode hands out batches of at most batchSize', async () => {
  const sizes = [];
  const all = [];
  const queue = createQueue(async (batch) => {
    sizes.push(batch.length);
    all.push(...batch);
  }, { mode: 'batch', batchSize: 10, maxConcurrency: 1 });
  for (let i = 0; i < 95; i++) queue.push(i);
  await queue.drain();
  assert.deepEqual(sizes, [10, 10, 10, 10, 10, 10, 10, 10, 10, 5]);
  assert.deepEqual(all, Array.from({ length: 95 }, (_, i) => i));
  const stats = queue.stats();
  assert.equal(stats.invocations, 10);
  assert.equal(stats.completed, 95);
});

test('batch mode keeps key order and never puts one key in two in-flight batches', async () => {
  const random = seededRandom(99);
  const keysInFlight = new Set();
  let conflicts = 0;
  let maxBatch = 0;
  let maxInFlight = 0;
  let inFlight = 0;
  const order = new Map();

  const queue = createQueue(async (batch) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    maxBatch = Math.max(maxBatch, batch.length);
    const batchKeys = new Set(batch.map((task) => task.key));
    for (const key of batchKeys) {
      if (keysInFlight.has(key)) conflicts++;
      keysInFlight.add(key);
    }
    await sleep(Math.floor(random() * 3));
    for (const task of batch) {
      if (!order.has(task.key)) order.set(task.key, []);
      order.get(task.key).push(task.index);
    }
    for (const key of batchKeys) keysInFlight.delete(key);
    inFlight--;
  }, { mode: 'batch', batchSize: 8, maxConcurrency: 4 });

  const expected = new Map();
  for (let round = 0; round < 5; round++) {
    for (let i = 0; i < 60; i++) {
      const index = round * 60 + i;
      const key = `k${Math.floor(random() * 12)}`;
      if (!expected.has(key)) expected.set(key, []);
      expected.get(key).push(index);
      queue.push({ key, index }, key);
    }
    await sleep(1);
  }
  await queue.drain();

  assert.equal(conflicts, 0);
  assert.ok(maxBatch <= 8);
  assert.ok(maxInFlight <= 4);
  for (const [key, indexes] of expected) assert.deepEqual(order.get(key), indexes, `order of key ${key}`);
  assert.equal(queue.stats().completed, 300);
});

test('batch mode with maxWaitMs waits for a full batch; flush() starts a part-filled one', async () => {
  const sizes = [];
  const queue = createQueue(async (batch) => {
    sizes.push(batch.length);
  }, { mode: 'batch', batchSize: 10, maxWaitMs: 60000 });

  for (let i = 0; i < 3; i++) queue.push(i);
  await tick();
  await tick();
  assert.deepEqual(sizes, [], 'a part-filled batch waits for maxWaitMs');

  for (let i = 3; i < 13; i++) queue.push(i);
  await tick();
  assert.deepEqual(sizes, [10], 'a full batch starts at once');

  await queue.flush();
  assert.deepEqual(sizes, [10, 3]);
  assert.equal(queue.stats().depth, 0);
});

test('batch mode with a short maxWaitMs starts a part-filled batch by itself', async () => {
  const sizes = [];
  const queue = createQueue(async (batch) => {
    sizes.push(batch.length);
  }, { mode: 'batch', batchSize: 100, maxWaitMs: 2 });
  for (let i = 0; i < 3; i++) queue.push(i);
  await queue.drain();
  assert.deepEqual(sizes, [3]);
});

test("overflow 'reject': push returns false, onOverflow sees the task, every overflow counted", async () => {
  const refused = [];
  const queue = createQueue(async () => {}, {
    maxLength: 5,
    onOverflow: (task, reason) => refused.push({ task, reason }),
  });
  queue.pause();
  const results = [];
  for (let i = 0; i < 8; i++) results.push(queue.push(i));
  assert.deepEqual(results, [true, true, true, true, true, false, false, false]);
  assert.deepEqual(refused.map((r) => r.task), [5, 6, 7]);
  assert.match(refused[0].reason, /maxLength 5/);

  const stats = queue.stats();
  assert.equal(stats.overflowed, 3);
  assert.equal(stats.depth, 5);
  assert.match(stats.lastOverflowReason, /maxLength 5 reached, new task rejected/);

  queue.resume();
  await queue.drain();
  assert.equal(queue.stats().completed, 5);
});

test("overflow 'throw': push throws QueueOverflowError naming the limit", () => {
  const queue = createQueue(async () => {}, { maxLength: 2, overflow: 'throw' });
  queue.pause();
  queue.push('a');
  queue.push('b');
  assert.throws(() => queue.push('c'), (err) => {
    assert.ok(err instanceof QueueOverflowError);
    assert.equal(err.code, 'QUEUE_OVERFLOW');
    assert.equal(err.maxLength, 2);
    assert.match(err.message, /maxLength is 2/);
    return true;
  });
  assert.equal(queue.stats().overflowed, 1);
  assert.equal(queue.stats().depth, 2);
});

test("overflow 'drop-oldest': the oldest waiting task goes, the new one stays", async () => {
  const done = [];
  const dropped = [];
  const queue = createQueue(async (task) => {
    done.push(task);
  }, { maxLength: 3, overflow: 'drop-oldest', onOverflow: (task) => dropped.push(task) });
  queue.pause();
  for (let i = 1; i <= 5; i++) assert.equal(queue.push(i), true);
  assert.deepEqual(dropped, [1, 2]);
  const stats = queue.stats();
  assert.equal(stats.overflowed, 2);
  assert.equal(stats.dropped, 2);
  assert.equal(stats.depth, 3);
  assert.match(stats.lastOverflowReason, /maxLength 3 reached, oldest waiting task dropped/);

  queue.resume();
  await queue.drain();
  assert.deepEqual(done, [3, 4, 5]);
});

test("overflow 'drop-oldest' on a keyed task lets the key's next task through", async () => {
  const done = [];
  const queue = createQueue(async (task) => {
    done.push(task);
  }, { maxLength: 2, overflow: 'drop-oldest' });
  queue.pause();
  queue.push('a1', 'a');
  queue.push('a2', 'a');
  queue.push('a3', 'a'); // drops a1, which was the key's ready task
  queue.resume();
  await queue.drain();
  assert.deepEqual(done, ['a2', 'a3']);
  assert.equal(queue.stats().activeKeys, 0);
});

test('drain() resolves at once when idle, and only after in-flight work otherwise', async () => {
  const gate = deferred();
  let finished = false;
  const queue = createQueue(async () => {
    await gate.promise;
    finished = true;
  });
  await queue.drain(); // idle: resolves

  queue.push('slow');
  let drained = false;
  const draining = queue.drain().then(() => {
    drained = true;
  });
  await tick();
  await tick();
  assert.equal(drained, false);
  assert.equal(queue.stats().inFlight, 1);
  gate.resolve();
  await draining;
  assert.equal(finished, true);
  assert.equal(queue.stats().inFlight, 0);
});

test('flush() waits for tasks pushed before it, not for later ones', async () => {
  const gates = new Map([['before', deferred()], ['after', deferred()]]);
  const done = [];
  const queue = createQueue(async (task) => {
    await gates.get(task).promise;
    done.push(task);
  }, { maxConcurrency: 2 });

  queue.push('before');
  let flushed = false;
  const flushing = queue.flush().then(() => {
    flushed = true;
  });
  assert.equal(queue.stats().inFlight, 1, 'flush starts queued work synchronously');
  queue.push('after');
  await tick();
  await tick();
  assert.equal(queue.stats().inFlight, 2);

  gates.get('before').resolve();
  await flushing;
  assert.equal(flushed, true);
  assert.deepEqual(done, ['before']);
  assert.equal(queue.stats().inFlight, 1, "the later task is still running");

  gates.get('after').resolve();
  await queue.drain();
  assert.deepEqual(done, ['before', 'after']);
});

test('flush() on an empty queue resolves at once', async () => {
  const queue = createQueue(async () => {});
  await queue.flush();
  assert.equal(queue.stats().pushed, 0);
});

test('handler errors are counted and never stop the queue', async () => {
  const errors = [];
  const done = [];
  const queue = createQueue((task) => {
    if (task === 3) throw new Error('sync boom');
    if (task % 4 === 0) return Promise.reject(new Error(`async boom ${task}`));
    done.push(task);
    return undefined;
  }, { onError: (err, task) => errors.push({ message: err.message, task }) });
  for (let i = 1; i <= 10; i++) queue.push(i, i % 2 === 0 ? 'even' : 'odd');
  await queue.drain();

  assert.deepEqual(done.sort((a, b) => a - b), [1, 2, 5, 6, 7, 9, 10]);
  const stats = queue.stats();
  assert.equal(stats.failed, 3);
  assert.equal(stats.completed, 7);
  assert.ok(stats.lastError instanceof Error);
  assert.deepEqual(errors.map((e) => e.task).sort((a, b) => a - b), [3, 4, 8]);
  assert.equal(errors.find((e) => e.task === 3).message, 'sync boom');
});

test('a throwing onError callback does not break the queue', async () => {
  const queue = createQueue(async () => {
    throw new Error('fail');
  }, {
    onError: () => {
      throw new Error('callback bug');
    },
  });
  queue.push(1);
  queue.push(2);
  await queue.drain();
  assert.equal(queue.stats().failed, 2);
});

test('batch failures count every task of the batch', async () => {
  const queue = createQueue(async (batch) => {
    if (batch.includes('bad')) throw new Error('bad batch');
  }, { mode: 'batch', batchSize: 3, maxConcurrency: 1 });
  for (const task of ['a', 'b', 'bad', 'c', 'd']) queue.push(task);
  await queue.drain();
  const stats = queue.stats();
  assert.equal(stats.failed, 3);
  assert.equal(stats.completed, 2);
  assert.equal(stats.invocations, 2);
});

test('retries re-run a failed task before the next task of its key', async () => {
  const attempts = new Map();
  const order = [];
  const queue = createQueue(async (task) => {
    attempts.set(task, (attempts.get(task) || 0) + 1);
    if (task === 'x1' && attempts.get(task) < 3) throw new Error('flaky');
    order.push(task);
  }, { retries: 2, retryDelayMs: 1 });
  queue.push('x1', 'x');
  queue.push('x2', 'x');
  await queue.drain();
  assert.deepEqual(order, ['x1', 'x2']);
  assert.equal(attempts.get('x1'), 3);
  const stats = queue.stats();
  assert.equal(stats.retried, 2);
  assert.equal(stats.failed, 0);
  assert.equal(stats.completed, 2);
});

test('pause() stops new starts, resume() carries on', async () => {
  const gate = deferred();
  const started = [];
  const queue = createQueue(async (task) => {
    started.push(task);
    if (task === 'first') await gate.promise;
  }, { maxConcurrency: 4 });

  queue.push('first');
  await tick();
  assert.deepEqual(started, ['first']);

  queue.pause();
  queue.push('second');
  queue.push('third');
  gate.resolve(); // 'first' finishes while paused
  await tick();
  await tick();
  assert.deepEqual(started, ['first'], 'nothing starts while paused');
  assert.equal(queue.stats().depth, 2);
  assert.equal(queue.stats().paused, true);

  queue.resume();
  await queue.drain();
  assert.deepEqual(started, ['first', 'second', 'third']);
  assert.equal(queue.stats().completed, 3);
});

test('close() runs what is queued, then refuses new tasks', async () => {
  const done = [];
  const queue = createQueue(async (batch) => {
    done.push(...batch);
  }, { mode: 'batch', batchSize: 50, maxWaitMs: 60000 });
  queue.push(1);
  queue.push(2);
  await queue.close(); // does not wait for the 60 s maxWaitMs
  assert.deepEqual(done, [1, 2]);
  assert.equal(queue.push(3), false);
  const stats = queue.stats();
  assert.equal(stats.closed, true);
  assert.equal(stats.rejectedClosed, 1);
  assert.equal(stats.pushed, 2);
});

test('SampleWindow keeps only the most recent samples and reports nearest-rank percentiles', () => {
  const window = new SampleWindow(100);
  for (let i = 1; i <= 100; i++) window.add(i);
  assert.deepEqual(window.summary(), { count: 100, window: 100, mean: 50.5, p50: 50, p95: 95, p99: 99, max: 100 });

  // 100 more samples push the first 100 out of the ring.
  for (let i = 101; i <= 200; i++) window.add(i);
  const summary = window.summary();
  assert.equal(summary.count, 200);
  assert.equal(summary.window, 100);
  assert.equal(summary.max, 200);
  assert.equal(summary.p50, 150);
  assert.equal(summary.mean, 150.5);

  assert.deepEqual(new SampleWindow(4).summary(), { count: 0, window: 0, mean: 0, p50: 0, p95: 0, p99: 0, max: 0 });
});

test('queue stats expose ordered wait and run distributions', async () => {
  const queue = createQueue(async () => {
    await tick();
  }, { maxConcurrency: 2, sampleWindow: 16 });
  for (let i = 0; i < 40; i++) queue.push(i);
  await queue.drain();
  const { waitMs, runMs } = queue.stats();
  for (const dist of [waitMs, runMs]) {
    assert.equal(dist.count, 40);
    assert.equal(dist.window, 16);
    assert.ok(dist.p50 <= dist.p95 && dist.p95 <= dist.p99 && dist.p99 <= dist.max);
    assert.ok(dist.mean >= 0);
  }
});
