'use strict';
/**
 * The REST contract: the OpenAPI document is well formed, names every view with its params
 * typed from the params spec, and POST /api/decode answers what the document says, with the
 * ingest limits, storing nothing.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('http');
const { buildOpenApiDocument } = require('../../imports/core/openapi');
const { VIEW_DEFINITIONS } = require('../../imports/core/analytics');
const { withRegionParam } = require('../../imports/core/analytics/region-scope');
const { BATCH_DEFAULTS, BATCH_ERRORS } = require('../../imports/ingest/http-batch');
const { createDecodeHandler } = require('../../imports/api/rest/decode-handler');
const { createKeyring, decodePacket } = require('../../imports/core/decode');
const { simulatedReports } = require('../helpers/mesh');

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const SCHEMA_TYPES = ['integer', 'number', 'string', 'boolean', 'object', 'array'];

function build() {
  return buildOpenApiDocument({ limits: { maxBodyBytes: 4096, maxBatch: 3 }, batch: { ...BATCH_DEFAULTS, errors: BATCH_ERRORS }, version: '9.9.9' });
}

/** Every $ref in the document, with where it is. */
function collectRefs(value, where = '$', out = []) {
  if (Array.isArray(value)) value.forEach((item, i) => collectRefs(item, `${where}[${i}]`, out));
  else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref') out.push({ ref: item, where });
      else collectRefs(item, `${where}.${key}`, out);
    }
  }
  return out;
}

/** Structural checks of an OpenAPI 3.0 schema object (types known, ranges sane, enums non-empty). */
function checkSchema(schema, where) {
  if (schema.$ref) return;
  for (const key of ['oneOf', 'anyOf', 'allOf']) if (schema[key]) schema[key].forEach((part, i) => checkSchema(part, `${where}.${key}[${i}]`));
  if (schema.type !== undefined) assert.ok(SCHEMA_TYPES.includes(schema.type), `${where}: type ${schema.type}`);
  if (schema.enum) assert.ok(Array.isArray(schema.enum) && schema.enum.length > 0, `${where}: enum`);
  if (schema.minimum !== undefined && schema.maximum !== undefined) assert.ok(schema.minimum <= schema.maximum, `${where}: range`);
  if (schema.pattern !== undefined) assert.doesNotThrow(() => new RegExp(schema.pattern), `${where}: pattern`);
  if (schema.items) checkSchema(schema.items, `${where}.items`);
  if (schema.properties) for (const [name, property] of Object.entries(schema.properties)) checkSchema(property, `${where}.properties.${name}`);
  if (schema.required) for (const name of schema.required) assert.ok(schema.properties && schema.properties[name], `${where}: required ${name} is a property`);
}

test('the document is OpenAPI 3 with info, paths, operations with responses, and every $ref resolving', () => {
  const doc = build();
  assert.match(doc.openapi, /^3\.0\.\d$/);
  assert.equal(doc.info.title, 'MeshPulse');
  assert.equal(doc.info.version, '9.9.9');
  assert.ok(Object.keys(doc.paths).length > VIEW_DEFINITIONS.length);
  const operationIds = new Set();
  for (const [path, item] of Object.entries(doc.paths)) {
    assert.ok(path.startsWith('/api/'), path);
    for (const [method, operation] of Object.entries(item)) {
      assert.ok(METHODS.includes(method), `${path}: ${method}`);
      assert.ok(operation.operationId && !operationIds.has(operation.operationId), `${path} ${method}: unique operationId`);
      operationIds.add(operation.operationId);
      assert.ok(Object.keys(operation.responses).length > 0, `${path} ${method}: responses`);
      for (const [status, response] of Object.entries(operation.responses)) {
        assert.match(status, /^[1-5]\d\d$/);
        assert.equal(typeof response.description, 'string');
        for (const media of Object.values(response.content || {})) checkSchema(media.schema, `${path} ${method} ${status}`);
      }
      const names = new Set();
      for (const parameter of operation.parameters || []) {
        assert.ok(['query', 'path', 'header', 'cookie'].includes(parameter.in));
        assert.ok(!names.has(parameter.name), `${path}: duplicate parameter ${parameter.name}`);
        names.add(parameter.name);
        checkSchema(parameter.schema, `${path} ${parameter.name}`);
      }
      for (const requirement of operation.security || []) for (const scheme of Object.keys(requirement)) assert.ok(doc.components.securitySchemes[scheme], scheme);
    }
  }
  for (const [name, schema] of Object.entries(doc.components.schemas)) checkSchema(schema, `components.schemas.${name}`);
  for (const { ref, where } of collectRefs(doc)) {
    const match = /^#\/components\/schemas\/(\w+)$/.exec(ref);
    assert.ok(match && doc.components.schemas[match[1]], `${where}: ${ref} resolves`);
  }
  assert.doesNotThrow(() => JSON.parse(JSON.stringify(doc)), 'plain JSON');
});

test('every view has its GET path with each param typed from its params spec', () => {
  const doc = build();
  const expectedType = { int: 'integer', number: 'number', string: 'string', bool: 'boolean' };
  for (const definition of VIEW_DEFINITIONS) {
    const operation = doc.paths[`/api/views/${definition.name}`] && doc.paths[`/api/views/${definition.name}`].get;
    assert.ok(operation, `${definition.name} is in the document`);
    const byName = new Map(operation.parameters.map((parameter) => [parameter.name, parameter]));
    // Every view takes `region` (imports/core/analytics/region-scope.js).
    const spec = withRegionParam(definition.paramsSpec);
    assert.deepEqual(Array.from(byName.keys()).sort(), Object.keys(spec).sort(), `${definition.name}: params`);
    assert.ok(byName.has('region'), `${definition.name}: region`);
    for (const [name, rule] of Object.entries(spec)) {
      const { schema, required } = byName.get(name);
      assert.equal(required, Boolean(rule.required));
      if (rule.type === 'enum') assert.deepEqual(schema.enum, rule.values, `${definition.name}.${name}`);
      else assert.equal(schema.type, expectedType[rule.type], `${definition.name}.${name}`);
      if (rule.min !== undefined) assert.equal(schema.minimum, rule.min);
      if (rule.max !== undefined) assert.equal(schema.maximum, rule.max);
      if (rule.type === 'string') assert.equal(schema.maxLength, rule.maxLength || 128);
      if (rule.pattern) assert.equal(schema.pattern, rule.pattern.source);
      if (rule.default !== undefined && rule.default !== null) assert.equal(schema.default, rule.default);
      // A default the spec documents is one the view accepts.
      const requiredParams = Object.keys(definition.paramsSpec).filter((key) => definition.paramsSpec[key].required);
      if (schema.default !== undefined && requiredParams.length === 0) assert.doesNotThrow(() => definition.normalizeParams({ [name]: schema.default }));
    }
  }
  const filter = doc.paths['/api/views/packets'].get.parameters.find((parameter) => parameter.name === 'filter');
  assert.equal(filter.schema.maxLength, 512);
  assert.match(filter.description, /type == GRP_TXT/);
  for (const name of ['neighbours', 'prefixes', 'traces']) assert.ok(doc.paths[`/api/views/${name}`], name);
  // Every time-series view explains its bucket param ('auto' and its 180-bucket rule).
  for (const name of ['rf', 'hashSizes', 'node', 'channelAnalytics']) {
    const bucket = doc.paths[`/api/views/${name}`].get.parameters.find((parameter) => parameter.name === 'bucket');
    assert.match(bucket.description, /'auto' \(default\).*at most 180 buckets/, name);
  }
});

test('ingest, decode, health and the spec itself are described with the configured limits', () => {
  const doc = build();
  const ingest = doc.paths['/api/packets'].post;
  assert.deepEqual(Object.keys(ingest.responses).sort(), ['202', '400', '401', '405', '413', '503']);
  assert.ok(ingest.security.length === 2);
  assert.match(ingest.description, /4096 bytes/);
  assert.match(ingest.description, /more than 3 reports/);
  assert.ok(ingest.requestBody.content['application/json'] && ingest.requestBody.content['application/x-ndjson']);
  const decode = doc.paths['/api/decode'].post;
  assert.deepEqual(Object.keys(decode.responses).sort(), ['200', '400', '405', '413']);
  assert.equal(decode.security, undefined, 'decoding needs no key');
  assert.equal(doc.components.schemas.Report.properties.raw.maxLength, BATCH_DEFAULTS.maxFieldChars.raw);
  assert.ok(doc.components.schemas.ItemError.properties.reason.enum.includes('field_too_long'));
  assert.ok(doc.paths['/api/spec'].get && doc.paths['/api/health'].get && doc.paths['/api/views'].get);
});

// ---- POST /api/decode ------------------------------------------------------------------------

async function withServer(handler, run) {
  const server = http.createServer(handler);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await run(`http://127.0.0.1:${server.address().port}`);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

async function post(base, body, headers = { 'content-type': 'application/json' }, method = 'POST') {
  const response = await fetch(`${base}/`, { method, headers, body: method === 'GET' ? undefined : body });
  return { status: response.status, body: await response.json() };
}

/** Does `value` fit the document's schema (the subset the document uses)? */
function fits(doc, schema, value, where = '$') {
  if (schema.$ref) return fits(doc, doc.components.schemas[schema.$ref.split('/').pop()], value, where);
  if (schema.oneOf) return assert.ok(schema.oneOf.some((part) => { try { fits(doc, part, value, where); return true; } catch { return false; } }), `${where}: oneOf`);
  if (value === null) return assert.ok(schema.nullable, `${where}: null`);
  const kinds = { integer: Number.isInteger(value), number: typeof value === 'number', string: typeof value === 'string', boolean: typeof value === 'boolean', array: Array.isArray(value), object: value !== null && typeof value === 'object' && !Array.isArray(value) };
  if (schema.type) assert.ok(kinds[schema.type], `${where}: ${JSON.stringify(value)} is not ${schema.type}`);
  if (schema.enum) assert.ok(schema.enum.includes(value), `${where}: ${value} not in enum`);
  for (const name of schema.required || []) assert.ok(value[name] !== undefined, `${where}: ${name} required`);
  if (schema.properties && kinds.object) for (const [name, property] of Object.entries(schema.properties)) if (value[name] !== undefined) fits(doc, property, value[name], `${where}.${name}`);
  if (schema.items && Array.isArray(value)) value.forEach((item, i) => fits(doc, schema.items, item, `${where}[${i}]`));
  return true;
}

test('POST /api/decode decodes with the ingest checks, in body order, as the document describes', async () => {
  const doc = build();
  const { reports, channels } = simulatedReports({ seed: 7, count: 400 });
  const keyring = createKeyring(channels);
  const advert = reports.find((report) => { const decoded = decodePacket(report.raw.toLowerCase()); return decoded.packet && decoded.packet.advert; });
  assert.ok(advert, 'the simulator sends adverts');
  const good = reports.slice(0, 2).map((report) => ({ raw: report.raw, observer: report.observerId, SNR: report.snr }));
  const handler = createDecodeHandler({ keyring, maxBodyBytes: 64 * 1024, maxBatch: 5 });
  await withServer(handler, async (base) => {
    const body = [good[0], { raw: 'zz' }, { raw: good[1].raw, SNR: 99 }, 'text', { raw: good[1].raw }];
    const answer = await post(base, JSON.stringify(body));
    assert.equal(answer.status, 200);
    fits(doc, doc.paths['/api/decode'].post.responses['200'].content['application/json'].schema, answer.body);
    assert.deepEqual(answer.body.results.map((item) => item.status), ['decoded', 'rejected', 'rejected', 'rejected', 'decoded']);
    assert.deepEqual(answer.body.results.map((item) => item.reason || null), [null, 'not_hex', 'bad_snr', 'bad_item', null]);
    assert.equal(answer.body.decoded, 2);
    assert.deepEqual(answer.body.rejectedByReason, { not_hex: 1, bad_snr: 1, bad_item: 1 });
    const first = answer.body.results[0];
    assert.equal(first.packet.hash.length, 16);
    assert.ok(first.fields.length > 0 && first.fields[0].start === 0);
    for (const field of ['seq', 'time', 'raw', 'observations']) assert.equal(first.packet[field], undefined, `${field} is store bookkeeping`);

    if (advert) {
      const one = await post(base, JSON.stringify({ raw: advert.raw }));
      assert.equal(one.body.results[0].status, 'decoded');
      assert.equal(one.body.results[0].packet.advert.signatureValid, true);
      // One flipped signature byte (after the 32-byte key and 4-byte timestamp): refused like ingest refuses it.
      const raw = advert.raw.toLowerCase();
      const at = 2 * (decodePacket(raw).packet.payloadOffset + 36);
      const forged = raw.slice(0, at) + (parseInt(raw.slice(at, at + 2), 16) ^ 1).toString(16).padStart(2, '0') + raw.slice(at + 2);
      const refused = await post(base, JSON.stringify({ raw: forged }));
      assert.equal(refused.body.results[0].reason, 'bad_signature');
    }

    const ndjson = await post(base, `${JSON.stringify(good[0])}\n{oops\n`, { 'content-type': 'application/x-ndjson' });
    assert.deepEqual(ndjson.body.results.map((item) => [item.line, item.status, item.reason || null]), [[1, 'decoded', null], [2, 'rejected', 'bad_json']]);

    assert.equal((await post(base, '')).status, 400);
    assert.equal((await post(base, '{"raw":')).status, 400);
    assert.equal((await post(base, '[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]')).status, 400, 'deeper than maxDepth');
    const batch = await post(base, JSON.stringify(new Array(6).fill(good[0])));
    assert.equal(batch.status, 413);
    assert.equal(batch.body.error, 'batch_too_large');
    assert.equal((await post(base, JSON.stringify({ raw: 'ab'.repeat(40000) }))).status, 413);
    const long = await post(base, JSON.stringify({ raw: 'ab'.repeat(600) }));
    assert.equal(long.body.results[0].reason, 'field_too_long');
    const get = await post(base, null, {}, 'GET');
    assert.equal(get.status, 405);
  });
});
