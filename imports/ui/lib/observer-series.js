'use strict';
/**
 * Chart series for the Observer page from its status history (oldest first, as the `observer`
 * view sends it): battery in volts, noise floor, and per interval between two consecutive
 * statuses the transmit/receive airtime share and the radio errors counted. A counter that went
 * down (the observer rebooted) starts a new run: that interval has no value rather than a
 * negative one.
 */

const { formatNumber } = require('./format');

/** Share (%) of `uptimeSecs` spent on air, or null. */
function airtimePct(airSecs, uptimeSecs) {
  return Number.isFinite(airSecs) && Number.isFinite(uptimeSecs) && uptimeSecs > 0 ? (100 * airSecs) / uptimeSecs : null;
}

/** Increase of a counter between two statuses, or null when either is missing or it went down. */
function increase(before, after) {
  return Number.isFinite(before) && Number.isFinite(after) && after >= before ? after - before : null;
}

function statusSeries(history) {
  const battery = [];
  const noise = [];
  const txPct = [];
  const rxPct = [];
  const errors = [];
  (history || []).forEach((sample, i) => {
    battery.push({ x: sample.time, y: Number.isFinite(sample.batteryMv) ? sample.batteryMv / 1000 : null });
    noise.push({ x: sample.time, y: Number.isFinite(sample.noiseFloorDbm) ? sample.noiseFloorDbm : null });
    if (i === 0) return;
    const previous = history[i - 1];
    const upDelta = increase(previous.uptimeSecs, sample.uptimeSecs);
    const share = (before, after) => {
      const air = increase(before, after);
      return air !== null && upDelta ? Math.min(100, (100 * air) / upDelta) : null;
    };
    txPct.push({ x: sample.time, y: share(previous.txAirSecs, sample.txAirSecs) });
    rxPct.push({ x: sample.time, y: share(previous.rxAirSecs, sample.rxAirSecs) });
    errors.push({ x: sample.time, y: increase(previous.radioErrors, sample.radioErrors) });
  });
  return { battery, noise, txPct, rxPct, errors };
}

/** The SNR bins ({ snr, count }) as bars, every whole dB between the lowest and highest shown. */
function snrBars(bins) {
  if (!bins || bins.length === 0) return [];
  const byDb = new Map(bins.map((bin) => [bin.snr, bin.count]));
  const bars = [];
  for (let db = bins[0].snr; db <= bins[bins.length - 1].snr; db++) bars.push({ label: String(db), value: byDb.get(db) || 0, title: `${db} to ${db + 1} dB: ${formatNumber(byDb.get(db) || 0)}` });
  return bars;
}

module.exports = { statusSeries, airtimePct, snrBars };
