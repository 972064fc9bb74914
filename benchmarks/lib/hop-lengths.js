'use strict';
/**
 * Path lengths of observer reports: how many hops each report's path shows. Issue 8 asks for
 * "realistic path lengths" in the large profile, and its ingest target turns on them
 * (benchmarks/mesh-factors.js): this puts a mesh's lengths beside those of real traffic.
 *
 * TRACE reports are left out on every side: their path bytes carry SNRs, not hops (decode.js).
 * Also the hop hash sizes (1, 2 or 3 bytes): the share of multi-byte hashes decides how many
 * distinct keys and paths a mesh's views hold.
 */
const { decodePacket } = require('../../imports/core/decode');
// The 250 real transmissions the tests check decoding against: one public mesh, one day.
// Absent on a machine without the shared fixtures.
const { loadFixture, FIXTURE_PATH: REAL_CAPTURE_PATH } = require('../../tests/helpers/mesh');

const TRACE = 9;
const HISTOGRAM_TOP = 8; // bins 0..7 hops, then 8 or more

const round = (value, digits = 3) => Math.round(value * 10 ** digits) / 10 ** digits;

/**
 * { reports, mean, mean_ci95: [low, high] (normal approximation), median, p90, max,
 * share_5_or_more, histogram: { '0': share, ..., '8+': share } } of a list of hop counts.
 */
function hopLengthSummary(lengths) {
  const n = lengths.length;
  if (n === 0) return { reports: 0 };
  const sorted = Float64Array.from(lengths).sort();
  let sum = 0;
  for (const length of lengths) sum += length;
  const mean = sum / n;
  let squares = 0;
  for (const length of lengths) squares += (length - mean) ** 2;
  const sd = n > 1 ? Math.sqrt(squares / (n - 1)) : 0;
  const margin = (1.96 * sd) / Math.sqrt(n);
  const rank = (q) => sorted[Math.min(n - 1, Math.ceil(q * n) - 1)];
  const histogram = {};
  for (let bin = 0; bin < HISTOGRAM_TOP; bin++) histogram[String(bin)] = 0;
  histogram[`${HISTOGRAM_TOP}+`] = 0;
  let fiveOrMore = 0;
  for (const length of lengths) {
    histogram[length >= HISTOGRAM_TOP ? `${HISTOGRAM_TOP}+` : String(length)]++;
    if (length >= 5) fiveOrMore++;
  }
  for (const bin of Object.keys(histogram)) histogram[bin] = round(histogram[bin] / n);
  return {
    reports: n,
    mean: round(mean, 2),
    mean_ci95: [round(mean - margin, 2), round(mean + margin, 2)],
    median: rank(0.5),
    p90: rank(0.9),
    max: sorted[n - 1],
    share_5_or_more: round(fiveOrMore / n),
    histogram,
  };
}

/** The capture file's decoded packets, TRACE and undecodable lines left out; null when the file is absent. */
function realCapturePackets(file) {
  const lines = loadFixture(file);
  if (lines === null) return null;
  const packets = [];
  for (const line of lines) {
    const decoded = decodePacket(line.raw_hex);
    if (!decoded.error && decoded.packet.payloadType !== TRACE) packets.push(decoded.packet);
  }
  return packets;
}

/** Hop counts of the real capture's reports (TRACE left out), or null when the file is absent. */
function realCaptureHopLengths(file = REAL_CAPTURE_PATH) {
  const packets = realCapturePackets(file);
  return packets === null ? null : packets.map((packet) => packet.hopCount);
}

/**
 * { reports, '1': share, '2': share, '3': share } of a list of hop hash sizes (bytes), one per
 * report with at least one hop: how many bytes each relay's hash takes (the originator's setting).
 */
function hashSizeShares(sizes) {
  const n = sizes.length;
  if (n === 0) return { reports: 0 };
  const counts = { 1: 0, 2: 0, 3: 0 };
  for (const size of sizes) counts[size]++;
  return { reports: n, 1: round(counts[1] / n), 2: round(counts[2] / n), 3: round(counts[3] / n) };
}

/** Hop hash sizes of the real capture's reports with at least one hop (TRACE left out), or null. */
function realCaptureHashSizes(file = REAL_CAPTURE_PATH) {
  const packets = realCapturePackets(file);
  return packets === null ? null : packets.filter((packet) => packet.hopCount > 0).map((packet) => packet.hashSize);
}

module.exports = { hopLengthSummary, realCaptureHopLengths, hashSizeShares, realCaptureHashSizes, REAL_CAPTURE_PATH, TRACE };
