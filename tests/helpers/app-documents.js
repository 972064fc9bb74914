'use strict';
/**
 * What the end-to-end tests do with the running app's data: post simulator reports over
 * HTTP, and compare published documents with method results.
 */
const assert = require('node:assert/strict');
const { joinChunkedFields } = require('../../imports/core/field-chunks');

// Fields that differ between two reads of the same data (when it was generated, and how new).
const VOLATILE = new Set(['generatedAt', 'newestPacketAt']);

/** A published document as the UI reads it (big lists put back together), without volatile fields. */
function withoutVolatile(doc) {
  const copy = { ...joinChunkedFields(doc) };
  for (const key of VOLATILE) delete copy[key];
  return copy;
}

/** POST simulator messages to the app's /api/packets with its API key; expects 202, returns the body. */
async function postPackets(app, messages) {
  const body = messages.map((m) => ({ raw: m.payload.raw, observer: m.topic.split('/')[2], region: m.topic.split('/')[1], SNR: m.payload.SNR, RSSI: m.payload.RSSI, origin: m.payload.origin }));
  const response = await fetch(`${app.url}/api/packets`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': app.settings.apiKey }, body: JSON.stringify(body) });
  assert.equal(response.status, 202, await response.clone().text());
  return response.json();
}

module.exports = { withoutVolatile, postPackets, VOLATILE };
