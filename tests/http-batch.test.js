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

