'use strict';
/**
 * Parse and validate a whole POST /api/packets body before anything of it is ingested
 * (imports/ingest/http.js sends what comes out of here to the pipeline, or answers 400).
 *
 *   const parsed = parseBatch(text, { ndjson: false });
 *   // { error } -> 400, nothing ingested
 *   // { items: [{ value } | { error: { reason, message }, line?, raw? }] } -> per-item results
 *
 * JSON body: one report object or an array of them; it parses whole or not at all (syntax,
 * nesting depth) so a client's retry never duplicates half a batch.
 * NDJSON body: one report per line; a line that does not parse (syntax, depth) is one rejected
 * item, the other lines go on.
 *
 * Only the HTTP shape is checked here: types, lengths, depth. Value ranges (SNR, RSSI,
 * timestamps, hex) are the store's and decoder's job, so MQTT and reload get the same checks.
 * Nothing here recurses over input, so no input can overflow the stack.
 */

const { INPUT_LIMITS } = require('../core/input-limits');

/** Every limit, with its default. */
const BATCH_DEFAULTS = Object.freeze({
  // Deepest [ / { nesting accepted: a JSON array of flat report objects is depth 2; the slack
  // lets observers send small nested extras (ignored), not 20k-deep arrays.
  maxDepth: 16,
  // Longest string per known report field (characters). raw is hex: 255 bytes = 510 characters,
  // longer is the decoder's `too_long`; beyond this limit it is not worth decoding at all.
  maxFieldChars: Object.freeze({
    raw: 1024,
    observer: INPUT_LIMITS.observerIdLength, // the store's own limits (imports/core/input-limits.js)
    region: INPUT_LIMITS.regionLength,
    // A shape cap only: the store then refuses names over INPUT_LIMITS.observerNameLength.
    origin: 128,
    direction: 16,
    timestamp: 64,
    number: 32, // SNR, RSSI and score sent as strings ("-7.5")
  }),
});

/** Typed reasons for items refused here (the pipeline counts them like any other). */
const BATCH_ERRORS = {
  bad_json: 'not valid JSON',
  too_deep: 'nested deeper than the limit',
  bad_item: 'report is not a JSON object',
  bad_type: 'field has the wrong type',
  field_too_long: 'field is longer than its limit',
};

/** Known report fields: which limit applies and what may be sent. Others are ignored. */
const FIELD_RULES = [
  { names: ['raw', 'raw_hex', 'hex'], limit: 'raw', kinds: 'string' },
  { names: ['observer', 'observerId'], limit: 'observer', kinds: 'string' },
  { names: ['region'], limit: 'region', kinds: 'string' },
  { names: ['origin'], limit: 'origin', kinds: 'string' },
  { names: ['direction'], limit: 'direction', kinds: 'string' },
  { names: ['timestamp'], limit: 'timestamp', kinds: 'string|number' },
  { names: ['SNR', 'snr', 'RSSI', 'rssi', 'score'], limit: 'number', kinds: 'string|number' },
];

function resolveLimits(options = {}) {
  return {
    maxDepth: options.maxDepth ?? BATCH_DEFAULTS.maxDepth,
    maxFieldChars: { ...BATCH_DEFAULTS.maxFieldChars, ...(options.maxFieldChars || {}) },
  };
}

/**
 * Deepest nesting of arrays and objects in JSON text, found by one loop over the characters
 * (brackets inside strings don't count). Stops early once `maxDepth` is passed and returns
 * { depth, offset } of the first character over the limit, else null. Malformed text is
 * JSON.parse's to refuse; this only guarantees no parse ever builds a value deeper than maxDepth.
 */
function scanDepth(text, maxDepth) {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c) i++; // backslash: skip the escaped character (\" does not end the string)
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) {
      inString = true;
    } else if (code === 0x5b || code === 0x7b) {
      depth++;
      if (depth > maxDepth) return { depth, offset: i };
    } else if (code === 0x5d || code === 0x7d) {
      depth--;
    }
  }
  return null;
}

function kindOf(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function fail(reason, detail) {
  return { reason, message: `${BATCH_ERRORS[reason]}: ${detail}` };
}

/**
 * Check one parsed report's shape. Returns null when fine, else { reason, message } naming the
 * field and the limit. `null`/absent fields are fine here (the store decides what is required).
 */
function validateItem(value, limits = resolveLimits()) {
  const kind = kindOf(value);
  if (kind !== 'object') return fail('bad_item', `got ${kind}`);
  for (const rule of FIELD_RULES) {
    for (const name of rule.names) {
      const field = value[name];
      if (field === undefined || field === null || !Object.prototype.hasOwnProperty.call(value, name)) continue;
      const fieldKind = kindOf(field);
      if (!rule.kinds.split('|').includes(fieldKind)) return fail('bad_type', `"${name}" must be ${rule.kinds.replace('|', ' or ')}, got ${fieldKind}`);
      const limit = limits.maxFieldChars[rule.limit];
      if (fieldKind === 'string' && field.length > limit) return fail('field_too_long', `"${name}" has ${field.length} characters, limit ${limit}`);
    }
  }
  return null;
}

/** Parse one JSON text with the depth limit first. Returns { value } or { error: { reason, message } }. */
function parseJson(text, maxDepth) {
  const tooDeep = scanDepth(text, maxDepth);
  if (tooDeep) return { error: fail('too_deep', `more than maxDepth ${maxDepth} levels at character ${tooDeep.offset}`) };
  try {
    return { value: JSON.parse(text) };
  } catch (err) {
    return { error: fail('bad_json', err.message) };
  }
}

/** Checked items; a bad one carries { error } and a short `raw` for the drop ring. */
function checkItem(value, limits, extra = {}) {
  const error = validateItem(value, limits);
  if (!error) return { value, ...extra };
  // Never hand the value itself on: only a bounded, flat excerpt for the drop ring.
  return { error, raw: excerpt(value), ...extra };
}

function excerpt(value) {
  try {
    const text = JSON.stringify(value); // depth is already bounded by scanDepth
    return text && text.length > 200 ? `${text.slice(0, 200)}…` : text;
  } catch {
    return kindOf(value);
  }
}

/**
 * Parse and check a whole body. Returns { error: message } when the body as a whole is refused
 * (answer 400, ingest nothing), else { items } in body order.
 */
function parseBatch(text, { ndjson = false, ...options } = {}) {
  const limits = resolveLimits(options);
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1); // a UTF-8 byte-order mark is not content
  if (text.trim().length === 0) return { error: 'body is empty: send a report object, an array of them, or NDJSON lines' };
  if (ndjson) {
    const items = [];
    const lines = text.split('\n');
    for (let index = 0; index < lines.length; index++) {
      const line = lines[index];
      if (line.trim().length === 0) continue; // blank lines (and the trailing newline) aren't items
      const parsed = parseJson(line, limits.maxDepth);
      if (parsed.error) {
        const { reason, message } = parsed.error;
        items.push({ error: { reason, message: `line ${index + 1} is ${message}` }, line: index + 1, raw: line.length > 200 ? `${line.slice(0, 200)}…` : line });
      } else {
        items.push(checkItem(parsed.value, limits, { line: index + 1 }));
      }
    }
    return { items };
  }
  const parsed = parseJson(text, limits.maxDepth);
  if (parsed.error) {
    const hint = parsed.error.reason === 'bad_json' ? '; for one report per line send content-type application/x-ndjson' : '';
    return { error: `body refused, nothing ingested: ${parsed.error.message}${hint}`, reason: parsed.error.reason };
  }
  const { value } = parsed;
  if (Array.isArray(value)) return { items: value.map((item) => checkItem(item, limits)) };
  if (kindOf(value) === 'object') return { items: [checkItem(value, limits)] };
  return { error: `body must be a JSON report object or an array of report objects, got ${kindOf(value)}`, reason: 'bad_item' };
}

module.exports = { parseBatch, validateItem, scanDepth, BATCH_DEFAULTS, BATCH_ERRORS };
