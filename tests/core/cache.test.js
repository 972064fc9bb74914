'use strict';
// Behaviour of imports/core/cache.js, driven by a fake clock: no real waiting.
const test = require('node:test');
const assert = require('node:assert/strict');
const { createViewCache, canonicalJson, CACHE_DEFAULTS } = require('../../imports/core/cache');
const { deferred } = require('../helpers/async');

/** A clock the test moves by hand. */
function fakeClock(start = 1000) {
  let time = start;
  return {
    now: () => time,
    advance: (ms) => {
      time += ms;
    },
  };
}

/** A compute function that counts its calls and returns `label#call`. */
function counter(label) {
  const fn = () => {
    fn.calls++;
    return `${label}#${fn.calls}`;
  };
  fn.calls = 0;
  return fn;
}


test('defaults are documented in one place', () => {
  assert.equal(CACHE_DEFAULTS.maxEntries, 500);
  assert.equal(CACHE_DEFAULTS.staleWhileRevalidate, 0);
  assert.throws(() => createViewCache({ ttl: 5 }), /unknown option 'ttl'/);
  assert.throws(() => createViewCache({ maxEntries: 0 }), /maxEntries must be an integer >= 1/);
  assert.throws(() => createViewCache({ viewTtlMs: { rf: -1 } }), /viewTtlMs.rf must be a number >= 0/);
});

test('canonicalJson sorts object keys at every depth and keeps array order', () => {
  assert.equal(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: 2 } }), '{"a":{"c":2,"d":[3,{"y":2,"z":1}]},"b":1}');
  assert.equal(canonicalJson(undefined), 'null');
  assert.equal(canonicalJson({ a: undefined, b: 1 }), '{"b":1}');
});

test('first get misses and computes, the next one hits; key order of params does not matter', async () => {
  const clock = fakeClock();
  const cache = createViewCache({ now: clock.now });
  const compute = counter('rf');

  assert.equal(await cache.get('rf', { hours: 24, observer: 'A' }, 1, compute), 'rf#1');
  assert.equal(await cache.get('rf', { observer: 'A', hours: 24 }, 1, compute), 'rf#1');
  assert.equal(await cache.get('rf', { hours: 24, observer: 'A' }, 1, compute), 'rf#1');
  assert.equal(await cache.get('rf', { hours: 1 }, 1, compute), 'rf#2', 'other params, other entry');
  assert.equal(compute.calls, 2);

  const stats = cache.stats();
  assert.equal(stats.hits, 2);
  assert.equal(stats.misses, 2);
  assert.equal(stats.hitRatio, 0.5);
  assert.equal(stats.entries, 2);
  assert.deepEqual(stats.views.rf, {
    entries: 2, hits: 2, misses: 2, staleHits: 0, evictions: 0, versionMisses: 0, expirations: 0, warmed: 0, errors: 0,
  });
});

test('async compute values are cached like sync ones', async () => {
  const cache = createViewCache({ now: fakeClock().now });
  let calls = 0;
  const compute = async () => {
    calls++;
    return { rows: [1, 2, 3] };
  };
  const first = await cache.get('topology', {}, 'v1', compute);
  const second = await cache.get('topology', {}, 'v1', compute);
  assert.equal(first, second);
  assert.equal(calls, 1);
});

test('entries expire after the view TTL (fake clock), with per-view overrides', async () => {
  const clock = fakeClock();
  const cache = createViewCache({ ttlMs: 1000, viewTtlMs: { topology: 5000 }, now: clock.now });
  const rf = counter('rf');
  const topology = counter('topo');

  await cache.get('rf', {}, 1, rf);
  await cache.get('topology', {}, 1, topology);

  clock.advance(999);
  assert.equal(await cache.get('rf', {}, 1, rf), 'rf#1', 'still fresh 1 ms before the TTL');

  clock.advance(1);
  assert.equal(await cache.get('rf', {}, 1, rf), 'rf#2', 'expired exactly at the TTL');
  assert.equal(await cache.get('topology', {}, 1, topology), 'topo#1', 'topology has a 5 s TTL');

  clock.advance(4000);
  assert.equal(await cache.get('topology', {}, 1, topology), 'topo#2');

  const stats = cache.stats();
  assert.equal(stats.expirations, 2);
  assert.equal(stats.misses, 4);
  assert.equal(stats.hits, 2);
});

test('stale-while-revalidate answers stale at once and refreshes exactly once', async () => {
  const clock = fakeClock();
  const cache = createViewCache({ ttlMs: 1000, staleWhileRevalidate: true, now: clock.now });
  let calls = 0;
  let gate = null;
  const compute = async () => {
    calls++;
    if (gate) await gate.promise;
    return `value#${calls}`;
  };

  assert.equal(await cache.get('rf', {}, 1, compute), 'value#1');
  clock.advance(1500);

  gate = deferred();
  const answers = await Promise.all(Array.from({ length: 5 }, () => cache.get('rf', {}, 1, compute)));
  assert.deepEqual(answers, Array(5).fill('value#1'), 'every caller gets the stale value without waiting');

  // The refresh is deferred to the next macrotask; let it start, then release it.
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(calls, 2, 'five stale hits, one background compute');
  gate.resolve();
  await cache.idle();

  assert.equal(await cache.get('rf', {}, 1, compute), 'value#2', 'refreshed value is fresh');
  const stats = cache.stats();
  assert.equal(stats.staleHits, 5);
  assert.equal(stats.refreshes, 1);
  assert.equal(stats.hits, 1);
  assert.equal(stats.misses, 1);
  assert.equal(stats.hitRatio, 6 / 7);
});

test('stale-while-revalidate window in ms: older entries are recomputed before answering', async () => {
  const clock = fakeClock();
  const cache = createViewCache({ ttlMs: 1000, staleWhileRevalidate: 500, now: clock.now });
  const compute = counter('rf');
  await cache.get('rf', {}, 1, compute);

  clock.advance(1499);
  assert.equal(await cache.get('rf', {}, 1, compute), 'rf#1', 'inside the stale window');
  await cache.idle();
  assert.equal(compute.calls, 2);

  clock.advance(1500); // the refreshed entry (stored at 2499) is now 1500 ms old: past TTL + window
  assert.equal(await cache.get('rf', {}, 1, compute), 'rf#3');
  assert.equal(cache.stats().expirations, 1);
});

test('a failed background refresh keeps the stale entry and reports the error', async () => {
  const clock = fakeClock();
  const errors = [];
  const cache = createViewCache({
    ttlMs: 10, staleWhileRevalidate: true, now: clock.now, onError: (err, view) => errors.push([err.message, view]),
  });
  let fail = false;
  const compute = () => {
    if (fail) throw new Error('store busy');
    return 'good';
  };
  await cache.get('rf', {}, 1, compute);
  clock.advance(20);
  fail = true;
  assert.equal(await cache.get('rf', {}, 1, compute), 'good');
  await cache.idle();
  assert.deepEqual(errors, [['store busy', 'rf']]);
  assert.equal(await cache.get('rf', {}, 1, compute), 'good', 'still served stale');
  assert.equal(cache.stats().errors, 1);
});

test('a new view version invalidates the entry and recomputes before answering, even with SWR', async () => {
  const clock = fakeClock();
  const cache = createViewCache({ ttlMs: 60000, staleWhileRevalidate: true, now: clock.now });
  const compute = counter('rf');

  assert.equal(await cache.get('rf', {}, 1, compute), 'rf#1');
  assert.equal(await cache.get('rf', {}, 1, compute), 'rf#1');
  assert.equal(await cache.get('rf', {}, 2, compute), 'rf#2', 'version 2 is not served version 1 data');
  assert.equal(await cache.get('rf', {}, 2, compute), 'rf#2');

  const stats = cache.stats();
  assert.equal(stats.versionMisses, 1);
  assert.equal(stats.staleHits, 0);
  assert.equal(stats.misses, 2);
  assert.equal(stats.hits, 2);
});

test('invalidate(view) drops that view only; clear() drops everything', async () => {
  const cache = createViewCache({ now: fakeClock().now });
  const rf = counter('rf');
  const topology = counter('topo');
  await cache.get('rf', { a: 1 }, 1, rf);
  await cache.get('rf', { a: 2 }, 1, rf);
  await cache.get('topology', {}, 1, topology);

  assert.equal(cache.invalidate('rf'), 2);
  assert.equal(cache.stats().entries, 1);
  assert.equal(await cache.get('topology', {}, 1, topology), 'topo#1');
  assert.equal(await cache.get('rf', { a: 1 }, 1, rf), 'rf#3');

  cache.clear();
  assert.equal(cache.stats().entries, 0);
  assert.equal(await cache.get('topology', {}, 1, topology), 'topo#2');
});

test('a compute still running when its view is invalidated is not stored', async () => {
  const cache = createViewCache({ now: fakeClock().now });
  const gate = deferred();
  const slow = cache.get('rf', {}, 1, async () => {
    await gate.promise;
    return 'old data';
  });
  cache.invalidate('rf');
  gate.resolve();
  assert.equal(await slow, 'old data', 'the caller still gets its answer');
  assert.equal(cache.stats().entries, 0, 'but it is not cached');
  assert.equal(await cache.get('rf', {}, 1, () => 'new data'), 'new data');
});

test('maxEntries bounds the cache with least-recently-used eviction', async () => {
  const cache = createViewCache({ maxEntries: 3, now: fakeClock().now });
  const compute = counter('v');
  await cache.get('rf', { id: 'a' }, 1, compute);
  await cache.get('rf', { id: 'b' }, 1, compute);
  await cache.get('topology', { id: 'c' }, 1, compute);
  await cache.get('rf', { id: 'a' }, 1, compute); // a becomes most recent; b is now LRU
  await cache.get('rf', { id: 'd' }, 1, compute); // evicts b

  let stats = cache.stats();
  assert.equal(stats.entries, 3);
  assert.equal(stats.evictions, 1);
  assert.equal(stats.views.rf.evictions, 1);
  assert.equal(stats.views.topology.evictions, 0);

  const callsBefore = compute.calls;
  await cache.get('rf', { id: 'a' }, 1, compute);
  await cache.get('topology', { id: 'c' }, 1, compute);
  await cache.get('rf', { id: 'd' }, 1, compute);
  assert.equal(compute.calls, callsBefore, 'a, c and d survived');
  await cache.get('rf', { id: 'b' }, 1, compute);
  assert.equal(compute.calls, callsBefore + 1, 'b was evicted');

  stats = cache.stats();
  assert.equal(stats.entries, 3);
  assert.equal(stats.evictions, 2);
});

test('concurrent gets of a missing key compute once and share the value', async () => {
  const cache = createViewCache({ now: fakeClock().now });
  const gate = deferred();
  let calls = 0;
  const compute = async () => {
    calls++;
    await gate.promise;
    return { computed: calls };
  };
  const pending = Array.from({ length: 10 }, () => cache.get('hash-sizes', { days: 7 }, 3, compute));
  gate.resolve();
  const values = await Promise.all(pending);
  assert.equal(calls, 1);
  for (const value of values) assert.equal(value, values[0]);
  const stats = cache.stats();
  assert.equal(stats.misses, 10);
  assert.equal(stats.coalesced, 9);
  assert.equal(stats.computes, 1);
});

test('a failing compute rejects every waiting caller and caches nothing', async () => {
  const cache = createViewCache({ now: fakeClock().now });
  let calls = 0;
  const failing = async () => {
    calls++;
    throw new Error('decode failed');
  };
  const results = await Promise.allSettled([cache.get('rf', {}, 1, failing), cache.get('rf', {}, 1, failing)]);
  assert.deepEqual(results.map((r) => r.status), ['rejected', 'rejected']);
  assert.equal(calls, 1);
  assert.equal(cache.stats().entries, 0);
  assert.equal(cache.stats().errors, 1);
  assert.equal(await cache.get('rf', {}, 1, () => 'ok'), 'ok', 'the next get computes again');
});

test('warm() pre-computes an entry without counting hits or misses', async () => {
  const cache = createViewCache({ now: fakeClock().now });
  const compute = counter('topo');
  assert.equal(await cache.warm('topology', { region: 'EU' }, 1, compute), 'topo#1');
  assert.equal(await cache.warm('topology', { region: 'EU' }, 1, compute), 'topo#1', 'already warm');
  let stats = cache.stats();
  assert.equal(stats.hits, 0);
  assert.equal(stats.misses, 0);
  assert.equal(stats.warmed, 1);

  assert.equal(await cache.get('topology', { region: 'EU' }, 1, compute), 'topo#1');
  stats = cache.stats();
  assert.equal(stats.hits, 1);
  assert.equal(compute.calls, 1);
});

test('a throwing view (sync or async, on some calls) never leaves an entry; errors are counted per view as plain JSON', async () => {
  const clock = fakeClock();
  const cache = createViewCache({ ttlMs: 100, now: clock.now });
  const failOn = new Set([1, 2, 4]);
  let calls = 0;
  const flaky = () => {
    calls++;
    if (failOn.has(calls)) {
      if (calls % 2) throw new RangeError(`histogram bin NaN (call ${calls})`);
      return Promise.reject(new Error(`async failure (call ${calls})`));
    }
    return { call: calls };
  };
  await assert.rejects(cache.get('rf', {}, 1, flaky), /histogram bin NaN \(call 1\)/);
  assert.equal(cache.stats().entries, 0, 'a sync throw is not stored');
  await assert.rejects(cache.get('rf', {}, 1, flaky), /async failure \(call 2\)/);
  assert.equal(cache.stats().entries, 0, 'a rejection is not stored');
  assert.deepEqual(await cache.get('rf', {}, 1, flaky), { call: 3 }, 'recovers as soon as the view does');
  assert.deepEqual(await cache.get('rf', {}, 1, flaky), { call: 3 }, 'the good value is what is cached');
  assert.deepEqual(await cache.get('stats', {}, 1, () => 'other view'), 'other view');

  // A new version whose compute fails: the old entry is gone, nothing broken replaces it.
  await assert.rejects(cache.get('rf', {}, 2, flaky), /call 4/);
  assert.equal(cache.stats().views.rf.entries, 0);
  assert.deepEqual(await cache.get('rf', {}, 2, flaky), { call: 5 });

  const stats = cache.stats();
  assert.equal(stats.errors, 3);
  assert.equal(stats.views.rf.errors, 3);
  assert.equal(stats.views.stats.errors, 0);
  assert.deepEqual(stats.lastError, { view: 'rf', message: 'async failure (call 4)', at: 1000 });
  assert.deepEqual(JSON.parse(JSON.stringify(stats.lastError)), stats.lastError, 'stats stay plain JSON');
});

test('a refresh that keeps failing keeps serving the stale entry and stores only a good result', async () => {
  const clock = fakeClock();
  const cache = createViewCache({ ttlMs: 10, staleWhileRevalidate: true, now: clock.now });
  let failing = false;
  let calls = 0;
  const compute = () => {
    calls++;
    if (failing) throw new Error('bad value');
    return `good#${calls}`;
  };
  assert.equal(await cache.get('rf', {}, 1, compute), 'good#1');
  failing = true;
  for (let round = 0; round < 3; round++) {
    clock.advance(20);
    assert.equal(await cache.get('rf', {}, 1, compute), 'good#1');
    await cache.idle();
  }
  assert.equal(cache.stats().views.rf.errors, 3);
  failing = false;
  clock.advance(20);
  assert.equal(await cache.get('rf', {}, 1, compute), 'good#1', 'stale answer while the refresh runs');
  await cache.idle();
  assert.equal(await cache.get('rf', {}, 1, compute), 'good#5', 'the recovered value replaced it');
});
