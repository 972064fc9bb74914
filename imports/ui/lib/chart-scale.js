'use strict';
/** Axis maths for the SVG charts: linear scales and "nice" tick values. */

/** Maps [domainMin, domainMax] onto [rangeMin, rangeMax]; a flat domain maps to the middle. */
function linearScale(domainMin, domainMax, rangeMin, rangeMax) {
  const span = domainMax - domainMin;
  if (!(span > 0)) return () => (rangeMin + rangeMax) / 2;
  const k = (rangeMax - rangeMin) / span;
  return (value) => rangeMin + (value - domainMin) * k;
}

/** About `count` round tick values covering [min, max] (steps of 1, 2 or 5 x 10^n). */
function niceTicks(min, max, count = 5) {
  if (!Number.isFinite(min) || !Number.isFinite(max)) return [];
  if (min === max) return [min];
  const raw = (max - min) / Math.max(1, count);
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) || 10 * magnitude;
  const ticks = [];
  for (let tick = Math.ceil(min / step) * step; tick <= max + step * 1e-9; tick += step) {
    ticks.push(Number(tick.toFixed(10)));
  }
  return ticks;
}

/** [min, max] of values (ignoring null), padded to include `include` (e.g. 0 for bar charts). */
function extent(values, include) {
  let min = Infinity;
  let max = -Infinity;
  for (const value of values) {
    if (value === null || value === undefined || !Number.isFinite(value)) continue;
    if (value < min) min = value;
    if (value > max) max = value;
  }
  if (include !== undefined) {
    min = Math.min(min, include);
    max = Math.max(max, include);
  }
  if (min === Infinity) return [0, 1];
  if (min === max) return [min - 1, max + 1];
  return [min, max];
}

/** A label formatter with just enough decimals for the step between ticks (0.2 -> "0.2", 500 -> "500"). */
function tickFormatter(ticks) {
  const step = ticks.length > 1 ? Math.abs(ticks[1] - ticks[0]) : 1;
  const decimals = step > 0 ? Math.max(0, Math.min(4, -Math.floor(Math.log10(step) + 1e-9))) : 0;
  const format = new Intl.NumberFormat('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
  return (value) => format.format(value);
}

module.exports = { linearScale, niceTicks, extent, tickFormatter };
