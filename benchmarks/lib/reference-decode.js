'use strict';
/**
 * The reference library's decode-only rate, timed the one way every study compares against
 * (bench:core's main runs and rounds, advert-share): over every report the ingest takes, from a
 * cold start as the ingest's, its first 50k reports timed apart as the first stretch of the same
 * pass (the figure bench:core runs 1-10 compared against: a cold start, in run 11's rounds 3-23%
 * slower than over the whole 1M stream). Rates are per CPU-second of this process.
 */
const { MeshCorePacketDecoder } = require('@michaelhart/meshcore-decoder');

const REFERENCE_FIRST_REPORTS = 50000;

/** CPU seconds (user + system) of this process since `since` (a process.cpuUsage() value). */
function cpuSeconds(since) {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1e6;
}

/** { perS (every report), firstPerS (its first 50k alone), reports } of the reference decoding `reports`. */
function referenceDecodeRates(reports) {
  const firstCount = Math.min(REFERENCE_FIRST_REPORTS, reports.length);
  let started = process.cpuUsage();
  for (let i = 0; i < firstCount; i++) MeshCorePacketDecoder.decode(reports[i].raw);
  const firstSeconds = cpuSeconds(started);
  started = process.cpuUsage();
  for (let i = firstCount; i < reports.length; i++) MeshCorePacketDecoder.decode(reports[i].raw);
  const restSeconds = cpuSeconds(started);
  return { perS: reports.length / (firstSeconds + restSeconds), firstPerS: firstCount / firstSeconds, reports: reports.length };
}

/**
 * { perS, reports, groupTexts, decrypted } of the reference decoding `reports` with the channel
 * keys the ingest holds (`channels`: [{ name, key }] as createEngine takes them), so that it
 * decrypts the group texts the ingest decrypts. Beside the decode-only rate, never instead of
 * it: issue 8's target is read on the decode-only figure. `decrypted` counts the group texts
 * the library did decrypt, so a key format it did not take shows as 0 rather than as a fast rate.
 */
function referenceDecodeWithKeysRate(reports, channels) {
  const keyStore = MeshCorePacketDecoder.createKeyStore({ channelSecrets: channels.map((channel) => channel.key) });
  const options = { keyStore };
  let groupTexts = 0;
  let decrypted = 0;
  const started = process.cpuUsage();
  for (let i = 0; i < reports.length; i++) {
    const packet = MeshCorePacketDecoder.decode(reports[i].raw, options);
    if (packet.payloadType === GROUP_TEXT) {
      groupTexts++;
      if (packet.payload && packet.payload.decoded && packet.payload.decoded.decrypted) decrypted++;
    }
  }
  return { perS: reports.length / cpuSeconds(started), reports: reports.length, groupTexts, decrypted };
}

const GROUP_TEXT = 5; // GRP_TXT

module.exports = { referenceDecodeRates, referenceDecodeWithKeysRate, cpuSeconds, REFERENCE_FIRST_REPORTS };
