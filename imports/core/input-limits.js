'use strict';
/**
 * What an observer report may carry before it reaches the store, and why it is refused.
 *
 * Anyone on a public mesh can transmit any bytes and any observer can publish any JSON, so every
 * field is checked for type, range and length here, once, before anything is stored or counted
 * by a view. A report outside these limits is refused whole with a typed reason (the pipeline
 * counts it and keeps it in its dropped ring); nothing is silently clamped, so what a view shows
 * is always what a radio reported.
 *
 * The ranges are what a LoRa radio can report, with margin:
 *   SNR   -32 .. +32 dB   SX126x/SX127x report packet SNR as a signed byte in quarter dB
 *                         (-32 .. +31.75); anything outside is not a radio reading.
 *   RSSI  -200 .. 0 dBm   the chips report -164 .. 0; a positive or lower figure is not real.
 *   score 0 .. 1000       the firmware's packet score (meshcoretomqtt sends 0 .. 1000).
 *   time  2020-01-01 .. now + 10 min   MeshCore did not exist before 2020; a report from the
 *                         future beyond clock skew would pin "last heard" figures.
 */
const INPUT_LIMITS = Object.freeze({
  snr: Object.freeze({ min: -32, max: 32 }),
  rssi: Object.freeze({ min: -200, max: 0 }),
  score: Object.freeze({ min: 0, max: 1000 }),
  earliestTime: Date.UTC(2020, 0, 1),
  futureToleranceMs: 10 * 60 * 1000,
  observerIdLength: 128,
  observerNameLength: 64,
  regionLength: 64,
  directionLength: 8,
});

/** Typed reasons for reports refused before decoding (decode errors come from decode.js). */
const INPUT_ERRORS = Object.freeze({
  bad_observer: `observer id missing, not a string, longer than ${INPUT_LIMITS.observerIdLength} characters or holding control characters`,
  bad_observer_name: `observer name is not a string of at most ${INPUT_LIMITS.observerNameLength} printable characters`,
  bad_region: `region is not a string of at most ${INPUT_LIMITS.regionLength} printable characters`,
  bad_direction: `direction is not a string of at most ${INPUT_LIMITS.directionLength} characters`,
  bad_snr: `SNR is not a number in ${INPUT_LIMITS.snr.min} .. ${INPUT_LIMITS.snr.max} dB`,
  bad_rssi: `RSSI is not a number in ${INPUT_LIMITS.rssi.min} .. ${INPUT_LIMITS.rssi.max} dBm`,
  bad_score: `score is not a number in ${INPUT_LIMITS.score.min} .. ${INPUT_LIMITS.score.max}`,
  bad_time: 'time is not a finite number of milliseconds between 2020-01-01 and 10 minutes from now',
  bad_raw: 'raw packet is not a hex string or a Buffer',
});

// C0/C1 control characters and the line/paragraph separators: never part of a name or an id.
const CONTROL_RE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

function fail(reason, detail) {
  return { reason, message: detail ? `${INPUT_ERRORS[reason]} (${detail})` : INPUT_ERRORS[reason] };
}

function isAbsent(value) {
  return value === undefined || value === null;
}

function checkText(value, maxLength) {
  return typeof value === 'string' && value.length <= maxLength && !CONTROL_RE.test(value);
}

function describe(value) {
  if (typeof value === 'string') return value.length > 40 ? `string of ${value.length} characters` : JSON.stringify(value);
  if (typeof value === 'number') return String(value);
  return Array.isArray(value) ? 'an array' : typeof value;
}

/** null, or the failure for a present `value` that is not a number in `limits` (INPUT_LIMITS.snr ...). */
function checkRange(value, limits, reason) {
  if (isAbsent(value)) return null;
  if (typeof value !== 'number' || !(value >= limits.min && value <= limits.max)) return fail(reason, describe(value));
  return null;
}

/**
 * Check one report against the limits. `knownObserver` is the directory entry for its observer
 * id when there is one: a report repeating the entry's own name and region needs no string scan
 * (the hot path: most reports come from a handful of observers). Returns null or { reason, message }.
 */
function checkReport(report, now, knownObserver = null) {
  if (!report || typeof report !== 'object') return fail('bad_observer', 'report is not an object');
  const raw = report.raw;
  if (typeof raw !== 'string' && !Buffer.isBuffer(raw)) return fail('bad_raw', describe(raw));
  const observerId = report.observerId;
  if (knownObserver === null) {
    if (typeof observerId !== 'string' || observerId.length === 0 || !checkText(observerId, INPUT_LIMITS.observerIdLength)) {
      return fail('bad_observer', describe(observerId));
    }
  }
  const name = report.observerName;
  if (!isAbsent(name) && (knownObserver === null || name !== knownObserver.name) && !checkText(name, INPUT_LIMITS.observerNameLength)) {
    return fail('bad_observer_name', describe(name));
  }
  const region = report.region;
  if (!isAbsent(region) && (knownObserver === null || region !== knownObserver.region) && !checkText(region, INPUT_LIMITS.regionLength)) {
    return fail('bad_region', describe(region));
  }
  const direction = report.direction;
  if (!isAbsent(direction) && direction !== 'rx' && !checkText(direction, INPUT_LIMITS.directionLength)) return fail('bad_direction', describe(direction));
  // Each field read by name (a field chosen by a variable was a keyed lookup per report).
  const numberError = checkRange(report.snr, INPUT_LIMITS.snr, 'bad_snr') || checkRange(report.rssi, INPUT_LIMITS.rssi, 'bad_rssi') || checkRange(report.score, INPUT_LIMITS.score, 'bad_score');
  if (numberError) return numberError;
  const time = report.time;
  if (!isAbsent(time) && (typeof time !== 'number' || !(time >= INPUT_LIMITS.earliestTime && time <= now + INPUT_LIMITS.futureToleranceMs))) {
    return fail('bad_time', describe(time));
  }
  return null;
}

module.exports = { INPUT_LIMITS, INPUT_ERRORS, checkReport, checkText };
