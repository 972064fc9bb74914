'use strict';
/**
 * The REST contract as an OpenAPI 3 document, built from the code it describes: one
 * `GET /api/views/<name>` path per view with its query parameters typed from the view's params
 * spec (imports/core/analytics/view.js), `POST /api/packets` (imports/ingest/http.js),
 * `POST /api/decode` (decode without storing, imports/api/rest/decode-handler.js), the health
 * endpoint and the document itself (`GET /api/spec`). Pure: no Meteor, no I/O, so it is tested
 * under Node and served as is.
 */
const { VIEW_DEFINITIONS } = require('./analytics');
const { describeFilterGrammar } = require('./packet-filter');
const { INPUT_ERRORS } = require('./input-limits');
const { DECODE_ERRORS, PAYLOAD_TYPES, ROUTE_TYPES } = require('./decode');
const { MESSAGE_ERRORS } = require('./observer-message');
const { withRegionParam } = require('./analytics/region-scope');
const { AUTO_MAX_POINTS } = require('./analytics/time-buckets');

const OPENAPI_VERSION = '3.0.3';
// Ingest limits and reasons live in imports/ingest (a floor above core): the route glue passes
// them in (`batch`); these are only the fallbacks for a document built without them.
const BATCH_FALLBACK = { maxDepth: 16, maxFieldChars: { raw: 1024, observer: 128, region: 64, origin: 128, direction: 16, timestamp: 64, number: 32 }, errors: {} };
const PIPELINE_REASONS = ['queue_full', 'ingest_error', 'pipeline_closed'];
const NDJSON = 'application/x-ndjson';

/** Longer descriptions for parameters whose spec alone does not say enough. */
// The time-series views share one `bucket` param (time-buckets.js).
const BUCKET_NOTE = `time bucket size of the series: 'auto' (default) picks the finest of minute, 5min, 15min and hour with at most ${AUTO_MAX_POINTS} buckets covering the data; the answer's \`bucket\` says which size it used and since when it is exact`;

const PARAM_NOTES = {
  'packets.filter': filterNote(),
  'packets.type': `payload type number (${Object.entries(PAYLOAD_TYPES).map(([id, name]) => `${id} ${name}`).join(', ')})`,
  'packets.route': `route type number (${ROUTE_TYPES.map((name, id) => `${id} ${name}`).join(', ')})`,
  'packets.text': 'case-insensitive text in an advert name, a message sender or text, or a hash prefix',
  'packets.node': 'a public key (its adverts and 1-, 2-, 3-byte hop prefixes) or one hop prefix',
  'neighbours.node': 'a public key (its own links and those of its hop prefixes) or one hop prefix',
  'nodes.keys': 'only these nodes: public keys or key prefixes (2-64 hex digits each, case-insensitive), comma-separated; at most 200',
  'prefixes.prefix': 'a candidate prefix or public key (whole bytes) to look up',
  'traces.node': 'only traces whose route passes a hop matching this key or prefix',
  'rf.bucket': BUCKET_NOTE,
  'hashSizes.bucket': BUCKET_NOTE,
  'node.bucket': BUCKET_NOTE,
  'channelAnalytics.bucket': BUCKET_NOTE,
};

function filterNote() {
  const grammar = describeFilterGrammar();
  return [
    'Wireshark-style filter expression, e.g. `type == GRP_TXT && hops >= 3 && snr < -5 && observer ~ "Peak"`.',
    `Fields: ${grammar.fields.map((field) => `${field.name} (${field.doc})`).join('; ')}.`,
    `Operators: ${grammar.operators.join(' ')}; combine with ${grammar.combinators.join(' ')}.`,
    `At most ${grammar.limits.maxLength} characters and ${grammar.limits.maxDepth} levels of nesting; a filter that does not parse answers 400 with its position.`,
  ].join(' ');
}

/** A JSON Schema (OpenAPI 3.0 dialect) for one params-spec rule. */
function schemaForRule(rule) {
  const schema = {};
  switch (rule.type) {
    case 'int':
    case 'number':
      schema.type = rule.type === 'int' ? 'integer' : 'number';
      if (rule.min !== undefined) schema.minimum = rule.min;
      if (rule.max !== undefined) schema.maximum = rule.max;
      break;
    case 'string':
      schema.type = 'string';
      schema.maxLength = rule.maxLength || 128;
      if (rule.pattern) schema.pattern = rule.pattern.source;
      break;
    case 'enum':
      schema.type = rule.values.every((value) => typeof value === 'number') ? 'number' : 'string';
      schema.enum = rule.values.slice();
      break;
    case 'bool':
      schema.type = 'boolean';
      break;
    default:
      throw new Error(`openapi: unknown param type ${rule.type}`);
  }
  if (rule.default !== undefined && rule.default !== null) schema.default = rule.default;
  return schema;
}

function describeRule(rule) {
  const parts = [];
  if (rule.lowerCase) parts.push('case-insensitive (lower-cased)');
  if (rule.default === undefined || rule.default === null) parts.push('optional');
  return parts.join('; ');
}

// Every view takes `region` (analytics/region-scope.js); a view with its own rule keeps it.
const REGION_NOTE = 'observer region (the <region> of meshcore/<region>/<observer>/packets): the view computed over that region\'s observations only; a region nobody reports under gives an empty result';

function viewParameters(definition) {
  return Object.entries(withRegionParam(definition.paramsSpec)).map(([name, rule]) => {
    const note = PARAM_NOTES[`${definition.name}.${name}`] || (name === 'region' ? REGION_NOTE : undefined);
    const generic = describeRule(rule);
    const parameter = { name, in: 'query', required: Boolean(rule.required), schema: schemaForRule(rule) };
    const description = [note, generic].filter(Boolean).join('. ');
    if (description) parameter.description = description;
    return parameter;
  });
}

const ref = (name) => ({ $ref: `#/components/schemas/${name}` });
const jsonContent = (schema) => ({ 'application/json': { schema } });
const errorResponse = (description) => ({ description, content: jsonContent(ref('Error')) });

function viewPath(definition) {
  return {
    get: {
      operationId: `view_${definition.name}`,
      tags: ['views'],
      summary: definition.description || definition.name,
      description: `The \`${definition.name}\` view's snapshot: the same document its DDP publication \`view.${definition.name}\` and method send. Unknown parameters answer 400.`,
      parameters: viewParameters(definition),
      responses: {
        200: { description: 'the snapshot', content: jsonContent(ref('ViewSnapshot')) },
        400: errorResponse('a parameter is missing, unknown, of the wrong type or out of range (`bad_params`)'),
        405: errorResponse('not GET'),
        500: errorResponse('the view could not compute its snapshot (`snapshot_failed`)'),
        503: errorResponse('with `region`: too many region-scoped instances were built in the last minute (`region_scope_busy`); retry after the `Retry-After` seconds'),
      },
    },
  };
}

/** Request bodies of POST /api/packets and /api/decode: the same shapes and limits. */
function reportBody(purpose, batch) {
  return {
    required: true,
    description: `${purpose} One report object or a JSON array of them; or NDJSON (\`${NDJSON}\`), one report per line. Nesting deeper than ${batch.maxDepth} levels is refused unparsed.`,
    content: {
      'application/json': { schema: { oneOf: [ref('Report'), { type: 'array', items: ref('Report') }] } },
      [NDJSON]: { schema: { type: 'string', description: 'one JSON report object per line' } },
    },
  };
}

function components(limits, batch) {
  const fieldChars = batch.maxFieldChars;
  const numberField = { oneOf: [{ type: 'number' }, { type: 'string', maxLength: fieldChars.number }] };
  const reasons = [...Object.keys(batch.errors), ...Object.keys(MESSAGE_ERRORS), ...Object.keys(INPUT_ERRORS), ...Object.keys(DECODE_ERRORS), 'bad_signature', ...PIPELINE_REASONS];
  return {
    securitySchemes: {
      apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
      bearer: { type: 'http', scheme: 'bearer' },
    },
    schemas: {
      Error: {
        type: 'object',
        required: ['error', 'message'],
        properties: { error: { type: 'string', description: 'machine-readable kind' }, message: { type: 'string' } },
      },
      ViewSnapshot: {
        type: 'object',
        description: "A view's snapshot; its fields are the view's own (see README, Views).",
        properties: {
          generatedAt: { type: 'number', description: 'when the snapshot was made (ms)' },
          newestPacketAt: { type: 'number', nullable: true, description: 'time of the newest stored packet (ms)' },
        },
        additionalProperties: true,
      },
      Report: {
        type: 'object',
        description: 'One observer report; other fields are ignored.',
        required: ['raw'],
        properties: {
          raw: { type: 'string', maxLength: fieldChars.raw, description: 'the packet as hex (also accepted as raw_hex or hex)' },
          observer: { type: 'string', maxLength: fieldChars.observer, description: 'observer id (also observerId); required to ingest, optional to decode' },
          region: { type: 'string', maxLength: fieldChars.region },
          origin: { type: 'string', maxLength: fieldChars.origin, description: 'observer name' },
          direction: { type: 'string', maxLength: fieldChars.direction },
          timestamp: { oneOf: [{ type: 'string', maxLength: fieldChars.timestamp }, { type: 'number' }], description: 'observer time: ISO date or epoch seconds/ms' },
          SNR: numberField,
          RSSI: numberField,
          score: numberField,
        },
      },
      ItemError: {
        type: 'object',
        required: ['index', 'reason', 'message'],
        properties: { index: { type: 'integer' }, line: { type: 'integer', description: 'NDJSON line' }, reason: { type: 'string', enum: reasons }, message: { type: 'string' } },
      },
      IngestResult: {
        type: 'object',
        required: ['accepted', 'rejected', 'duplicates', 'rejectedByReason', 'errors', 'results'],
        properties: {
          accepted: { type: 'integer' },
          rejected: { type: 'integer' },
          duplicates: { type: 'integer' },
          rejectedByReason: { type: 'object', additionalProperties: { type: 'integer' } },
          errors: { type: 'array', items: ref('ItemError'), description: 'the first 20 rejections' },
          results: { type: 'array', items: { type: 'object', required: ['status'], properties: { status: { type: 'string', enum: ['accepted', 'rejected'] }, reason: { type: 'string' } } } },
        },
      },
      DecodedPacket: {
        type: 'object',
        description: 'The decoded packet (imports/core/decode.js): header, path, and per type advert, message, trace, src/dest hashes.',
        required: ['hash', 'routeType', 'payloadType', 'hashSize', 'hopCount', 'path', 'size'],
        properties: {
          hash: { type: 'string' },
          routeType: { type: 'integer', minimum: 0, maximum: 3 },
          routeName: { type: 'string', enum: ROUTE_TYPES.slice() },
          payloadType: { type: 'integer', minimum: 0, maximum: 15 },
          payloadName: { type: 'string', nullable: true },
          payloadVersion: { type: 'integer' },
          hashSize: { type: 'integer', minimum: 1, maximum: 3 },
          hopCount: { type: 'integer' },
          path: { type: 'array', items: { type: 'string' } },
          size: { type: 'integer' },
          transportCodes: { type: 'array', nullable: true, items: { type: 'integer' } },
          srcHash: { type: 'string', nullable: true },
          destHash: { type: 'string', nullable: true },
          channelHash: { type: 'string', nullable: true },
          advert: { type: 'object', nullable: true, additionalProperties: true },
          message: { type: 'object', nullable: true, additionalProperties: true },
          trace: { type: 'object', nullable: true, additionalProperties: true },
          ackChecksum: { type: 'string', nullable: true },
          controlSubtype: { type: 'integer', nullable: true },
        },
        additionalProperties: true,
      },
      DecodeItem: {
        type: 'object',
        required: ['index', 'status'],
        properties: {
          index: { type: 'integer' },
          line: { type: 'integer' },
          status: { type: 'string', enum: ['decoded', 'rejected'] },
          packet: ref('DecodedPacket'),
          fields: { type: 'array', description: 'byte range of every field', items: { type: 'object', properties: { name: { type: 'string' }, start: { type: 'integer' }, end: { type: 'integer' }, value: { type: 'string' } } } },
          reason: { type: 'string', enum: reasons },
          message: { type: 'string' },
        },
      },
      DecodeResult: {
        type: 'object',
        required: ['decoded', 'rejected', 'rejectedByReason', 'results'],
        properties: {
          decoded: { type: 'integer' },
          rejected: { type: 'integer' },
          rejectedByReason: { type: 'object', additionalProperties: { type: 'integer' } },
          results: { type: 'array', items: ref('DecodeItem'), maxItems: limits.maxBatch },
        },
      },
    },
  };
}

/**
 * The OpenAPI document. `views`: view definitions (default: every registered view);
 * `limits`: { maxBodyBytes, maxBatch } as configured (settings.sources.http); `batch`: the body
 * parser's { maxDepth, maxFieldChars, errors } (imports/ingest/http-batch.js); `version`: the app's.
 */
function buildOpenApiDocument({ views = VIEW_DEFINITIONS, limits = {}, batch = {}, version = '0.1.0', serverUrl = '/' } = {}) {
  const { maxBodyBytes = 1024 * 1024, maxBatch = 5000 } = limits;
  const batchLimits = { ...BATCH_FALLBACK, ...batch, maxFieldChars: { ...BATCH_FALLBACK.maxFieldChars, ...(batch.maxFieldChars || {}) } };
  const sizeLimits = `Bodies over ${maxBodyBytes} bytes answer 413, as do batches of more than ${maxBatch} reports.`;
  const paths = {
    '/api/views': {
      get: {
        operationId: 'views_list',
        tags: ['views'],
        summary: 'The names of every view',
        responses: { 200: { description: 'view names', content: jsonContent({ type: 'object', properties: { views: { type: 'array', items: { type: 'string' } }, usage: { type: 'string' } } }) } },
      },
    },
  };
  for (const definition of views) paths[`/api/views/${definition.name}`] = viewPath(definition);
  paths['/api/packets'] = {
    post: {
      operationId: 'packets_ingest',
      tags: ['ingest'],
      summary: 'Ingest observer reports',
      description: `The whole body is parsed and shape-checked before anything is ingested, so a refused request ingested nothing. ${sizeLimits}`,
      security: [{ apiKey: [] }, { bearer: [] }],
      requestBody: reportBody('Reports to store.', batchLimits),
      responses: {
        202: { description: 'every report was ingested or refused; one result per item in body order', content: jsonContent(ref('IngestResult')) },
        400: errorResponse('the body does not parse (syntax, nesting) or is empty'),
        401: errorResponse('API key missing or wrong'),
        405: errorResponse('not POST'),
        413: errorResponse('body or batch over the limit'),
        503: errorResponse('the server is stopping: nothing was taken, send the batch again (Retry-After: 5)'),
      },
    },
  };
  paths['/api/decode'] = {
    post: {
      operationId: 'packets_decode',
      tags: ['ingest'],
      summary: 'Decode reports without storing them',
      description: `Same body, parsing and limits as POST /api/packets (field lengths, depth, SNR/RSSI/time ranges, hex, signatures), but nothing is stored or counted and no key is needed. ${sizeLimits}`,
      requestBody: reportBody('Reports to decode.', batchLimits),
      responses: {
        200: { description: 'one result per item in body order', content: jsonContent(ref('DecodeResult')) },
        400: errorResponse('the body does not parse (syntax, nesting) or is empty'),
        405: errorResponse('not POST'),
        413: errorResponse('body or batch over the limit'),
      },
    },
  };
  paths['/api/health'] = {
    get: {
      operationId: 'health',
      tags: ['server'],
      summary: 'Server health (memory, ingest, queue, persistence, cache, sessions), secrets redacted',
      responses: { 200: { description: 'health', content: jsonContent({ type: 'object', additionalProperties: true }) } },
    },
  };
  paths['/api/spec'] = {
    get: {
      operationId: 'spec',
      tags: ['server'],
      summary: 'This document',
      responses: { 200: { description: 'the OpenAPI document', content: jsonContent({ type: 'object', additionalProperties: true }) } },
    },
  };
  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: 'MeshPulse',
      version,
      description: 'Live analyzer for MeshCore mesh networks. Every view is also a DDP publication (`view.<name>`) and method with the same parameters.',
    },
    servers: [{ url: serverUrl }],
    tags: [{ name: 'views', description: 'analytics views (read-only)' }, { name: 'ingest', description: 'observer reports' }, { name: 'server', description: 'health and contract' }],
    paths,
    components: components({ maxBodyBytes, maxBatch }, batchLimits),
  };
}

module.exports = { buildOpenApiDocument, schemaForRule, OPENAPI_VERSION };
