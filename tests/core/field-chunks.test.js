'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { splitLargeFields, joinChunkedFields, chunkList } = require('../../imports/core/field-chunks');
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
  const names = ['rf', 'nodes'];
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
