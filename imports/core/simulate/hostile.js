'use strict';
/**
 * Hostile observer-report streams for fuzz tests and benchmarks (issues 8 and 9), each a
 * deterministic generator from a seed, yielding reports in the store's ingest shape
 * ({ raw, observerId, observerName, region, snr, rssi, score, direction, time }) plus labels:
 *   expect  'valid'   well formed: the engine should accept it and use it in full;
 *           'invalid' the engine should refuse it (or, for an advert, its node update) and
 *                     count a reason; absent when it is a policy choice (clamp, window, cap).
 *   case    what was done to the report ('long-path', 'bad-signature', 'snr-nan' ...).
 * Valid packets are built with the simulator's encoders (packets.js) or taken from a small
 * simulated mesh, so they are byte for byte what the simulator sends.
 *
 *   for (const report of hostileStream('longPaths', { seed: 1, count: 1000 })) store.ingest(report);
 *   const { topic, payload } = toMqttMessage(report);  // what observer-message.js parses
 */
const { createPrng } = require('../prng');
const { channelKeyFromName } = require('../decode');
const { createSimulator } = require('./simulator');
const { describeChannels } = require('./traffic');
const {
  ROUTE, ROLE_IDS, MAX_PACKET_BYTES, keyPairFromSeed, advertAppData, advertSigner, signAdvert, channelCipher, groupTextPayload, packetHex, pathLenByte,
} = require('./packets');

const START_TIME = Date.UTC(2025, 5, 1, 12, 0, 0);
const MAX_HOPS = 63; // 6-bit hop count
const REGIONS = ['SEA', 'SFO', 'LON', 'BER'];
// Where MQTT caps them (observer-message.js TOPIC_RE); longer ones cannot arrive over MQTT.
const MAX_REGION_CHARS = 64;
const MAX_OBSERVER_CHARS = 128;
const ODD_TEXT = ['Ünïcödé 名前 🦑📡', 'rtl \u202eevil\u202c', 'zero\u200bwidth', 'ctl \u0000\u0001\u001b[31m\n\r\t', 'lone \ud800 surrogate', '"quotes" \\ </script>', '%s %n {{x}} ${x}'];

/** A small world that supplies observers and ordinary valid packets for every class. */
function baseContext(seed) {
  const sim = createSimulator({ seed: `hostile/${seed}` });
  const packets = sim.messages(400).map((m) => m.payload.raw);
  return { sim, packets, observers: sim.observers };
}

function hexOfLength(prng, chars) {
  const bytes = prng.bytes(Math.ceil(chars / 2));
  return bytes.toString('hex').toUpperCase().slice(0, chars);
}

function sane(prng, context, at, raw) {
  const observer = prng.pick(context.observers);
  return {
    raw,
    observerId: observer.id,
    observerName: observer.name,
    region: observer.region,
    snr: prng.between(-80, 60) / 4,
    rssi: prng.between(-125, -40),
    score: prng.int(1001),
    direction: 'rx',
    time: START_TIME + at * 250,
  };
}

/** A valid packet with the given path (hop hashes as one Buffer) and payload. */
function buildRaw(prng, payloadType, payload, hashSize, hops, flood = true) {
  const transport = prng.chance(0.2);
  const routeType = flood ? (transport ? ROUTE.TRANSPORT_FLOOD : ROUTE.FLOOD) : (transport ? ROUTE.TRANSPORT_DIRECT : ROUTE.DIRECT);
  return packetHex({
    routeType,
    payloadType,
    transportHex: transport ? prng.bytes(4).toString('hex').toUpperCase() : '',
    pathLength: pathLenByte(hashSize, hops),
    pathHex: prng.bytes(hops * hashSize).toString('hex').toUpperCase(),
    payload,
  });
}

const generators = {
  /** Valid packets whose paths are long and random: 1-, 2- and 3-byte hashes up to 63 hops or 255 bytes. */
  * longPaths(prng, context) {
    const channel = channelCipher(describeChannels(['#hostile'])[0]);
    for (let at = 0; ; at++) {
      const kind = prng.int(3);
      let payloadType;
      let payload;
      if (kind === 0) { payloadType = 3; payload = prng.bytes(4); } // ACK
      else if (kind === 1) { payloadType = 2; payload = prng.bytes(4 + 16 * (1 + prng.int(9))); } // TXT_MSG, random ciphertext
      else { payloadType = 5; payload = groupTextPayload(channel, `x${at}: hi`, START_TIME / 1000 + at); }
      const hashSize = 1 + prng.int(3);
      const headerBytes = 1 + 4 + 1; // header, transport codes (when present), path length
      const maxHops = Math.min(MAX_HOPS, Math.floor((MAX_PACKET_BYTES - headerBytes - payload.length) / hashSize));
      // One in five at the limit, the rest spread over 1..limit.
      const hops = prng.chance(0.2) ? maxHops : 1 + prng.int(maxHops);
      const raw = buildRaw(prng, payloadType, payload, hashSize, hops, prng.chance(0.8));
      yield { ...sane(prng, context, at, raw), expect: 'valid', case: hops === maxHops ? 'path-at-limit' : 'long-path' };
    }
  },

  /** Ordinary packets from random observer ids and regions, some of them very long. */
  * randomObservers(prng, context) {
    for (let at = 0; ; at++) {
      const report = sane(prng, context, at, prng.pick(context.packets));
      const roll = prng.float();
      if (roll < 0.6) {
        report.observerId = hexOfLength(prng, prng.chance(0.8) ? 64 : 1 + prng.int(MAX_OBSERVER_CHARS));
        report.region = hexOfLength(prng, 3);
        report.observerName = `obs-${report.observerId.slice(0, 6)}`;
        yield { ...report, expect: 'valid', case: 'random-observer' };
      } else if (roll < 0.75) {
        report.region = prng.chance(0.5) ? hexOfLength(prng, MAX_REGION_CHARS) : `R${prng.uint32()}`;
        report.observerId = hexOfLength(prng, 64);
        yield { ...report, expect: 'valid', case: 'random-region' };
      } else if (roll < 0.85) {
        report.region = 'R'.repeat(MAX_REGION_CHARS + 1 + prng.int(5000));
        yield { ...report, case: 'long-region' };
      } else if (roll < 0.95) {
        report.observerId = hexOfLength(prng, MAX_OBSERVER_CHARS + 1 + prng.int(5000));
        yield { ...report, expect: 'invalid', case: 'long-observer-id' };
      } else {
        report.observerId = '';
        yield { ...report, expect: 'invalid', case: 'empty-observer-id' };
      }
    }
  },

  /** Adverts from random keys with long names: signed, badly signed, and odd timestamps. */
  * randomAdverts(prng, context) {
    const keys = prng.fork('keys');
    for (let at = 0; ; at++) {
      const keyPair = keyPairFromSeed(keys.bytes(32));
      const role = prng.pick(Object.keys(ROLE_IDS));
      const withLocation = prng.chance(0.5);
      // Names up to what fits in 255 bytes: header, transport codes, path length, 100 fixed
      // bytes (key, timestamp, signature), flags, location.
      const room = MAX_PACKET_BYTES - 6 - 100 - 1 - (withLocation ? 8 : 0);
      let name = prng.chance(0.3) ? prng.pick(ODD_TEXT) : `node-${keyPair.publicKey.toString('hex', 0, 4)}-`;
      // A third fill every byte they can; the rest grow to a random length.
      const fill = prng.chance(0.3) ? 1 : 0.95;
      while (Buffer.byteLength(name, 'utf8') < room && prng.chance(fill)) name += prng.pick(['a', 'Z', '9', ' ', '📡', 'é', '名']);
      while (Buffer.byteLength(name, 'utf8') > room) name = name.slice(0, -1);
      const lat = withLocation ? prng.between(-90e6, 90e6) / 1e6 : null;
      const lon = withLocation ? prng.between(-180e6, 180e6) / 1e6 : null;
      const signer = advertSigner(keyPair, advertAppData(ROLE_IDS[role], name, lat, lon));
      const roll = prng.float();
      let timestamp = Math.floor(START_TIME / 1000) + at;
      let label = { expect: 'valid', case: 'signed' };
      if (roll < 0.1) { timestamp = 0xffffffff; label = { case: 'timestamp-max' }; }
      else if (roll < 0.15) { timestamp = 0; label = { case: 'timestamp-zero' }; }
      else if (roll < 0.2) { timestamp = prng.uint32(); label = { case: 'timestamp-random' }; }
      const payload = signAdvert(signer, timestamp);
      if (roll > 0.75) {
        payload[36 + prng.int(64)] ^= 1 << prng.int(8); // one bit of the signature
        label = { expect: 'invalid', case: 'bad-signature' };
      } else if (roll > 0.7) {
        payload[100 + prng.int(payload.length - 100)] ^= 1; // app data changed after signing
        label = { expect: 'invalid', case: 'tampered-app-data' };
      }
      const raw = buildRaw(prng, 4, payload, 1, 0, true);
      yield { ...sane(prng, context, at, raw), ...label, pubKey: keyPair.publicKey.toString('hex') };
    }
  },

  /** GRP_TXT under random channel hashes (undecryptable) or random hashtag channels. */
  * randomChannels(prng, context) {
    for (let at = 0; ; at++) {
      let payload;
      let label;
      if (prng.chance(0.7)) {
        payload = prng.bytes(3 + 16 * (1 + prng.int(8))); // hash byte, MAC, ciphertext
        label = { expect: 'valid', case: 'random-channel-hash' };
      } else {
        const name = `#h${prng.uint32().toString(36)}`;
        const channel = channelCipher(describeChannels([name])[0]);
        payload = groupTextPayload(channel, `rand: ${hexOfLength(prng, 12)}`, Math.floor(START_TIME / 1000) + at);
        label = { expect: 'valid', case: 'random-hashtag', channel: { name, key: channelKeyFromName(name).toString('hex') } };
      }
      const hops = prng.int(8);
      yield { ...sane(prng, context, at, buildRaw(prng, 5, payload, 1 + prng.int(3), hops, true)), ...label };
    }
  },

  /** Ordinary packets with one extreme number: SNR, RSSI, score or time. */
  * extremeNumbers(prng, context) {
    const nonFinite = [NaN, Infinity, -Infinity];
    const extremes = [1e308, -1e308, Number.MAX_VALUE, -Number.MAX_VALUE, 5e-324, -0, 1e6, -1e6, 2 ** 53];
    const strings = ['1e308', '-1e308', 'NaN', 'Infinity', '12abc', '', '0x10'];
    const times = [8.64e15, 1e20, -1, 0, START_TIME + 10 * 365 * 86400e3, -8.64e15];
    for (let at = 0; ; at++) {
      const report = sane(prng, context, at, prng.pick(context.packets));
      const field = prng.pick(['snr', 'rssi', 'score', 'time']);
      const roll = prng.float();
      if (roll < 0.3) {
        report[field] = prng.pick(nonFinite);
        yield { ...report, expect: 'invalid', case: `${field}-non-finite` };
      } else if (roll < 0.7) {
        report[field] = field === 'time' ? prng.pick(times) : prng.pick(extremes);
        yield { ...report, case: `${field}-extreme` };
      } else {
        // Strings arrive from JSON; the report shape wants numbers, MQTT parsing converts them.
        report[field] = prng.pick(strings);
        yield { ...report, case: `${field}-string` };
      }
    }
  },

  /** Random hex of random lengths, odd lengths, non-hex characters, empty strings. */
  * randomBytes(prng, context) {
    for (let at = 0; ; at++) {
      const report = sane(prng, context, at, '');
      const roll = prng.float();
      if (roll < 0.5) {
        const bytes = 2 + prng.int(MAX_PACKET_BYTES - 1);
        report.raw = hexOfLength(prng, bytes * 2);
        yield { ...report, case: 'random-hex' }; // may happen to decode
      } else if (roll < 0.6) {
        report.raw = hexOfLength(prng, (MAX_PACKET_BYTES + 1 + prng.int(300)) * 2);
        yield { ...report, expect: 'invalid', case: 'too-long' };
      } else if (roll < 0.7) {
        report.raw = hexOfLength(prng, prng.int(2) * 2);
        yield { ...report, expect: 'invalid', case: 'too-short' };
      } else if (roll < 0.85) {
        report.raw = hexOfLength(prng, 1 + 2 * prng.int(200));
        yield { ...report, expect: 'invalid', case: 'odd-length' };
      } else {
        const hex = hexOfLength(prng, 2 + 2 * prng.int(100));
        const at2 = prng.int(hex.length);
        report.raw = hex.slice(0, at2) + prng.pick(['zz', 'G0', '--', ' 0', '\u00e90', '0x', '\u0000\u0000']) + hex.slice(at2 + 2);
        yield { ...report, expect: 'invalid', case: 'not-hex' };
      }
    }
  },

  /** Objects, arrays, numbers, 900 KB strings, unicode and control characters where strings belong. */
  * oddStrings(prng, context) {
    const oddValues = () => [{}, { toString: 'x' }, [], ['SEA'], 42, true, null, { $gt: '' }, JSON.parse('{"__proto__": {"polluted": 1}}')];
    for (let at = 0; ; at++) {
      const report = sane(prng, context, at, prng.pick(context.packets));
      const field = prng.pick(['observerName', 'region', 'direction', 'observerId']);
      const roll = prng.float();
      if (roll < 0.4) {
        const value = prng.pick(oddValues());
        report[field] = value;
        yield field === 'observerId' ? { ...report, expect: 'invalid', case: `${field}-not-string` } : { ...report, case: `${field}-not-string` };
      } else if (roll < 0.5) {
        report[field] = 'x'.repeat(900 * 1024);
        yield field === 'observerId' ? { ...report, expect: 'invalid', case: `${field}-900kb` } : { ...report, case: `${field}-900kb` };
      } else {
        report[field] = prng.pick(ODD_TEXT);
        yield { ...report, case: `${field}-odd-text` };
      }
    }
  },
};

/** Names of the hostile classes, in a fixed order. */
const HOSTILE_CLASSES = Object.freeze(Object.keys(generators));

/**
 * Reports of one class, deterministic from `seed`. `count` (default Infinity) ends the stream.
 * Every class shares the seed's small base world (observers, ordinary packets).
 */
function* hostileStream(className, { seed = 1, count = Infinity } = {}) {
  const generator = generators[className];
  if (!generator) throw new Error(`hostile: unknown class ${JSON.stringify(className)} (known: ${HOSTILE_CLASSES.join(', ')})`);
  const prng = createPrng(`hostile/${seed}`).fork(className);
  const inner = generator(prng, baseContext(seed));
  for (let i = 0; i < count; i++) yield inner.next().value;
}

/** The first `count` reports of a class, as an array. */
function hostileReports(className, count, options = {}) {
  return Array.from(hostileStream(className, { ...options, count }));
}

// JSON has no NaN or Infinity: send them as strings, as a misbehaving observer might.
const jsonNumbers = (key, value) => (typeof value === 'number' && !Number.isFinite(value) ? String(value) : value);

/**
 * A report as an observer would publish it over MQTT: topic `meshcore/<region>/<id>/packets`
 * and a JSON payload with the fields observer-message.js reads (time as epoch ms).
 */
function toMqttMessage(report) {
  const body = {
    raw: report.raw,
    SNR: report.snr,
    RSSI: report.rssi,
    score: report.score,
    direction: report.direction,
    origin: report.observerName,
    timestamp: report.time,
  };
  // A topic is text: odd values (objects, numbers) become their JSON, as a careless client's would.
  const segment = (value) => (typeof value === 'string' ? value : JSON.stringify(value) ?? 'undefined');
  return { topic: `meshcore/${segment(report.region)}/${segment(report.observerId)}/packets`, payload: JSON.stringify(body, jsonNumbers) };
}

module.exports = { hostileStream, hostileReports, toMqttMessage, HOSTILE_CLASSES };
