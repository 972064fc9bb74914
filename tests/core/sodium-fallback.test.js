'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { execFileSync } = require('child_process');
const { simulatedReports } = require('../helpers/mesh');

const ROOT = path.join(__dirname, '..', '..');

// What a machine without sodium-native gets from the decoder: run in a child process where
// requiring it throws, as on a platform with no prebuild or an `--omit=optional` install.
const CHILD = `
const Module = require('module');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request === 'sodium-native') throw new Error("Cannot find module 'sodium-native'");
  return resolve.call(this, request, ...rest);
};
const { decodePacket, createKeyring } = require(${JSON.stringify(path.join(ROOT, 'imports/core/decode'))});
const { sodium } = require(${JSON.stringify(path.join(ROOT, 'imports/core/sodium'))});
const { backend } = require(${JSON.stringify(path.join(ROOT, 'imports/core/ed25519'))});
const { raws, channels } = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const keyring = createKeyring(channels);
const decoded = raws.map((raw) => summary(decodePacket(raw, { keyring, verifyAdverts: true })));
function summary({ packet, error }) {
  if (error) return { error: error.reason };
  return { hash: packet.hash, valid: packet.advert ? packet.advert.signatureValid : null, text: packet.message ? packet.message.text : null };
}
process.stdout.write(JSON.stringify({ sodium: sodium !== null, backend, decoded }));
`;

test('without sodium-native the decoder gives the same hashes, signature checks and decrypted texts', () => {
  const { reports, channels } = simulatedReports({ seed: 31, count: 1500 });
  const raws = reports.map((report) => report.raw);
  // Altered copies of some adverts (a flipped bit in the signed data): invalid under both.
  for (const raw of raws.filter((r) => ((parseInt(r.slice(0, 2), 16) >> 2) & 0x0f) === 4).slice(0, 20)) {
    raws.push(raw.slice(0, -2) + (parseInt(raw.slice(-2), 16) ^ 1).toString(16).padStart(2, '0'));
  }
  const input = JSON.stringify({ raws, channels });
  const without = JSON.parse(execFileSync(process.execPath, ['-e', CHILD], { input, maxBuffer: 64 * 1024 * 1024 }).toString());
  assert.equal(without.sodium, false);
  assert.equal(without.backend, 'node-crypto');
  const { decodePacket, createKeyring } = require('../../imports/core/decode');
  const keyring = createKeyring(channels);
  const here = raws.map((raw) => {
    const { packet, error } = decodePacket(raw, { keyring, verifyAdverts: true });
    if (error) return { error: error.reason };
    return { hash: packet.hash, valid: packet.advert ? packet.advert.signatureValid : null, text: packet.message ? packet.message.text : null };
  });
  assert.deepEqual(without.decoded, here);
  // The comparison covered what it claims: adverts valid and invalid, decrypted channel messages.
  assert.ok(here.filter((d) => d.valid === true).length >= 20, 'valid adverts compared');
  assert.ok(here.filter((d) => d.valid === false).length >= 20, 'altered adverts compared');
  assert.ok(here.filter((d) => d.text !== null).length >= 50, 'decrypted messages compared');
});
