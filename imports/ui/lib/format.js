'use strict';
/** Formatting shared by every page: numbers, signal figures, times and ages, keys. */

const numberFormat = new Intl.NumberFormat('en-US');

function isNumber(value) {
  return typeof value === 'number' && Number.isFinite(value);
}

/** 12345 -> "12,345"; null/undefined -> "—". */
function formatNumber(value) {
  return isNumber(value) ? numberFormat.format(value) : '—';
}

function formatDecimal(value, digits = 1) {
  return isNumber(value) ? value.toFixed(digits) : '—';
}

function formatDb(value, unit = 'dB') {
  return isNumber(value) ? `${value.toFixed(1)} ${unit}` : '—';
}

function formatPct(value, digits = 1) {
  return isNumber(value) ? `${value.toFixed(digits)}%` : '—';
}

/** A duration in ms, short: "850 ms", "4.2 s", "12 min", "3.5 h", "2.0 d". */
function formatDuration(ms) {
  if (!isNumber(ms)) return '—';
  const abs = Math.abs(ms);
  if (abs < 1000) return `${Math.round(ms)} ms`;
  if (abs < 60000) return `${(ms / 1000).toFixed(1)} s`;
  if (abs < 3600000) return `${Math.round(ms / 60000)} min`;
  if (abs < 86400000) return `${(ms / 3600000).toFixed(1)} h`;
  return `${(ms / 86400000).toFixed(1)} d`;
}

/** "4.2 s ago" from a timestamp and the current time. */
function formatAgo(time, now) {
  if (!isNumber(time)) return '—';
  const age = Math.max(0, now - time);
  return age < 1000 ? 'just now' : `${formatDuration(age)} ago`;
}

function pad(value) {
  return String(value).padStart(2, '0');
}

/** Local wall-clock time "14:03:27". */
function formatClock(time) {
  if (!isNumber(time)) return '—';
  const date = new Date(time);
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/** Local "2026-11-21 14:03". */
function formatDateTime(time) {
  if (!isNumber(time)) return '—';
  const date = new Date(time);
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** Local "14:00" for hour buckets, "Nov 21" when the range spans days. */
function formatHour(time, withDay = false) {
  if (!isNumber(time)) return '—';
  const date = new Date(time);
  if (withDay) return `${date.toLocaleString('en-US', { month: 'short' })} ${date.getDate()}`;
  return `${pad(date.getHours())}:00`;
}

/** First characters of a public key or observer id, lower case: "1a4a6b8d". */
function shortKey(key, length = 8) {
  return typeof key === 'string' ? key.slice(0, length).toLowerCase() : '—';
}

function formatBytes(bytes) {
  if (!isNumber(bytes)) return '—';
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1048576) return `${(bytes / 1024).toFixed(1)} KiB`;
  if (bytes < 1073741824) return `${(bytes / 1048576).toFixed(1)} MiB`;
  return `${(bytes / 1073741824).toFixed(2)} GiB`;
}

/** A link length: "850 m" under 1 km, "4.26 km" under 10, "12.3 km" under 100, "142 km" beyond. */
function formatKm(km) {
  if (!isNumber(km)) return '—';
  if (km < 1) return `${Math.round(km * 1000)} m`;
  if (km < 10) return `${km.toFixed(2)} km`;
  if (km < 100) return `${km.toFixed(1)} km`;
  return `${numberFormat.format(Math.round(km))} km`;
}

module.exports = {
  isNumber, formatNumber, formatDecimal, formatDb, formatPct, formatDuration, formatAgo,
  formatClock, formatDateTime, formatHour, shortKey, formatBytes, formatKm,
};
