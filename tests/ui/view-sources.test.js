'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { createViewSources, sourceKey, INITIAL_STATE } = require('../../imports/ui/lib/view-sources');
const { viewDocumentId } = require('../../imports/core/view-key');
const { createFakeClock } = require('./fake-clock');

/** A transport that records calls and lets the test drive subscriptions and documents. */
function createFakeTransport() {
  const documents = new Map();
  let rows = [];
  const subscriptions = [];
  const observers = new Set();
  const calls = [];
  let answer = async (method, params) => ({ method, params, generatedAt: 5, newestPacketAt: 4 });
  return {
    documents,
    subscriptions,
    calls,
    setAnswer(fn) { answer = fn; },
    setRows(next) { rows = next; for (const o of observers) if (o.kind === 'live') o.onChange(); },
    setDocument(id, doc) { documents.set(id, doc); for (const o of observers) if (o.id === id) o.onChange(); },
    observerCount: () => observers.size,
    subscribe(publication, params, callbacks) {
      const sub = { publication, params, callbacks, stopped: false, stop() { this.stopped = true; } };
      subscriptions.push(sub);
      return sub;
    },
    call(method, params) {
      calls.push({ method, params });
      return answer(method, params);
    },
    observe(kind, id, onChange) {
      const entry = { kind, id, onChange };
      observers.add(entry);
      return { stop: () => observers.delete(entry) };
    },
    read(kind, id, limit) {
      return kind === 'live' ? rows.slice(0, limit) : documents.get(id) || null;
    },
  };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

test('reactive view: subscribes once per (view, params) and reads the document by viewDocumentId', () => {
  const clock = createFakeClock();
  const transport = createFakeTransport();
  const sources = createViewSources(transport, clock);
  const spec = { kind: 'view', name: 'nodes', params: { role: 'repeater' }, mode: 'reactive' };
  const a = sources.acquire(spec);
  const b = sources.acquire({ ...spec, params: { role: 'repeater' } });
  assert.equal(a, b);
  assert.equal(transport.subscriptions.length, 1);
  assert.equal(transport.subscriptions[0].publication, 'view.nodes');
  assert.deepEqual(transport.subscriptions[0].params, { role: 'repeater' });
  assert.equal(a.state, INITIAL_STATE);

  const id = viewDocumentId('nodes', { role: 'repeater' });
  transport.setDocument(id, { total: 3, generatedAt: 900, newestPacketAt: 800 });
  clock.advance(0);
  transport.subscriptions[0].callbacks.onReady();
  assert.equal(a.state.loading, false);
  assert.equal(a.state.data.total, 3);
  assert.deepEqual(a.state.meta, { generatedAt: 900, newestPacketAt: 800 });
  assert.equal(sources.peek(sourceKey(spec)), a.state);
});

test('reactive view: notifications are throttled to one per minNotifyMs however many changes arrive', () => {
  const clock = createFakeClock();
  const transport = createFakeTransport();
  const sources = createViewSources(transport, { ...clock, minNotifyMs: 250 });
  const source = sources.acquire({ kind: 'view', name: 'stats', params: {}, mode: 'reactive' });
  const id = viewDocumentId('stats', {});
  let notified = 0;
  source.subscribe(() => notified++);
  for (let ms = 0; ms < 1000; ms++) {
    transport.setDocument(id, { transmissions: ms });
    clock.advance(1);
  }
  clock.advance(250);
  assert.ok(notified >= 4 && notified <= 5, `expected 4-5 notifications for 1 s of changes, got ${notified}`);
  assert.equal(source.state.data.transmissions, 999, 'the last change is never lost');
});

test('a subscription error shows as the source error', () => {
  const clock = createFakeClock();
  const transport = createFakeTransport();
  const sources = createViewSources(transport, clock);
  const source = sources.acquire({ kind: 'view', name: 'node', params: { pubKey: 'zz' }, mode: 'reactive' });
  transport.subscriptions[0].callbacks.onStop({ error: 'bad-params', reason: 'node: parameter "pubKey" must match' });
  assert.equal(source.state.loading, false);
  assert.match(source.state.error.message, /pubKey/);
});

test('a rate-limited subscription is retried once the limit resets, keeping the data shown', () => {
  const clock = createFakeClock();
  const transport = createFakeTransport();
  const sources = createViewSources(transport, clock);
  const source = sources.acquire({ kind: 'view', name: 'stats', params: {}, mode: 'reactive' });
  transport.setDocument(viewDocumentId('stats', {}), { transmissions: 1 });
  transport.subscriptions[0].callbacks.onReady();
  transport.subscriptions[0].callbacks.onStop({ error: 'too-many-requests', reason: 'slow down', details: { timeToReset: 700 } });
  assert.equal(source.state.error.error, 'too-many-requests');
  assert.equal(source.state.data.transmissions, 1);
  assert.equal(transport.subscriptions[0].stopped, true);
  clock.advance(699);
  assert.equal(transport.subscriptions.length, 1);
  clock.advance(1);
  assert.equal(transport.subscriptions.length, 2);
  transport.subscriptions[1].callbacks.onReady();
  assert.equal(source.state.error, null);
});

test('release: view sources linger, then stop; live sources stop at once', () => {
  const clock = createFakeClock();
  const transport = createFakeTransport();
  const sources = createViewSources(transport, { ...clock, lingerMs: 1000 });
  const view = sources.acquire({ kind: 'view', name: 'stats', params: {}, mode: 'reactive' });
  sources.release(view);
  assert.equal(transport.subscriptions[0].stopped, false);
  const again = sources.acquire({ kind: 'view', name: 'stats', params: {}, mode: 'reactive' });
  assert.equal(again, view, 're-acquired within the linger time: same source, no resubscribe');
  sources.release(again);
  clock.advance(1000);
  assert.equal(transport.subscriptions[0].stopped, true);
  assert.equal(sources.size(), 0);
  assert.equal(transport.observerCount(), 0);

  const live = sources.acquire({ kind: 'live', name: 'packets', params: { limit: 200 }, mode: 'reactive', limit: 200 });
  assert.equal(transport.subscriptions[1].publication, 'packets.live');
  sources.release(live);
  assert.equal(transport.subscriptions[1].stopped, true, 'the old live feed is gone before a new one starts');
});

test('live rows: read in transport order up to the limit; meta from the rows', () => {
  const clock = createFakeClock();
  const transport = createFakeTransport();
  const sources = createViewSources(transport, clock);
  const live = sources.acquire({ kind: 'live', name: 'packets', params: { limit: 2 }, mode: 'reactive', limit: 2 });
  transport.subscriptions[0].callbacks.onReady();
  assert.deepEqual(live.state.data, []);
  assert.equal(live.state.loading, false);
  transport.setRows([{ hash: 'a', lastTime: 30 }, { hash: 'b', lastTime: 50 }, { hash: 'c', lastTime: 10 }]);
  clock.advance(300);
  assert.deepEqual(live.state.data.map((r) => r.hash), ['a', 'b']);
  assert.equal(live.state.meta.newestPacketAt, 50);
});

test('method mode: calls now, again refreshMs after each answer, and on refresh(); errors keep data', async () => {
  const clock = createFakeClock();
  const transport = createFakeTransport();
  const sources = createViewSources(transport, clock);
  const source = sources.acquire({ kind: 'view', name: 'rf', params: {}, mode: 'method', refreshMs: 2000 });
  assert.deepEqual(transport.calls, [{ method: 'view.rf', params: {} }]);
  await flush();
  assert.equal(source.state.loading, false);
  assert.equal(source.state.data.method, 'view.rf');
  clock.advance(1999);
  assert.equal(transport.calls.length, 1);
  clock.advance(1);
  assert.equal(transport.calls.length, 2);
  await flush();

  transport.setAnswer(async () => { throw Object.assign(new Error('too many requests'), { error: 'too-many-requests' }); });
  sources.refreshAll();
  await flush();
  assert.equal(transport.calls.length, 3);
  assert.equal(source.state.error.message, 'too many requests');
  assert.equal(source.state.data.method, 'view.rf', 'the last good data stays');
  sources.release(source);
});

test('method mode: an answer to an older call does not overwrite a newer one', async () => {
  const clock = createFakeClock();
  const transport = createFakeTransport();
  const resolvers = [];
  transport.setAnswer(() => new Promise((resolve) => resolvers.push(resolve)));
  const sources = createViewSources(transport, clock);
  const source = sources.acquire({ kind: 'view', name: 'stats', params: {}, mode: 'method' });
  source.refresh();
  resolvers[1]({ n: 'new' });
  await flush();
  resolvers[0]({ n: 'old' });
  await flush();
  assert.equal(source.state.data.n, 'new');
});

test('method mode live: rows come from view.packets, meta from the snapshot', async () => {
  const clock = createFakeClock();
  const transport = createFakeTransport();
  transport.setAnswer(async () => ({ packets: [{ hash: 'x' }], generatedAt: 77, newestPacketAt: 66 }));
  const sources = createViewSources(transport, clock);
  const live = sources.acquire({ kind: 'live', name: 'packets', params: { type: 4, limit: 200 }, mode: 'method', limit: 200 });
  assert.deepEqual(transport.calls[0], { method: 'view.packets', params: { type: 4, limit: 200 } });
  await flush();
  assert.deepEqual(live.state.data, [{ hash: 'x' }]);
  assert.deepEqual(live.state.meta, { generatedAt: 77, newestPacketAt: 66 });
  sources.release(live);
  assert.equal(clock.pending(), 0, 'a stopped source leaves no timer behind');
});

test('sourceKey: the same params in any key order give one key; mode and kind are part of it', () => {
  const a = sourceKey({ kind: 'view', name: 'nodes', params: { sort: 'name', role: 'room' }, mode: 'reactive' });
  const b = sourceKey({ kind: 'view', name: 'nodes', params: { role: 'room', sort: 'name' }, mode: 'reactive' });
  assert.equal(a, b);
  assert.notEqual(a, sourceKey({ kind: 'view', name: 'nodes', params: { role: 'room', sort: 'name' }, mode: 'method' }));
});
