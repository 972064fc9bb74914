'use strict';
/**
 * POST /api/packets (imports/ingest/http.js + http-batch.js): authentication, limits, and
 * hostile bodies. The whole body is parsed and checked before anything is ingested: an
 * unparseable body is 400 with nothing ingested; a parsed batch gets one result per item and
 * every good item is ingested exactly once.
 *
 * The hostile suite is sized for CI. For the one-off run at issue scale:
 *   MESHPULSE_HOSTILE_PER_CLASS=100000 node --test tests/http-batch.test.js
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('http');
const { EventEmitter } = require('events');
const { createEngine } = require('../imports/core/engine');
const { createSimulator } = require('../imports/core/simulate');
const { createPipeline } = require('../imports/ingest/pipeline');
const { createPacketsHandler } = require('../imports/ingest/http');
const { parseBatch, validateItem, scanDepth, BATCH_DEFAULTS } = require('../imports/ingest/http-batch');
const { seededRandom } = require('./helpers/mesh');

/** Simulator messages as observers publish them, plus the channels to decrypt them. */
function simulatorMessages(count, seed = 3) {
  const sim = createSimulator({ seed });
  return { messages: sim.messages(count), channels: sim.channels.map((c) => ({ name: c.name, key: c.key })) };
}

function observerOf(topic) {
  return topic.split('/')[2];
}

// --- over a real socket ----------------------------------------------------------------------

const API_KEY = 'test-key-0123456789';

async function startHttp(t, handlerOptions = {}) {
  const { messages, channels } = simulatorMessages(40, 31);
  const engine = createEngine({ channels });
  const pipeline = createPipeline({ engine });
  const handler = createPacketsHandler({ pipeline, apiKey: API_KEY, ...handlerOptions });
  const server = http.createServer(handler);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise((resolve) => {
    server.closeAllConnections();
    server.close(resolve);
  }));
  const bodies = messages.map((m) => ({ ...m.payload, observer: observerOf(m.topic), region: m.topic.split('/')[1] }));
  return { url: `http://127.0.0.1:${server.address().port}/api/packets`, engine, pipeline, bodies };
}

async function post(url, { body = '', headers = {}, method = 'POST' } = {}) {
  const response = await fetch(url, { method, headers, body: method === 'GET' ? undefined : body });
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: JSON.parse(text) };
}

const authed = (extra = {}) => ({ 'x-api-key': API_KEY, 'content-type': 'application/json', ...extra });

test('http: the API key is required and compared (401 without, 401 wrong, 202 with either header)', async (t) => {
  const { url, bodies } = await startHttp(t);
  const body = JSON.stringify(bodies[0]);
  const missing = await post(url, { body, headers: { 'content-type': 'application/json' } });
  assert.equal(missing.status, 401);
  assert.match(missing.json.message, /x-api-key or Authorization: Bearer/);
  const wrong = await post(url, { body, headers: authed({ 'x-api-key': 'test-key-0123456780' }) });
  assert.equal(wrong.status, 401);
  assert.equal(wrong.json.message, 'invalid API key');
  const wrongBearer = await post(url, { body, headers: { authorization: 'Bearer nope' } });
  assert.equal(wrongBearer.status, 401);
  const viaHeader = await post(url, { body, headers: authed() });
  assert.equal(viaHeader.status, 202);
  const viaBearer = await post(url, { body, headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' } });
  assert.equal(viaBearer.status, 202);
  assert.deepEqual(viaBearer.json, { accepted: 1, rejected: 0, duplicates: 1, rejectedByReason: {}, errors: [], results: [{ status: 'accepted' }] });
});

test('http: JSON single object and JSON array are ingested', async (t) => {
  const { url, engine, bodies } = await startHttp(t);
  const single = await post(url, { body: JSON.stringify(bodies[0]), headers: authed() });
  assert.equal(single.status, 202);
  assert.deepEqual(single.json, { accepted: 1, rejected: 0, duplicates: 0, rejectedByReason: {}, errors: [], results: [{ status: 'accepted' }] });
  const array = await post(url, { body: JSON.stringify(bodies.slice(1)), headers: authed() });
  assert.equal(array.status, 202);
  assert.equal(array.json.accepted, bodies.length - 1);
  assert.equal(engine.store.stats().observations, bodies.length);
  const observer = engine.store.observers.get(bodies[0].observer);
  assert.equal(observer.region, bodies[0].region);
});

test('http: an NDJSON batch with bad lines keeps the good ones and lists the errors', async (t) => {
  const { url, engine, pipeline, bodies } = await startHttp(t);
  const lines = bodies.slice(0, 10).map((b) => JSON.stringify(b));
  lines.splice(3, 0, '{"raw": "01", oops');
  lines.splice(6, 0, JSON.stringify({ raw: 'nothex!!', observer: 'obsX' }));
  lines.splice(8, 0, '');
  const response = await post(url, { body: `${lines.join('\n')}\n`, headers: authed({ 'content-type': 'application/x-ndjson' }) });
  assert.equal(response.status, 202);
  assert.equal(response.json.accepted, 10);
  assert.equal(response.json.rejected, 2);
  assert.deepEqual(response.json.errors.map((e) => [e.index, e.line, e.reason]), [[3, 4, 'bad_json'], [6, 7, 'not_hex']]);
  assert.match(response.json.errors[0].message, /line 4 is not valid JSON/);
  assert.equal(engine.store.stats().observations, 10);
  assert.deepEqual(pipeline.stats().rejectedByReason, { bad_json: 1, not_hex: 1 });
});

test('http: errors list at most 20 items but count them all', async (t) => {
  const { url } = await startHttp(t);
  const items = Array.from({ length: 30 }, () => ({ observer: 'x' }));
  const response = await post(url, { body: JSON.stringify(items), headers: authed() });
  assert.equal(response.status, 202);
  assert.equal(response.json.rejected, 30);
  assert.equal(response.json.errors.length, 20);
  assert.equal(response.json.errors[19].index, 19);
});

test('http: oversize bodies get 413 naming the limit (declared and streamed), too many items too', async (t) => {
  const { url, bodies } = await startHttp(t, { maxBodyBytes: 2048, maxBatch: 5 });
  const big = JSON.stringify(Array.from({ length: 40 }, () => bodies[0]));
  assert.ok(big.length > 2048);
  const declared = await post(url, { body: big, headers: authed() });
  assert.equal(declared.status, 413);
  assert.match(declared.json.message, /maxBodyBytes 2048/);

  // Chunked upload without content-length: the limit is enforced while reading.
  const port = new URL(url).port;
  const streamed = await new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port, path: '/api/packets', method: 'POST', headers: authed() }, (res) => {
      let text = '';
      res.on('data', (chunk) => { text += chunk; });
      res.on('end', () => resolve({ status: res.statusCode, json: JSON.parse(text) }));
    });
    request.on('error', reject);
    request.write(big.slice(0, 1500));
    request.write(big.slice(1500, 3000));
    request.end(big.slice(3000));
  });
  assert.equal(streamed.status, 413);
  assert.match(streamed.json.message, /maxBodyBytes 2048/);

  const tooMany = await post(url, { body: JSON.stringify(bodies.slice(0, 6).map((b) => ({ raw: b.raw, observer: b.observer }))), headers: authed() });
  assert.equal(tooMany.status, 413);
  assert.match(tooMany.json.message, /maxBatch 5/);
});

test('http: unparseable bodies get 400, other methods 405', async (t) => {
  const { url } = await startHttp(t);
  const broken = await post(url, { body: '{"raw": ', headers: authed() });
  assert.equal(broken.status, 400);
  assert.match(broken.json.message, /not valid JSON/);
  const empty = await post(url, { body: '', headers: authed() });
  assert.equal(empty.status, 400);
  const scalar = await post(url, { body: '42', headers: authed() });
  assert.equal(scalar.status, 400);
  assert.match(scalar.json.message, /object or an array/);
  const get = await post(url, { method: 'GET', headers: authed() });
  assert.equal(get.status, 405);
  assert.equal(get.headers.get('allow'), 'POST');
  assert.equal(get.json.error, 'method_not_allowed');
});

test('http: the handler refuses to start without an API key', () => {
  const pipeline = createPipeline({ engine: createEngine() });
  assert.throws(() => createPacketsHandler({ pipeline }), /apiKey is required/);
  assert.throws(() => createPacketsHandler({ pipeline, apiKey: '' }), /apiKey is required/);
});


// --- parse and shape checks ------------------------------------------------------------------

test('scanDepth counts nesting without recursion, ignoring brackets inside strings', () => {
  assert.equal(scanDepth('[{"a":[1]}]', 3), null);
  assert.deepEqual(scanDepth('[{"a":[1]}]', 2), { depth: 3, offset: 6 });
  assert.equal(scanDepth('["[[[[[[", "\\"[[[["]', 1), null, 'brackets in strings and after escaped quotes do not count');
  const deep = `${'['.repeat(1e6)}${']'.repeat(1e6)}`;
  assert.deepEqual(scanDepth(deep, 16), { depth: 17, offset: 16 }, 'a million levels: no stack overflow, stops early');
});

test('validateItem refuses wrong types and over-long strings with a typed reason naming the field', () => {
  const good = { raw: '1500aa', observer: 'obs-1', region: 'SFO', SNR: -7.5, RSSI: '-100', timestamp: '2024-01-01T00:00:00Z', origin: 'roof' };
  assert.equal(validateItem(good), null);
  assert.equal(validateItem({ ...good, region: null, hash: { ignored: true }, extra: [1, [2]] }), null, 'null fields and unknown fields pass');
  const cases = [
    [42, 'bad_item', /got number/],
    [[good], 'bad_item', /got array/],
    [null, 'bad_item', /got null/],
    [{ ...good, region: { name: 'SFO' } }, 'bad_type', /"region" must be string, got object/],
    [{ ...good, origin: ['a'] }, 'bad_type', /"origin" must be string, got array/],
    [{ ...good, observer: 12 }, 'bad_type', /"observer" must be string/],
    [{ ...good, raw: true }, 'bad_type', /"raw" must be string/],
    [{ ...good, SNR: { v: 1 } }, 'bad_type', /"SNR" must be string or number, got object/],
    [{ ...good, timestamp: [1] }, 'bad_type', /"timestamp"/],
    [{ ...good, region: 'x'.repeat(65) }, 'field_too_long', /"region" has 65 characters, limit 64/],
    [{ ...good, origin: 'x'.repeat(900 * 1024) }, 'field_too_long', /"origin" has 921600 characters, limit 128/],
    [{ ...good, observerId: 'o'.repeat(129) }, 'field_too_long', /"observerId"/],
    [{ ...good, raw: 'ab'.repeat(600) }, 'field_too_long', /"raw" has 1200 characters, limit 1024/],
    [{ ...good, RSSI: '1'.repeat(33) }, 'field_too_long', /"RSSI"/],
  ];
  for (const [item, reason, message] of cases) {
    const error = validateItem(item);
    assert.equal(error && error.reason, reason, JSON.stringify(item).slice(0, 80));
    assert.match(error.message, message);
  }
});

test('parseBatch: a JSON body parses whole or is refused whole; NDJSON lines fail one by one', () => {
  const deep = `${'['.repeat(20000)}${']'.repeat(20000)}`;
  const refused = parseBatch(`[{"raw":"15","observer":"a"},${deep}]`);
  assert.match(refused.error, /nothing ingested: nested deeper than the limit: more than maxDepth 16 levels/);
  assert.equal(refused.items, undefined);
  assert.match(parseBatch('[{"raw":"15"},').error, /not valid JSON/);
  assert.match(parseBatch('\uFEFF{"raw":"15"}').items[0].value.raw, /15/, 'a byte-order mark is skipped');
  assert.equal(parseBatch(`[${'['.repeat(15)}${']'.repeat(15)}]`).items[0].error.reason, 'bad_item', 'within the limit: parsed, then refused per item');

  const ndjson = parseBatch(`{"raw":"15","observer":"a"}\n${deep}\n{"raw":\n{"raw":{}}\n`, { ndjson: true });
  assert.deepEqual(ndjson.items.map((item) => (item.error ? [item.line, item.error.reason] : [item.line, 'ok'])), [[1, 'ok'], [2, 'too_deep'], [3, 'bad_json'], [4, 'bad_type']]);
  assert.ok(ndjson.items[1].raw.length <= 201, 'only an excerpt of a bad line is kept');
});

// --- through the handler, without sockets (fast enough for 100k inputs) ---------------------

/** Call the handler with an in-memory request; resolves { status, json }. */
function postDirect(handler, body, { contentType = 'application/json', apiKey = API_KEY } = {}) {
  return new Promise((resolve, reject) => {
    const buffer = Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
    const req = new EventEmitter();
    req.method = 'POST';
    req.headers = { 'x-api-key': apiKey, 'content-type': contentType, 'content-length': String(buffer.length) };
    req.pause = () => {};
    const res = {
      headersSent: false,
      status: 0,
      writeHead(status) {
        this.status = status;
        this.headersSent = true;
      },
      end(text) {
        try {
          resolve({ status: this.status, json: JSON.parse(text) });
        } catch (err) {
          reject(err);
        }
      },
    };
    handler(req, res);
    // Listeners are attached synchronously by the handler; deliver the body in two chunks.
    const cut = Math.floor(buffer.length / 2);
    req.emit('data', buffer.subarray(0, cut));
    req.emit('data', buffer.subarray(cut));
    req.emit('end');
  });
}

/**
 * A handler over a real engine whose ingest() calls are counted by the report's observer time,
 * which the generator makes unique per good item: `ingested(tag)` says how often it was ingested.
 */
function countingHandler(handlerOptions = {}) {
  const { messages, channels } = simulatorMessages(120, 17);
  const engine = createEngine({ channels });
  const calls = new Map();
  const counting = {
    ingest(report) {
      calls.set(report.observerTime, (calls.get(report.observerTime) || 0) + 1);
      return engine.ingest(report);
    },
  };
  const pipeline = createPipeline({ engine: counting });
  const handler = createPacketsHandler({ pipeline, apiKey: API_KEY, ...handlerOptions });
  // Good bodies: the ones a fresh engine accepts, so "good" means ingestible end to end.
  const probe = createEngine({ channels });
  const pool = messages
    .map((m) => ({ ...m.payload, observer: observerOf(m.topic), region: m.topic.split('/')[1] }))
    .filter((body) => !probe.ingest({ raw: body.raw, observerId: body.observer, region: body.region, time: Date.now() }).error);
  const base = Date.now() - 3600 * 1000;
  let nextTag = 0;
  const goodItem = (random) => {
    nextTag++;
    // A unique observer time in ms (a recent one, so no clock-window check refuses it).
    return { ...pool[Math.floor(random() * pool.length)], timestamp: base + nextTag };
  };
  return { handler, pipeline, engine, pool, goodItem, ingested: (item) => calls.get(item.timestamp) || 0, calls };
}

test('the issue\'s batch [good, 20k-deep array] is 400 and ingests nothing; a retry of the good part is ingested once', async () => {
  const { handler, pipeline, goodItem, ingested } = countingHandler();
  const random = seededRandom(1);
  const good = goodItem(random);
  const deep = `${'['.repeat(20000)}${']'.repeat(20000)}`;
  const refused = await postDirect(handler, `[${JSON.stringify(good)},${deep}]`);
  assert.equal(refused.status, 400);
  assert.equal(refused.json.error, 'bad_request');
  assert.match(refused.json.message, /nothing ingested.*maxDepth 16/);
  await pipeline.drain();
  assert.equal(ingested(good), 0);
  assert.equal(pipeline.stats().submitted, 0);
  const retried = await postDirect(handler, JSON.stringify([good]));
  assert.equal(retried.status, 202);
  assert.equal(retried.json.accepted, 1);
  assert.equal(ingested(good), 1);
});

test('a mixed batch: per-item results in body order, typed reasons, each good item ingested exactly once', async () => {
  const { handler, pipeline, goodItem, ingested } = countingHandler();
  const random = seededRandom(2);
  const goods = [goodItem(random), goodItem(random), goodItem(random)];
  const batch = [
    goods[0],
    { ...goodItem(random), region: { evil: true } },
    'just a string',
    goods[1],
    { ...goodItem(random), origin: 'o'.repeat(5000) },
    { ...goodItem(random), raw: 'zz' }, // right shape, refused by the decoder
    goods[2],
  ];
  const response = await postDirect(handler, JSON.stringify(batch));
  assert.equal(response.status, 202);
  assert.deepEqual(response.json.results.map((r) => r.reason || r.status), ['accepted', 'bad_type', 'bad_item', 'accepted', 'field_too_long', 'not_hex', 'accepted']);
  assert.equal(response.json.accepted, 3);
  assert.equal(response.json.rejected, 4);
  assert.deepEqual(response.json.rejectedByReason, { bad_type: 1, bad_item: 1, field_too_long: 1, not_hex: 1 });
  assert.deepEqual(response.json.errors.map((e) => e.index), [1, 2, 4, 5]);
  for (const good of goods) assert.equal(ingested(good), 1);
  assert.equal(ingested(batch[1]) + ingested(batch[4]), 0, 'shape-refused items never reach the engine');
  const stats = pipeline.stats();
  assert.deepEqual(stats.rejectedByReason, { bad_type: 1, bad_item: 1, field_too_long: 1, not_hex: 1 });
  assert.ok(stats.lastDropped.every((drop) => drop.raw === null || drop.raw.length <= 201), 'the drop ring keeps excerpts, not 5,000-character strings');
});

// --- hostile generator ------------------------------------------------------------------------

const PER_CLASS = Number(process.env.MESHPULSE_HOSTILE_PER_CLASS) || 300;

const randomInt = (random, min, max) => min + Math.floor(random() * (max - min + 1));
const pick = (random, list) => list[Math.floor(random() * list.length)];

/** A JSON value that is nested `depth` levels deep (arrays, objects, or both). */
function nested(random, depth) {
  const style = randomInt(random, 0, 2);
  if (style === 0) return `${'['.repeat(depth)}${']'.repeat(depth)}`;
  if (style === 1) return `${'{"a":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}`;
  let open = '';
  let close = '';
  for (let i = 0; i < depth; i++) {
    if (random() < 0.5) { open += '['; close = `]${close}`; } else { open += '{"k":'; close = `}${close}`; }
  }
  // innermost: an object needs a value after "k":, an array can be empty
  return open.endsWith(':') ? `${open}0${close}` : `${open}${close}`;
}

const WRONG_VALUES = [{}, { a: 1 }, [], ['x'], true, false];
const STRING_FIELDS = ['raw', 'observer', 'observerId', 'region', 'origin', 'direction'];
const LIMITS = BATCH_DEFAULTS.maxFieldChars;
const limitOf = (field) => LIMITS[{ observerId: 'observer', raw: 'raw', observer: 'observer', region: 'region', origin: 'origin', direction: 'direction' }[field]];

/** One bad item and the reason it must be refused with. */
function badItem(random, goodItem) {
  const kind = randomInt(random, 0, 3);
  if (kind === 0) return { item: pick(random, [0, -1, 'text', null, true, [1, 2], [{}]]), reason: 'bad_item' };
  if (kind === 1) {
    const field = pick(random, [...STRING_FIELDS, 'SNR', 'RSSI', 'score', 'timestamp']);
    return { item: { ...goodItem(random), [field]: pick(random, WRONG_VALUES) }, reason: 'bad_type' };
  }
  const field = pick(random, STRING_FIELDS);
  const length = limitOf(field) + 1 + (random() < 0.1 ? randomInt(random, 0, 60000) : randomInt(random, 0, 300));
  return { item: { ...goodItem(random), [field]: 'x'.repeat(length) }, reason: 'field_too_long' };
}

/** Per class: hostile inputs sent, requests made, answers by status, 5xx answers (crashes). */
function hostileStats() {
  return { inputs: 0, requests: 0, statuses: {}, crashes: 0 };
}

function record(stats, response, inputs = 1) {
  stats.inputs += inputs;
  stats.requests++;
  stats.statuses[response.status] = (stats.statuses[response.status] || 0) + 1;
  if (response.status >= 500) stats.crashes++;
}

test(`hostile bodies (${PER_CLASS} per class): random bytes, deep nesting, huge strings, wrong types, mixed batches`, async (t) => {
  const { handler, pipeline, goodItem, ingested, calls } = countingHandler({ maxBatch: 5000 });
  const random = seededRandom(99);
  const summary = {};
  const expectedReasons = {};
  const goods = [];
  const expectReason = (reason) => { expectedReasons[reason] = (expectedReasons[reason] || 0) + 1; };

  // 1. Random bytes: 400 (or a 202 for the rare body that happens to parse), never a 5xx.
  summary.randomBytes = hostileStats();
  for (let i = 0; i < PER_CLASS; i++) {
    const length = randomInt(random, 1, 600);
    const bytes = Buffer.alloc(length);
    for (let b = 0; b < length; b++) bytes[b] = Math.floor(random() * 256);
    if (random() < 0.3) bytes[0] = pick(random, [0x5b, 0x7b, 0x22]); // start like JSON to get further in
    const ndjson = random() < 0.2;
    const response = await postDirect(handler, bytes, { contentType: ndjson ? 'application/x-ndjson' : 'application/json' });
    record(summary.randomBytes, response);
    assert.ok(response.status === 400 || response.status === 202, `random bytes gave ${response.status}`);
    if (response.status === 202) {
      assert.equal(response.json.accepted, 0);
      for (const [reason, count] of Object.entries(response.json.rejectedByReason)) expectedReasons[reason] = (expectedReasons[reason] || 0) + count;
    }
  }

  // 2. Deep nesting next to a good item: the whole body refused, the good item not ingested.
  summary.deepNesting = hostileStats();
  for (let i = 0; i < PER_CLASS; i++) {
    const good = goodItem(random);
    const depth = random() < 0.05 ? randomInt(random, 1000, 30000) : randomInt(random, BATCH_DEFAULTS.maxDepth, 200);
    const where = randomInt(random, 0, 2);
    let body;
    if (where === 0) body = `[${JSON.stringify(good)},${nested(random, depth)}]`;
    else if (where === 1) body = `[${JSON.stringify({ ...good, extra: 'x' }).replace('"x"', nested(random, depth))}]`;
    else body = `[${nested(random, depth)},${JSON.stringify(good)}]`;
    const response = await postDirect(handler, body);
    record(summary.deepNesting, response);
    assert.equal(response.status, 400, `depth ${depth} at ${where}`);
    assert.match(response.json.message, /nothing ingested/);
    assert.equal(ingested(good), 0);
  }

  // 3. Huge strings and 4. wrong types: per-item refusals, good neighbours ingested.
  for (const [name, wantReason] of [['hugeStrings', 'field_too_long'], ['wrongTypes', null]]) {
    summary[name] = hostileStats();
    let made = 0;
    while (made < PER_CLASS) {
      const batch = [];
      const expected = [];
      const size = Math.min(PER_CLASS - made, randomInt(random, 1, 40));
      for (let k = 0; k < size; k++) {
        let bad;
        do bad = badItem(random, goodItem); while (wantReason ? bad.reason !== wantReason : bad.reason === 'field_too_long');
        batch.push(bad.item);
        expected.push(bad.reason);
        if (random() < 0.3) {
          const good = goodItem(random);
          goods.push(good);
          batch.push(good);
          expected.push('accepted');
        }
      }
      made += size;
      const body = JSON.stringify(batch);
      const response = await postDirect(handler, body);
      record(summary[name], response, size);
      if (Buffer.byteLength(body) > 1024 * 1024) {
        // Over maxBodyBytes: refused whole, nothing of it ingested, the good ones are re-sent alone.
        assert.equal(response.status, 413);
        const goodOnes = batch.filter((_, index) => expected[index] === 'accepted');
        for (const good of goodOnes) assert.equal(ingested(good), 0);
        if (goodOnes.length) assert.equal((await postDirect(handler, JSON.stringify(goodOnes))).status, 202);
        continue;
      }
      assert.equal(response.status, 202);
      assert.deepEqual(response.json.results.map((r) => r.reason || r.status), expected);
      for (const reason of expected) if (reason !== 'accepted') expectReason(reason);
    }
  }

  // 5. Mixed NDJSON streams: garbage lines, deep lines, bad items and good ones, line by line.
  summary.mixedNdjson = hostileStats();
  let lines = 0; // hostile lines so far
  while (lines < PER_CLASS) {
    const out = [];
    const expected = [];
    const size = Math.min(PER_CLASS - lines, randomInt(random, 1, 50));
    for (let k = 0; k < size; k++) {
      const roll = random();
      if (roll < 0.3) {
        const good = goodItem(random);
        goods.push(good);
        out.push(JSON.stringify(good));
        expected.push('accepted');
      } else if (roll < 0.45) {
        out.push(`{"raw": "${'a'.repeat(randomInt(random, 0, 20))}`);
        expected.push('bad_json');
      } else if (roll < 0.6) {
        out.push(nested(random, randomInt(random, BATCH_DEFAULTS.maxDepth + 1, 3000)));
        expected.push('too_deep');
      } else {
        const bad = badItem(random, goodItem);
        out.push(JSON.stringify(bad.item));
        expected.push(bad.reason);
      }
    }
    const hostile = expected.filter((reason) => reason !== 'accepted').length;
    lines += hostile;
    const response = await postDirect(handler, `${out.join('\n')}\n`, { contentType: 'application/x-ndjson' });
    record(summary.mixedNdjson, response, hostile);
    assert.equal(response.status, 202);
    assert.deepEqual(response.json.results.map((r) => r.reason || r.status), expected);
    for (const reason of expected) if (reason !== 'accepted') expectReason(reason);
  }

  await pipeline.drain();
  for (const good of goods) assert.equal(ingested(good), 1, 'every good item ingested exactly once');
  for (const [tag, count] of calls) assert.equal(count, 1, `observer time ${tag} ingested ${count} times`);
  const counted = pipeline.stats().rejectedByReason;
  assert.deepEqual({ ...counted }, expectedReasons, 'every refused item counted with its reason');
  const crashes = Object.values(summary).reduce((sum, s) => sum + s.crashes, 0);
  assert.equal(crashes, 0);
  const report = { perClass: PER_CLASS, goodItemsIngestedOnce: goods.length, rejectedByReason: counted, classes: summary };
  t.diagnostic(JSON.stringify(report));
  if (process.env.MESHPULSE_HOSTILE_PER_CLASS) console.log(JSON.stringify(report, null, 2));
});

test('http: while the server is stopping (pipeline closed) a batch gets 503 with Retry-After, nothing counted as rejected', async (t) => {
  const { url, pipeline, bodies, engine } = await startHttp(t);
  const before = await post(url, { body: JSON.stringify(bodies.slice(0, 5)), headers: authed() });
  assert.equal(before.status, 202);
  await pipeline.close();
  assert.equal(pipeline.closed, true);
  const during = await post(url, { body: JSON.stringify(bodies.slice(5, 10)), headers: authed() });
  assert.equal(during.status, 503);
  assert.equal(during.headers.get('retry-after'), '5');
  assert.equal(during.json.error, 'stopping');
  assert.equal(pipeline.stats().rejected, 0, 'a report sent while stopping is not bad input');
  assert.equal(engine.store.stats().observations, 5);
  // The key is still checked first: a stopping server tells nothing to a stranger.
  assert.equal((await post(url, { body: '[]', headers: { 'content-type': 'application/json' } })).status, 401);
});
