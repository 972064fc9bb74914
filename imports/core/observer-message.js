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

function parseTopic(topic) {
  const match = typeof topic === 'string' ? TOPIC_RE.exec(topic) : null;
  if (!match) return null;
  return { region: match[1], observerId: match[2], kind: match[3] };
}

function toNumber(value) {
  if (value === undefined || value === null || value === '') return null;
  const number = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(number) ? number : NaN;
}

function parseTime(value, fallback) {
  if (value === undefined || value === null || value === '') return fallback;
  if (typeof value === 'number') return value < 1e12 ? value * 1000 : value; // epoch seconds or ms
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

module.exports = { parseObserverMessage, parseStatusMessage, toReport, parseTopic, MESSAGE_ERRORS, MAX_PAYLOAD_BYTES };
