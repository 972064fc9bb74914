#!/usr/bin/env node
'use strict';
/**
 * Decode a capture: `npm run -s decode -- FILE` (or `-` for standard input).
 * Each input line is raw hex or a JSON object with `raw_hex` (or `raw`); each output line is
 * {hash, routeType, payloadType, payloadVersion, hashSize, hops, advert, error}.
 * A bad line gives a line with `error` set and the rest null; decoding goes on.
 * Options: --channel NAME_OR_HASHTAG[=KEYHEX] (repeatable) adds channel keys; messages of
 * known channels then appear under `message`.
 */
const fs = require('fs');
const readline = require('readline');
const { decodePacket, createKeyring, PUBLIC_CHANNEL } = require('../imports/core/decode');

function parseArgs(argv) {
  const channels = [PUBLIC_CHANNEL];
  let file = null;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--channel') {
      const [name, key] = String(argv[++i] || '').split('=');
      if (name) channels.push(key ? { name, key } : name);
    } else if (argv[i] === '--help' || argv[i] === '-h') {
      return { help: true };
    } else file = argv[i];
  }
  return { file, channels };
}

function decodeLine(line, keyring) {
  let raw = line;
  if (line.startsWith('{')) {
    try {
      const object = JSON.parse(line);
      raw = object.raw_hex ?? object.raw ?? object.hex;
    } catch (err) {
      return { error: `bad_json: ${err.message}` };
    }
  }
  const { packet, error } = decodePacket(typeof raw === 'string' ? raw.trim() : raw, { keyring });
  if (error) return { error: error.reason };
  const advert = packet.advert
    ? { pubKey: packet.advert.pubKey, name: packet.advert.name, role: packet.advert.role, lat: packet.advert.lat, lon: packet.advert.lon, timestamp: packet.advert.timestamp }
    : null;
  const out = {
    hash: packet.hash,
    routeType: packet.routeType,
    payloadType: packet.payloadType,
    payloadVersion: packet.payloadVersion,
    hashSize: packet.hashSize,
    hops: packet.hopCount,
    advert,
    error: null,
  };
  if (packet.message) out.message = { channel: packet.message.channel, sender: packet.message.sender, text: packet.message.text, timestamp: packet.message.timestamp };
  return out;
}

async function main() {
  // `| head` closes the pipe early: that is the reader's choice, not an error.
  process.stdout.on('error', (err) => process.exit(err.code === 'EPIPE' ? 0 : 1));
  const args = parseArgs(process.argv.slice(2));
  if (args.help || !args.file) {
    process.stderr.write('usage: npm run -s decode -- FILE|- [--channel "#name"] [--channel name=KEYHEX]\n');
    process.exit(args.help ? 0 : 2);
  }
  if (args.file !== '-' && !fs.existsSync(args.file)) {
    process.stderr.write(`decode: no such file: ${args.file}\n`);
    process.exit(2);
  }
  const keyring = createKeyring(args.channels);
  const input = args.file === '-' ? process.stdin : fs.createReadStream(args.file);
  const lines = readline.createInterface({ input, crlfDelay: Infinity });
  const nullFields = { hash: null, routeType: null, payloadType: null, payloadVersion: null, hashSize: null, hops: null, advert: null };
  for await (const rawLine of lines) {
    const line = rawLine.trim();
    if (!line) continue;
    const result = decodeLine(line, keyring);
    process.stdout.write(`${JSON.stringify(result.error && result.hash === undefined ? { ...nullFields, error: result.error } : result)}\n`);
  }
}

main().catch((err) => {
  process.stderr.write(`decode: ${err.message}\n`);
  process.exit(1);
});
