'use strict';
/**
 * A small seeded pseudo-random generator (sfc32) for reproducible simulations.
 *
 * Why not Math.random: a simulated mesh must replay byte for byte from its seed. sfc32 is
 * fast in plain JavaScript (32-bit integer ops only) and passes PractRand; it is not for
 * cryptography. The seed (number or string) is stretched with SHA-256 into the 128-bit
 * state, so nearby seeds give unrelated streams, and `fork(label)` derives an independent
 * stream per purpose (world layout, keys, traffic) so that changing one does not shift another.
 */
const crypto = require('crypto');

const TWO_POW_32 = 4294967296;

function createPrng(seed = 1) {
  const seedText = String(seed);
  const digest = crypto.createHash('sha256').update(seedText, 'utf8').digest();
  let a = digest.readUInt32LE(0);
  let b = digest.readUInt32LE(4);
  let c = digest.readUInt32LE(8);
  let d = digest.readUInt32LE(12) | 1;

  function uint32() {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  }
  // Discard the first outputs: they still correlate with the raw seed words.
  for (let i = 0; i < 12; i++) uint32();

  /** Uniform in [0, 1). */
  function float() {
    return uint32() / TWO_POW_32;
  }

  /** Uniform integer in [0, n). */
  function int(n) {
    return Math.floor(float() * n);
  }

  /** Uniform integer in [min, max] (both inclusive). */
  function between(min, max) {
    return min + int(max - min + 1);
  }

  function chance(probability) {
    return float() < probability;
  }

  function pick(array) {
    return array[int(array.length)];
  }

  /** Standard normal deviate (Box-Muller; one value per call keeps the stream simple). */
  function gaussian() {
    const u = 1 - float();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * float());
  }

  /** Exponentially distributed value with the given mean (gaps between Poisson arrivals). */
  function exponential(mean) {
    return -Math.log(1 - float()) * mean;
  }

  /** Fill buffer[start, end) with random bytes. */
  function fill(buffer, start = 0, end = buffer.length) {
    let at = start;
    while (at + 4 <= end) {
      buffer.writeUInt32LE(uint32(), at);
      at += 4;
    }
    if (at < end) {
      let word = uint32();
      while (at < end) {
        buffer[at++] = word & 0xff;
        word >>>= 8;
      }
    }
    return buffer;
  }

  function bytes(length) {
    return fill(Buffer.allocUnsafe(length));
  }

  /** An independent generator for one purpose, derived from this seed and a label. */
  function fork(label) {
    return createPrng(`${seedText}/${label}`);
  }

  return { seed: seedText, uint32, float, int, between, chance, pick, gaussian, exponential, fill, bytes, fork };
}

/**
 * Weighted choice: `entries` is an object { value: weight } or an array of [value, weight].
 * Returns `pick(prng)`; values come back as given (object keys are strings).
 */
function weightedPicker(entries) {
  const pairs = Array.isArray(entries) ? entries : Object.entries(entries);
  const values = [];
  const cumulative = [];
  let total = 0;
  for (const [value, weight] of pairs) {
    if (!(weight > 0)) continue;
    total += weight;
    values.push(value);
    cumulative.push(total);
  }
  if (values.length === 0) throw new Error('weightedPicker needs at least one positive weight');
  return function pick(prng) {
    const target = prng.float() * total;
    for (let i = 0; i < cumulative.length; i++) if (target < cumulative[i]) return values[i];
    return values[values.length - 1];
  };
}

module.exports = { createPrng, weightedPicker };
