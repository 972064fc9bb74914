'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('child_process');
const path = require('path');

const script = path.resolve(__dirname, '../../scripts/decode.js');

test('decode command writes one JSON line per input line, errors included', () => {
  const advert = '1200f13bb9481d8949d5c62ad81d484810c01a2a2a79265c1ffb7cdea380739d083e0162c969dd9c99c21a82b5e9e14733fc2edfd15db6acf0bdda541dcfa3fd129bc83a49849ffe64e75caaf6abd4311962b753b915f3adddcad75ee095a3a52dc5b915dc0792fc89400236f5b3f8434c5452205265706561746572';
  const input = [
    advert.toUpperCase(),
    JSON.stringify({ raw_hex: '0200331f69b5655cebc5be734c0010d680c6e0bc7439' }),
    'not hex at all',
    '{"raw_hex": 5}',
    '{broken json',
  ].join('\n');
  const lines = execFileSync(process.execPath, [script, '-'], { input }).toString().trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(lines.length, 5);
  for (const line of lines) assert.deepEqual(Object.keys(line).slice(0, 8), ['hash', 'routeType', 'payloadType', 'payloadVersion', 'hashSize', 'hops', 'advert', 'error']);
  assert.equal(lines[0].payloadType, 4);
  assert.equal(lines[0].advert.pubKey, 'f13bb9481d8949d5c62ad81d484810c01a2a2a79265c1ffb7cdea380739d083e');
  assert.equal(lines[0].advert.role, 'repeater');
  assert.match(lines[0].hash, /^[0-9a-f]{16}$/);
  assert.equal(lines[1].payloadType, 0);
  assert.equal(lines[1].advert, null);
  assert.equal(lines[1].error, null);
  assert.equal(lines[2].error, 'not_hex');
  assert.equal(lines[2].hash, null);
  assert.equal(lines[3].error, 'not_string');
  assert.match(lines[4].error, /^bad_json/);
});
