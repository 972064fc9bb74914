'use strict';
/**
 * POST /api/packets: observers (or relays) push reports over HTTP. A plain Node
 * `(req, res)` handler, so Meteor can mount it with `WebApp.handlers.use('/api/packets', handler)`
 * and tests can serve it with `http.createServer(handler)`.
 *
 * Request:  header `x-api-key: KEY` or `Authorization: Bearer KEY`;
 *           body JSON (one report object or an array of them) or NDJSON
 *           (`content-type: application/x-ndjson`, one report per line). A report is
 *           { raw, observer | observerId, region, SNR, RSSI, score, timestamp, origin }.
 * The whole body is read, parsed and shape-checked (imports/ingest/http-batch.js) before
 * anything of it is ingested, so a refused request ingested nothing and is safe to retry.
 * Response: 202 { accepted, rejected, duplicates, rejectedByReason, errors: [{ index, reason, message }],
 *           results: [{ status: 'accepted' } | { status: 'rejected', reason }] } once every report was
 *           ingested or refused: results has one entry per item in body order, errors details
 *           the first 20 rejections; a bad item never loses the good ones.
 *           400 body that cannot be parsed (syntax, nesting deeper than maxDepth), 401 missing or
 *           wrong key, 405 not POST, 413 body or batch over the limit, 503 (Retry-After: 5) while
 *           the server is stopping.
 *           Every response is JSON: { error, message } on failure.
 */
const crypto = require('crypto');
const { parseBatch, BATCH_DEFAULTS } = require('./http-batch');

/** Every option of createPacketsHandler() besides pipeline/apiKey, with its default. */
const HTTP_DEFAULTS = Object.freeze({
  maxBodyBytes: 1024 * 1024,
  maxBatch: 5000,
  // Errors listed in a 202 response (the counts cover all of them).
  maxErrorsListed: 20,
  // Source label the pipeline records with each report.
  source: 'http',
  // Deepest [ / { nesting accepted in a body (or NDJSON line); deeper is refused unparsed.
  maxDepth: BATCH_DEFAULTS.maxDepth,
  // Per-field string limits, merged over BATCH_DEFAULTS.maxFieldChars (see http-batch.js).
  maxFieldChars: null,
});

const NDJSON_TYPES = ['application/x-ndjson', 'application/ndjson', 'application/jsonl', 'application/x-jsonlines', 'application/jsonlines'];

function sendJson(res, status, body, headers = {}) {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store', ...headers });
  res.end(text);
}

function sendError(res, status, error, message, headers) {
  sendJson(res, status, { error, message }, headers);
}

/** Hash both sides first so timingSafeEqual gets equal lengths and the key length doesn't leak. */
function digest(value) {
  return crypto.createHash('sha256').update(String(value), 'utf8').digest();
}

function requestKey(req) {
  const header = req.headers['x-api-key'];
  if (typeof header === 'string' && header.length > 0) return header.trim();
  const authorization = req.headers.authorization;
  if (typeof authorization === 'string') {
    const match = /^Bearer\s+(.+)$/i.exec(authorization.trim());
    if (match) return match[1].trim();
  }
  return null;
}

/**
 * The request body, or null once the request is answered: 413 on a declared or received size
 * over `maxBodyBytes` (refused on the declared length before reading a byte), nothing when the
 * client went away. Shared by POST /api/packets and POST /api/decode.
 */
async function readLimitedBody(req, res, maxBodyBytes) {
  // Connection: close so the rest of an oversize upload isn't read into a kept-alive socket.
  const tooLarge = (detail) => sendError(res, 413, 'payload_too_large', `request body exceeds maxBodyBytes ${maxBodyBytes} (${detail})`, { connection: 'close' });
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBodyBytes) {
    tooLarge(`content-length ${declared}`);
    return null;
  }
  const read = await readBody(req, maxBodyBytes);
  if (read.aborted) return null; // nobody is listening any more
  if (read.tooLarge) {
    tooLarge(`more than ${maxBodyBytes} bytes received`);
    return null;
  }
  return read.body;
}

/**
 * Read the body up to `limit` bytes. Resolves { body } or { tooLarge: true } (reading stops at
 * the limit and buffered chunks are dropped), or { aborted: true } if the client went away.
 */
function readBody(req, limit) {
  return new Promise((resolve) => {
    const chunks = [];
    let size = 0;
    let settled = false;
    const finish = (result) => {
      if (settled) return;
      settled = true;
      req.removeListener('data', onData);
      req.removeListener('end', onEnd);
      req.removeListener('error', onAbort);
      req.removeListener('aborted', onAbort);
      resolve(result);
    };
    const onData = (chunk) => {
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        req.pause();
        finish({ tooLarge: true, size });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => finish({ body: Buffer.concat(chunks, size) });
    const onAbort = () => finish({ aborted: true });
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onAbort);
    req.on('aborted', onAbort);
  });
}

/**
 * @param {object} options
 * @param {object} options.pipeline            imports/ingest/pipeline.js
 * @param {string|string[]} options.apiKey     accepted key(s); required
 * @param {number} [options.maxBodyBytes]      default 1 MB
 * @param {number} [options.maxBatch]          most reports per request, default 5000
 * @param {number} [options.maxDepth]          deepest JSON nesting, default 16
 * @param {object} [options.maxFieldChars]     per-field string limits (http-batch.js)
 */
function createPacketsHandler(options = {}) {
  const { pipeline } = options;
  if (!pipeline || typeof pipeline.submitBatch !== 'function') throw new TypeError('createPacketsHandler: pipeline with submitBatch() is required');
  const keys = (Array.isArray(options.apiKey) ? options.apiKey : [options.apiKey]).filter((key) => typeof key === 'string' && key.length > 0);
  if (keys.length === 0) throw new TypeError('createPacketsHandler: apiKey is required (a non-empty string or an array of them)');
  const keyDigests = keys.map(digest);
  const settings = { ...HTTP_DEFAULTS };
  for (const name of Object.keys(HTTP_DEFAULTS)) if (options[name] !== undefined) settings[name] = options[name];
  const { maxBodyBytes, maxBatch, maxErrorsListed, source, maxDepth } = settings;
  const batchLimits = { maxDepth, maxFieldChars: settings.maxFieldChars || undefined };

  function authorized(key) {
    const presented = digest(key);
    let match = false;
    // Compare against every key (no early exit) so timing says nothing about which matched.
    for (const expected of keyDigests) match = crypto.timingSafeEqual(presented, expected) || match;
    return match;
  }

  async function handle(req, res) {
    if (req.method !== 'POST') {
      sendError(res, 405, 'method_not_allowed', `${req.method} is not supported: POST reports to this endpoint`, { allow: 'POST' });
      return;
    }
    const key = requestKey(req);
    if (!key) {
      sendError(res, 401, 'unauthorized', 'API key required: send header x-api-key or Authorization: Bearer <key>', { 'www-authenticate': 'Bearer' });
      return;
    }
    if (!authorized(key)) {
      sendError(res, 401, 'unauthorized', 'invalid API key', { 'www-authenticate': 'Bearer error="invalid_token"' });
      return;
    }
    const body = await readLimitedBody(req, res, maxBodyBytes);
    if (body === null) return;
    // The server is stopping (imports/core/graceful-stop.js): nothing is taken, so say "later"
    // rather than rejecting every report as if it were bad (a client retries a 503).
    if (pipeline.closed === true) {
      sendError(res, 503, 'stopping', 'the server is stopping and takes no reports now; send them again in a few seconds', { 'retry-after': '5' });
      return;
    }

    const contentType = String(req.headers['content-type'] || '').split(';')[0].trim().toLowerCase();
    const parsed = parseBatch(body.toString('utf8'), { ndjson: NDJSON_TYPES.includes(contentType), ...batchLimits });
    if (parsed.error) {
      sendError(res, 400, 'bad_request', parsed.error);
      return;
    }
    const { items } = parsed;
    if (items.length > maxBatch) {
      sendError(res, 413, 'batch_too_large', `batch of ${items.length} reports exceeds maxBatch ${maxBatch}, nothing ingested`);
      return;
    }

    // Items refused by shape are counted by the pipeline too; the rest go through as one batch.
    const errors = [];
    const bodies = [];
    const bodyIndexes = [];
    items.forEach((item, index) => {
      if (item.error) {
        pipeline.reject(item.error, { source, raw: item.raw });
        errors.push(item.line === undefined ? { index, ...item.error } : { index, line: item.line, ...item.error });
      } else {
        bodies.push(item.value);
        bodyIndexes.push(index);
      }
    });
    const outcome = bodies.length > 0 ? await pipeline.submitBatch(bodies, source) : { accepted: 0, duplicates: 0, errors: [] };
    for (const error of outcome.errors) {
      const index = bodyIndexes[error.index];
      const line = items[index].line;
      errors.push(line === undefined ? { ...error, index } : { ...error, index, line });
    }
    errors.sort((a, b) => a.index - b.index);
    const results = items.map(() => ({ status: 'accepted' }));
    const rejectedByReason = {};
    for (const error of errors) {
      results[error.index] = { status: 'rejected', reason: error.reason };
      rejectedByReason[error.reason] = (rejectedByReason[error.reason] || 0) + 1;
    }
    sendJson(res, 202, {
      accepted: outcome.accepted,
      rejected: errors.length,
      duplicates: outcome.duplicates,
      rejectedByReason,
      errors: errors.slice(0, maxErrorsListed),
      results,
    });
  }

  return function packetsHandler(req, res) {
    handle(req, res).catch((err) => {
      // A bug, not bad input: answer anyway so the client doesn't hang.
      sendError(res, 500, 'internal_error', `could not process the request: ${err && err.message}`);
    });
  };
}

// sendJson, readLimitedBody and NDJSON_TYPES are shared with POST /api/decode (imports/api/rest/decode-handler.js).
module.exports = { createPacketsHandler, HTTP_DEFAULTS, sendJson, readLimitedBody, NDJSON_TYPES };
