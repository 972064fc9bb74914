'use strict';
/**
 * POST /api/decode: decode observer reports without storing them. A plain Node `(req, res)`
 * handler (mounted by spec.js, served by http.createServer in tests), with the same body shapes
 * and limits as POST /api/packets: the body is read up to maxBodyBytes, parsed and shape-checked
 * by imports/ingest/http-batch.js, each report built by observer-message.js and checked against
 * imports/core/input-limits.js, then decoded (adverts' signatures verified). Nothing reaches the
 * store, the pipeline or any counter. No API key: it stores nothing.
 *
 * Response: 200 { decoded, rejected, rejectedByReason, results: [{ index, line?, status: 'decoded',
 * packet, fields } | { index, line?, status: 'rejected', reason, message }] } in body order;
 * 400 unparseable or empty body, 405 not POST, 413 body or batch over the limit.
 */
const { parseBatch } = require('../../ingest/http-batch');
const { toReport } = require('../../core/observer-message');
const { checkReport } = require('../../core/input-limits');
const { decodePacket, layout, ROUTE_TYPES, PAYLOAD_TYPES } = require('../../core/decode');
const { STORE_ERRORS } = require('../../core/store');
const { sendJson, readLimitedBody, NDJSON_TYPES } = require('../../ingest/http');

/** Every option of createDecodeHandler(), with its default (the ingest defaults). */
const DECODE_DEFAULTS = Object.freeze({
  maxBodyBytes: 1024 * 1024,
  maxBatch: 5000,
  verifyAdverts: true,
  keyring: null,
  now: Date.now,
});

// Store bookkeeping the decoder declares but only the store fills in or reads (pathHash: the
// path interner's key for the hop list).
const STORE_FIELDS = new Set(['seq', 'time', 'raw', 'observations', 'pathHash']);

/** The decoded packet as JSON: the decoder's record without store bookkeeping, with type names. */
function packetJson(packet) {
  const out = {};
  for (const [key, value] of Object.entries(packet)) if (!STORE_FIELDS.has(key)) out[key] = value;
  out.routeName = ROUTE_TYPES[packet.routeType];
  out.payloadName = PAYLOAD_TYPES[packet.payloadType] || null;
  return out;
}

/**
 * Decode one parsed report object: { status: 'decoded', packet, fields } or
 * { status: 'rejected', reason, message }. The same checks as ingest, in the same order.
 */
function decodeItem(body, options) {
  const now = options.now();
  const parsed = toReport(body, {}, now);
  if (parsed.error) return { status: 'rejected', ...parsed.error };
  // Decoding needs no observer; one is checked like ingest's when given.
  const report = parsed.report.observerId === undefined || parsed.report.observerId === null ? { ...parsed.report, observerId: 'decode' } : parsed.report;
  const error = checkReport(report, now);
  if (error) return { status: 'rejected', ...error };
  const raw = report.raw.toLowerCase();
  const decoded = decodePacket(raw, { keyring: options.keyring, verifyAdverts: options.verifyAdverts });
  if (decoded.error) return { status: 'rejected', ...decoded.error };
  const advert = decoded.packet.advert;
  if (advert !== null && advert.signatureValid === false) return { status: 'rejected', reason: 'bad_signature', message: STORE_ERRORS.bad_signature };
  return { status: 'decoded', packet: packetJson(decoded.packet), fields: layout(raw, { keyring: options.keyring }).fields };
}

function createDecodeHandler(options = {}) {
  const settings = { ...DECODE_DEFAULTS };
  for (const name of Object.keys(DECODE_DEFAULTS)) if (options[name] !== undefined && options[name] !== null) settings[name] = options[name];
  const { maxBodyBytes, maxBatch } = settings;

  async function handle(req, res) {
    if (req.method !== 'POST') {
      sendJson(res, 405, { error: 'method_not_allowed', message: `${req.method} is not supported: POST reports to decode` }, { allow: 'POST' });
      return;
    }
    const body = await readLimitedBody(req, res, maxBodyBytes);
    if (body === null) return;
    const contentType = String(req.headers['content-type'] || '').split(';')[0].trim().toLowerCase();
    const parsed = parseBatch(body.toString('utf8'), { ndjson: NDJSON_TYPES.includes(contentType) });
    if (parsed.error) {
      sendJson(res, 400, { error: 'bad_request', message: parsed.error.replace('nothing ingested', 'nothing decoded') });
      return;
    }
    if (parsed.items.length > maxBatch) {
      sendJson(res, 413, { error: 'batch_too_large', message: `batch of ${parsed.items.length} reports exceeds maxBatch ${maxBatch}, nothing decoded` });
      return;
    }
    const rejectedByReason = {};
    let decoded = 0;
    const results = parsed.items.map((item, index) => {
      const where = item.line === undefined ? { index } : { index, line: item.line };
      const result = item.error ? { status: 'rejected', ...item.error } : decodeItem(item.value, settings);
      if (result.status === 'decoded') decoded++;
      else rejectedByReason[result.reason] = (rejectedByReason[result.reason] || 0) + 1;
      return { ...where, ...result };
    });
    sendJson(res, 200, { decoded, rejected: results.length - decoded, rejectedByReason, results });
  }

  return function decodeHandler(req, res) {
    handle(req, res).catch((err) => {
      sendJson(res, 500, { error: 'internal_error', message: `could not decode the request: ${err && err.message}` });
    });
  };
}

module.exports = { createDecodeHandler, decodeItem, DECODE_DEFAULTS };
