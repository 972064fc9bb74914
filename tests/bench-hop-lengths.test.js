'use strict';
// benchmarks/lib/hop-lengths.js: the path-length summary mesh-factors puts beside the real capture.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { hopLengthSummary, realCaptureHopLengths, hashSizeShares, realCaptureHashSizes } = require('../benchmarks/lib/hop-lengths');
const { createSimulator } = require('../imports/core/simulate');
const { decodePacket } = require('../imports/core/decode');

test('hop lengths: mean, its 95% interval, ranks and histogram shares of a known list', () => {
  const summary = hopLengthSummary([0, 0, 1, 2, 2, 2, 3, 5, 9, 12]);
  assert.equal(summary.reports, 10);
  assert.equal(summary.mean, 3.6);
  // squared deviations sum to 142.4: sd sqrt(142.4 / 9) = 3.978; 3.6 -+ 1.96 x 3.978 / sqrt(10)
  assert.deepEqual(summary.mean_ci95, [1.13, 6.07]);
  assert.equal(summary.median, 2);
  assert.equal(summary.p90, 9);
  assert.equal(summary.max, 12);
  assert.equal(summary.share_5_or_more, 0.3);
  assert.deepEqual(summary.histogram, { 0: 0.2, 1: 0.1, 2: 0.3, 3: 0.1, 4: 0, 5: 0.1, 6: 0, 7: 0, '8+': 0.2 });
  assert.deepEqual(hopLengthSummary([]), { reports: 0 });
});

/** Run `body(dir)` with a fresh temporary folder, removed afterwards. */
function withTempDir(body) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'meshpulse-capture-'));
  try {
    body(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('hop lengths of a capture file: TRACE and undecodable lines left out; a missing file is null', () => {
  withTempDir((dir) => {
    const sim = createSimulator({ seed: 'hop-lengths' });
    const lines = [];
    const expected = [];
    let traces = 0;
    for (const message of sim.messages(400)) {
      const { packet } = decodePacket(message.payload.raw);
      lines.push(JSON.stringify({ raw_hex: message.payload.raw }));
      if (packet.payloadType === 9) traces++;
      else expected.push(packet.hopCount);
    }
    assert.ok(traces > 0, 'the sample has TRACE packets to leave out');
    lines.push(JSON.stringify({ raw_hex: 'zz' }), '');
    const file = path.join(dir, 'capture.ndjson');
    fs.writeFileSync(file, lines.join('\n'));
    assert.deepEqual(realCaptureHopLengths(file), expected);
    assert.equal(realCaptureHopLengths(path.join(dir, 'absent.ndjson')), null);
  });
});

test('hash sizes: shares of 1-, 2- and 3-byte hop hashes, of a list and of a capture file\'s reports with a hop', () => {
  assert.deepEqual(hashSizeShares([1, 1, 1, 2, 3, 1, 1, 2]), { reports: 8, 1: 0.625, 2: 0.25, 3: 0.125 });
  assert.deepEqual(hashSizeShares([]), { reports: 0 });
  withTempDir((dir) => {
    const sim = createSimulator({ seed: 'hash-sizes', hashSizeMix: { 1: 1, 2: 1, 3: 1 } });
    const lines = [];
    const expected = [];
    for (const message of sim.messages(400)) {
      const { packet } = decodePacket(message.payload.raw);
      lines.push(JSON.stringify({ raw_hex: message.payload.raw }));
      if (packet.payloadType !== 9 && packet.hopCount > 0) expected.push(packet.path[0].length / 2);
    }
    assert.ok(new Set(expected).size === 3, 'the sample has hashes of all three sizes');
    const file = path.join(dir, 'capture.ndjson');
    fs.writeFileSync(file, lines.join('\n'));
    assert.deepEqual(realCaptureHashSizes(file), expected);
    assert.equal(realCaptureHashSizes(path.join(dir, 'absent.ndjson')), null);
  });
});
