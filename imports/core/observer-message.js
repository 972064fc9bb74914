'use strict';
/**
 * Observer reports as they arrive over MQTT (topic `meshcore/<region>/<observer>/packets`,
 * JSON payload) or HTTP, turned into the store's report shape. Nothing throws: bad input
 * gives `{ error: { reason, message } }` so the pipeline can count it and keep the reason.
 *
 * Accepted payload fields (meshcoretomqtt / pyMC_repeater): raw (hex), SNR, RSSI, score,
 * direction, origin (observer name), timestamp (ISO or epoch), hash (ignored: we recompute it;
 * observers have been seen to send stale ones).
 */
const MAX_PAYLOAD_BYTES = 8 * 1024;
const TOPIC_RE = /^meshcore\/([^/]{1,64})\/([^/]{1,128})\/(packets|status)$/;

const MESSAGE_ERRORS = {
  bad_topic: 'topic is not meshcore/<region>/<observer>/packets',
  too_large: `payload larger than ${MAX_PAYLOAD_BYTES} bytes`,
  bad_json: 'payload is not a JSON object',
  no_raw: 'payload has no "raw" hex string',
};

function fail(reason, detail) {
  return { error: { reason, message: detail ? `${MESSAGE_ERRORS[reason]}: ${detail}` : MESSAGE_ERRORS[reason] } };
}

// Parsed topics by topic string. An observer publishes every report on the same topic, so the
// regex and its three substrings ran once per message for the same few hundred strings (about
// 5% of the MQTT path's CPU); a hit is one Map lookup, and stored reports of one observer share
// one region and observer id string. Bounded: cleared when full (a flood of distinct topics
// costs the regex, as before, and nothing more).
const TOPIC_CACHE_MAX = 10000;
const topicCache = new Map();

/**
 * `meshcore/<region>/<observer>/packets|status` -> a frozen { region, observerId, kind }
 * (shared between calls: never mutate it), or null.
 */
function parseTopic(topic) {
  if (typeof topic !== 'string') return null;
  const cached = topicCache.get(topic);
  if (cached !== undefined) return cached;
  const match = TOPIC_RE.exec(topic);
  const parsed = match ? Object.freeze({ region: match[1], observerId: match[2], kind: match[3] }) : null;
  if (topicCache.size >= TOPIC_CACHE_MAX) topicCache.clear();
  topicCache.set(topic, parsed);
  return parsed;
}

function toNumber(value) {
  if (value === undefined || value === null || value === '') return null;
  const number = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(number) ? number : NaN;
}

/** Two ASCII digits at `at` as a number, or NaN. */
function twoDigits(text, at) {
  const tens = text.charCodeAt(at) - 48;
  const ones = text.charCodeAt(at + 1) - 48;
  return tens >= 0 && tens <= 9 && ones >= 0 && ones <= 9 ? tens * 10 + ones : NaN;
}

/**
 * `YYYY-MM-DDTHH:MM:SS[.sss]Z`, what observers send, read without Date.parse (a quarter of the
 * parse cost per message). Only values whose meaning is plain: year >= 1970, day <= 28 (V8
 * rolls Feb 30 over, so later days go to Date.parse), hour <= 23; anything else returns NaN
 * and the caller asks Date.parse, so the result is always Date.parse's (tested).
 */
function parseIsoUtc(text) {
  const length = text.length;
  if ((length !== 24 && length !== 20) || text.charCodeAt(length - 1) !== 90 /* Z */) return NaN;
  if (text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45 || text.charCodeAt(10) !== 84 || text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58) return NaN;
  const year = twoDigits(text, 0) * 100 + twoDigits(text, 2);
  const month = twoDigits(text, 5);
  const day = twoDigits(text, 8);
  const hour = twoDigits(text, 11);
  const minute = twoDigits(text, 14);
  const second = twoDigits(text, 17);
  if (!(year >= 1970 && month >= 1 && month <= 12 && day >= 1 && day <= 28 && hour <= 23 && minute <= 59 && second <= 59)) return NaN;
  let millis = 0;
  if (length === 24) {
    if (text.charCodeAt(19) !== 46 /* . */) return NaN;
    const hundreds = text.charCodeAt(20) - 48;
    const rest = twoDigits(text, 21);
    if (!(hundreds >= 0 && hundreds <= 9 && rest >= 0)) return NaN;
    millis = hundreds * 100 + rest;
  }
  return Date.UTC(year, month - 1, day, hour, minute, second, millis);
}

function parseTime(value, fallback) {
  if (value === undefined || value === null || value === '') return fallback;
  if (typeof value === 'number') return value < 1e12 ? value * 1000 : value; // epoch seconds or ms
  if (typeof value === 'string') {
    const fast = parseIsoUtc(value);
    if (fast === fast) return fast; // not NaN
  }
  const parsed = Date.parse(value);
  return Number.isFinite(parsed) ? parsed : fallback;
}

/**
 * Turn one observer JSON object (already parsed) plus where it came from into a store report.
 * `source`: { region, observerId } from the topic, or from the HTTP body.
 */
function toReport(body, source, receivedAt) {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return fail('bad_json');
  const raw = body.raw ?? body.raw_hex ?? body.hex;
  if (typeof raw !== 'string' || raw.length === 0) return fail('no_raw');
  const report = {
    raw,
    observerId: source.observerId ?? body.observer ?? body.observerId,
    observerName: body.origin || source.observerName || null,
    region: source.region ?? body.region ?? null,
    snr: toNumber(body.SNR ?? body.snr),
    rssi: toNumber(body.RSSI ?? body.rssi),
    score: toNumber(body.score),
    direction: typeof body.direction === 'string' ? body.direction.slice(0, 8) : 'rx',
    // Store time is when we received it: observer clocks drift, and dedup windows and
    // "last hour" figures must not depend on them. The observer's own time is kept aside.
    time: receivedAt,
    observerTime: parseTime(body.timestamp, null),
  };
  return { report };
}

/** Parse an MQTT message (topic string, payload Buffer or string). */
function parseObserverMessage(topic, payload, receivedAt = Date.now()) {
  const source = parseTopic(topic);
  if (!source || source.kind !== 'packets') return fail('bad_topic', String(topic).slice(0, 200));
  const length = Buffer.isBuffer(payload) ? payload.length : Buffer.byteLength(String(payload));
  if (length > MAX_PAYLOAD_BYTES) return fail('too_large', `${length} bytes`);
  let body;
  try {
    body = JSON.parse(Buffer.isBuffer(payload) ? payload.toString('utf8') : String(payload));
  } catch (err) {
    return fail('bad_json', err.message);
  }
  return toReport(body, source, receivedAt);
}

/** Parse an observer status message (`.../status`): online/offline and any stats it carries. */
function parseStatusMessage(topic, payload) {
  const source = parseTopic(topic);
  if (!source || source.kind !== 'status') return fail('bad_topic', String(topic).slice(0, 200));
  let body;
  try {
    body = JSON.parse(Buffer.isBuffer(payload) ? payload.toString('utf8') : String(payload));
  } catch (err) {
    body = { status: String(payload).slice(0, 64) };
  }
  return { status: { region: source.region, observerId: source.observerId, body } };
}

module.exports = { parseObserverMessage, parseStatusMessage, toReport, parseTopic, parseTime, MESSAGE_ERRORS, MAX_PAYLOAD_BYTES, TOPIC_CACHE_MAX };
