'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { splitLargeFields, joinChunkedFields, chunkList, KEYED_LISTS, MOVING_SUFFIX } = require('../../imports/core/field-chunks');
const { PublishHub } = require('../../imports/core/publish-hub');
const { createEngine } = require('../../imports/core/engine');
const { simulatedReports } = require('../helpers/mesh');

// Deterministic items of about 70 bytes each.
const point = (i) => ({ time: 1e12 + i, snr: (i * 7) % 23 - 11, rssi: -120 + ((i * 13) % 50), hash: `h${(i * 2654435761 >>> 0).toString(16)}` });
const window = (from, count) => Array.from({ length: count }, (_, k) => point(from + count - 1 - k)); // newest first

/** A client's copy: apply added/changed messages as DDP does (undefined clears a field). */
function apply(doc, fields) {
  const out = { ...doc };
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) delete out[key];
    else out[key] = value;
  }
  return out;
}

test('split then join gives back the document, whatever the list sizes', () => {
  for (const count of [0, 1, 5, 60, 500]) {
    const snapshot = { total: count, nodes: window(0, count), scatter: { eligible: count + 3, points: window(7, count) }, small: [1, 2, 3], label: 'x' };
    const { fields, signatures } = splitLargeFields(snapshot, { minBytes: 256, averageItems: 8 });
    for (const [name, value] of Object.entries(fields)) assert.equal(signatures.get(name), JSON.stringify(value), `signature of ${name}`);
    assert.deepEqual(joinChunkedFields(JSON.parse(JSON.stringify(fields))), snapshot, `${count} items`);
  }
});

test('small lists, and documents with ~ in their own field names, stay as they are', () => {
  const small = { a: [1, 2], b: { c: [3] } };
  assert.deepEqual(splitLargeFields(small, { minBytes: 4096 }).fields, small);
  const odd = { 'a~b': 1, list: window(0, 300) };
  const { fields, chunked } = splitLargeFields(odd, { minBytes: 64 });
  assert.equal(chunked, 0);
  assert.deepEqual(fields, odd);
  const plain = { x: 1 };
  assert.equal(joinChunkedFields(plain), plain);
});

test('a sliding window changes only the chunks at its two ends', () => {
  const before = splitLargeFields({ points: window(0, 500) }, { minBytes: 256, averageItems: 16 });
  const after = splitLargeFields({ points: window(60, 500) }, { minBytes: 256, averageItems: 16 }); // 60 new, 60 dropped
  let changedBytes = 0;
  let totalBytes = 0;
  for (const [name, signature] of after.signatures) {
    totalBytes += signature.length;
    if (before.signatures.get(name) !== signature) changedBytes += signature.length;
  }
  // Brute force: the moved items are 12% of the list; allow the chunks they touch.
  assert.ok(changedBytes < totalBytes * 0.35, `changed ${changedBytes} of ${totalBytes} bytes`);
  assert.deepEqual(joinChunkedFields(after.fields), { points: window(60, 500) });
});

test('chunk ids are unique within a list even when chunks repeat', () => {
  const same = Array.from({ length: 200 }, () => ({ v: 1 }));
  const chunks = chunkList(same, 1);
  assert.equal(new Set(chunks.map((c) => c.id)).size, chunks.length);
  assert.deepEqual(chunks.flatMap((c) => c.items), same);
});

test('hub: subscribers that apply every message hold the view\'s document once joined, and ticks send less than whole fields', () => {
  const { reports, channels } = simulatedReports({ seed: 5, count: 1500 });
  const engine = createEngine({ channels });
  for (const report of reports.slice(0, 700)) engine.ingest(report);
  let now = Date.now();
  const resolve = (name) => engine.views.get(name);
  const chunkedHub = new PublishHub(resolve, { publishIntervalMs: 0, now: () => now, chunkMinBytes: 1024 });
  const wholeHub = new PublishHub(resolve, { publishIntervalMs: 0, now: () => now, chunkMinBytes: 0 });
  const client = (hub, name) => {
    const state = { doc: null, bytes: 0 };
    hub.subscribe(name, {}, {
      added: (id, fields) => { state.doc = apply({}, fields); },
      changed: (id, fields) => { state.doc = apply(state.doc, fields); state.bytes += JSON.stringify(fields).length; },
      removed: () => { state.doc = null; },
    });
    return state;
  };
  const names = ['rf', 'nodes', 'topology'];
  const chunked = Object.fromEntries(names.map((name) => [name, client(chunkedHub, name)]));
  const whole = Object.fromEntries(names.map((name) => [name, client(wholeHub, name)]));
  let late = null;
  for (let step = 0; step < 8; step++) {
    for (const report of reports.slice(700 + step * 100, 800 + step * 100)) engine.ingest(report);
    now += 1000;
    chunkedHub.tick();
    wholeHub.tick();
    if (step === 3) late = client(chunkedHub, 'rf'); // joins mid-way from the cached document
    for (const name of names) {
      // Brute force: the whole-field hub's copy is the view's document; the chunked copy joins to it.
      assert.deepEqual(joinChunkedFields(chunked[name].doc), whole[name].doc, `${name} after step ${step}`);
    }
    if (late) assert.deepEqual(joinChunkedFields(late.doc), whole.rf.doc, `late rf subscriber after step ${step}`);
  }
  assert.ok(chunked.rf.bytes < whole.rf.bytes, `rf: ${chunked.rf.bytes} bytes chunked vs ${whole.rf.bytes} whole`);
});

// A page of records ranked by a moving field, like the nodes view sorted by lastSeen.
const record = (i, t) => ({ pubKey: `k${(i * 2654435761 >>> 0).toString(16).padStart(8, '0')}`, name: `node ${i}`, lat: 37 + i / 1000, lastSeen: t - ((i * 7919) % 600) * 1000, packets: (i * 31) % 97, status: 'active' });
const ranked = (count, t) => Array.from({ length: count }, (_, i) => record(i, t)).sort((a, b) => b.lastSeen - a.lastSeen);
const KEYED = { nodes: { key: 'pubKey', moving: ['lastSeen', 'packets', 'status'] } };

test('keyed list: split then join gives back the same items in the same order, field order included', () => {
  for (const count of [0, 1, 7, 100, 300]) {
    const snapshot = { total: count, nodes: ranked(count, 1e12) };
    const { fields, signatures } = splitLargeFields(snapshot, { minBytes: 64, keyed: KEYED });
    for (const [name, value] of Object.entries(fields)) assert.equal(signatures.get(name), JSON.stringify(value), `signature of ${name}`);
    const joined = joinChunkedFields(JSON.parse(JSON.stringify(fields)));
    assert.deepEqual(joined, snapshot, `${count} items`);
    assert.equal(JSON.stringify(joined.nodes), JSON.stringify(snapshot.nodes), `${count} items, same field order`);
  }
});

test('keyed list: a tick that only reorders items and moves their moving fields changes the moving part alone', () => {
  const before = ranked(200, 1e12);
  // Every item heard again, in another order, with new counts: the ranking moved entirely.
  const after = before.map((item, i) => ({ ...item, lastSeen: item.lastSeen + ((i * 104729) % 5000), packets: item.packets + 1 })).sort((a, b) => b.lastSeen - a.lastSeen);
  const a = splitLargeFields({ nodes: before }, { minBytes: 64, keyed: KEYED });
  const b = splitLargeFields({ nodes: after }, { minBytes: 64, keyed: KEYED });
  const moved = Array.from(b.signatures.keys()).filter((name) => a.signatures.get(name) !== b.signatures.get(name));
  assert.deepEqual(moved, [`nodes~${MOVING_SUFFIX}`]);
  assert.deepEqual(joinChunkedFields(b.fields), { nodes: after });
  // The moving part is a fraction of the list (brute force: the whole list's JSON).
  assert.ok(b.signatures.get(`nodes~${MOVING_SUFFIX}`).length < JSON.stringify(after).length * 0.35);
});

test('keyed list: one item entering and one leaving changes a few chunks, not the list', () => {
  const list = ranked(301, 1e12);
  const a = splitLargeFields({ nodes: list.slice(0, 300) }, { minBytes: 64, keyed: KEYED });
  const b = splitLargeFields({ nodes: [list[300], ...list.slice(0, 299)] }, { minBytes: 64, keyed: KEYED });
  let changed = 0;
  let total = 0;
  for (const [name, signature] of b.signatures) {
    total += signature.length;
    if (a.signatures.get(name) !== signature && !name.endsWith(MOVING_SUFFIX)) changed += signature.length;
  }
  assert.ok(changed < total * 0.15, `changed ${changed} of ${total} bytes`);
  assert.deepEqual(joinChunkedFields(b.fields), { nodes: [list[300], ...list.slice(0, 299)] });
});

test('keyed list: lists that do not fit the spec fall back to plain chunks, still lossless', () => {
  const duplicate = ranked(50, 1e12);
  duplicate[3] = { ...duplicate[3], pubKey: duplicate[4].pubKey };
  const missing = ranked(50, 1e12).map((item, i) => (i === 5 ? { pubKey: item.pubKey, name: item.name } : item));
  const mixed = [...ranked(49, 1e12), 'not an object'];
  for (const list of [duplicate, missing, mixed]) {
    const { fields } = splitLargeFields({ nodes: list }, { minBytes: 64, keyed: KEYED });
    assert.equal(fields[`nodes~${MOVING_SUFFIX}`], undefined);
    assert.equal(fields['nodes~'].moving, undefined);
    assert.deepEqual(joinChunkedFields(JSON.parse(JSON.stringify(fields))), { nodes: JSON.parse(JSON.stringify(list)) });
  }
});

test('the hub\'s keyed lists name fields the views really send', () => {
  const { reports, channels } = simulatedReports({ seed: 9, count: 800 });
  const engine = createEngine({ channels });
  for (const report of reports) engine.ingest(report);
  for (const [viewName, lists] of Object.entries(KEYED_LISTS)) {
    const view = engine.views.get(viewName);
    const snapshot = view.snapshot(view.normalizeParams({}), Date.now());
    for (const [field, spec] of Object.entries(lists)) {
      assert.ok(Array.isArray(snapshot[field]) && snapshot[field].length > 0, `${viewName}.${field} is a non-empty list`);
      const { fields } = splitLargeFields({ [field]: snapshot[field] }, { minBytes: 1, keyed: lists });
      assert.ok(fields[`${field}~${MOVING_SUFFIX}`], `${viewName}.${field} splits by ${spec.key} (a distinct key, every moving field present)`);
    }
  }
});

test('itemTexts gives each item\'s own JSON text and hash; frozen flat items keep theirs, others are read again', () => {
  const { itemTexts, hashString } = require('../../imports/core/field-chunks');
  const tricky = [
    { s: 'a,b', t: '[x]', u: '{y}', q: 'say "hi", then \\ go', n: null },
    'plain, with comma', '', [1, [2, 3], { a: [] }], {}, [], undefined, () => 1, new Date(0), -0.5e-7,
    'emoji \u{1F4E1} and \u2028 line sep', true,
  ];
  for (const list of [tricky, [], [tricky[0]], window(3, 40)]) {
    const texts = itemTexts(list);
    assert.equal(`[${texts.parts.join(',')}]`, JSON.stringify(list));
    assert.equal(texts.bytes, JSON.stringify(list).length);
    list.forEach((item, i) => assert.equal(texts.hashes[i], hashString(texts.parts[i]), `hash of item ${i}`));
    for (const average of [1, 2, 3]) {
      const chunks = chunkList(list, average);
      for (const chunk of chunks) assert.equal(chunk.signature, JSON.stringify(chunk.items));
      assert.deepEqual(chunks.flatMap((c) => c.items), list);
    }
  }
  // A frozen item with a nested object may still change inside: never cached.
  const nested = Object.freeze({ a: 1, inner: { b: 2 } });
  assert.equal(itemTexts([nested]).parts[0], '{"a":1,"inner":{"b":2}}');
  nested.inner.b = 3;
  assert.equal(itemTexts([nested]).parts[0], '{"a":1,"inner":{"b":3}}');
  // A frozen Date, or a frozen object with a getter, can still change: never cached.
  const date = Object.freeze(new Date(0));
  assert.equal(itemTexts([date]).parts[0], JSON.stringify(new Date(0)));
  date.setTime(1000);
  assert.equal(itemTexts([date]).parts[0], JSON.stringify(new Date(1000)));
  let reading = 0;
  const getter = Object.freeze({ get n() { reading++; return reading; } });
  const first = itemTexts([getter]).parts[0];
  assert.notEqual(itemTexts([getter]).parts[0], first);
  // A mutable item is read again every time.
  const mutable = { a: 1 };
  itemTexts([mutable]);
  mutable.a = 2;
  assert.equal(itemTexts([mutable]).parts[0], '{"a":2}');
  // A frozen flat item is read once: the same object gives the same text (and hash) object.
  const point = Object.freeze({ time: 1, snr: -3.5, rssi: -101, hash: 'ab' });
  assert.equal(itemTexts([point]).parts[0], '{"time":1,"snr":-3.5,"rssi":-101,"hash":"ab"}');
  assert.equal(itemTexts([point, point]).parts[1], itemTexts([point]).parts[0]);
});

test('a field\'s signature is exactly its JSON, however it was put together', () => {
  const frozenPoints = Array.from({ length: 30 }, (_, i) => Object.freeze(point(i)));
  const snapshot = {
    n: 1, s: 'x"y', nil: null, missing: undefined, fn: () => 1, date: new Date(5),
    obj: { a: [1, 2], b: undefined, c: { d: [point(1)] }, '1': 'numeric key first', 'é"q': [] },
    withToJSON: { toJSON: () => ({ replaced: true }), a: [1] },
    frozenList: frozenPoints,
    wrapper: { eligible: 3, points: frozenPoints, tail: [point(2)] },
    arr: [point(3), undefined, [1, { x: [2] }]],
  };
  for (const minBytes of [1, 64, 4096]) {
    const { fields, signatures } = splitLargeFields(snapshot, { minBytes, averageItems: 4 });
    for (const [name, value] of Object.entries(fields)) assert.equal(signatures.get(name), JSON.stringify(value), `signature of ${name} at ${minBytes}`);
    assert.deepEqual(JSON.parse(JSON.stringify(joinChunkedFields(JSON.parse(JSON.stringify(fields))))), JSON.parse(JSON.stringify(snapshot)), `round trip at ${minBytes}`);
  }
});
