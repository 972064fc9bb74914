'use strict';
/**
 * The Perf page's figures, from successive health documents (the `perf` view): one sample per
 * document, with CPU turned into a share of one core from the change in `cpu.user + cpu.system`
 * (microseconds) over the change in `generatedAt` (ms). Plus the rows of the input-health tables.
 *
 * The server keeps a history too (imports/core/perf.js: one sample per 5 s for the last hour,
 * in the document's `perf.history`), so the charts start full: mergeServerHistory() puts its
 * samples before (and, after a gap, after) the ones this tab collected.
 */

function finite(value) {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function pick(object, ...keys) {
  let value = object;
  for (const key of keys) {
    if (!value || typeof value !== 'object') return null;
    value = value[key];
  }
  return finite(value);
}

/** One sample of a health document; `previous` is the sample before it (for CPU %), or null. */
function perfSample(doc, previous) {
  const cpu = doc.perf && doc.perf.cpu;
  const cpuMicros = cpu ? (finite(cpu.user) || 0) + (finite(cpu.system) || 0) : null;
  let cpuPct = null;
  if (previous && previous.cpuMicros !== null && cpuMicros !== null && doc.generatedAt > previous.time) {
    // Over a restart the counter goes back: no figure rather than a negative one.
    const delta = cpuMicros - previous.cpuMicros;
    if (delta >= 0) cpuPct = (100 * (delta / 1000)) / (doc.generatedAt - previous.time);
  }
  return {
    time: doc.generatedAt,
    cpuMicros,
    cpuPct,
    rssMB: pick(doc, 'perf', 'memory', 'rssMB'),
    heapUsedMB: pick(doc, 'perf', 'memory', 'heapUsedMB'),
    loopP50Ms: pick(doc, 'perf', 'eventLoopDelayMs', 'p50'),
    loopP99Ms: pick(doc, 'perf', 'eventLoopDelayMs', 'p99'),
    ingestPerSecond: pick(doc, 'ingest', 'ratePerSecond', 'last10s'),
    queueDepth: pick(doc, 'ingest', 'queue', 'depth'),
    publishP50Ms: pick(doc, 'publish', 'snapshotMs', 'p50'),
    publishP95Ms: pick(doc, 'publish', 'snapshotMs', 'p95'),
    methodP50Ms: pick(doc, 'perf', 'methodMs', 'p50'),
    methodP95Ms: pick(doc, 'perf', 'methodMs', 'p95'),
    methodCalls: pick(doc, 'perf', 'methodMs', 'count'),
    transmissions: pick(doc, 'store', 'transmissions'),
  };
}

/** Append a sample to a bounded history (oldest dropped); the same `generatedAt` twice is skipped. */
function appendSample(history, doc, maxSamples) {
  const last = history.length ? history[history.length - 1] : null;
  if (!doc || !Number.isFinite(doc.generatedAt) || (last && last.time === doc.generatedAt)) return history;
  const next = history.length >= maxSamples ? history.slice(history.length - maxSamples + 1) : history.slice();
  next.push(perfSample(doc, last && doc.generatedAt > last.time ? last : null));
  return next;
}

/** CPU share of one core between two samples, or null (a restart makes the counter go back). */
function cpuShare(sample, previous) {
  if (!previous || previous.cpuMicros === null || sample.cpuMicros === null || !(sample.time > previous.time)) return null;
  const delta = sample.cpuMicros - previous.cpuMicros;
  return delta >= 0 ? (100 * (delta / 1000)) / (sample.time - previous.time) : null;
}

/** Samples from the server's history (`perf.history`: { fields, rows }), oldest first, CPU % filled in. */
function serverSamples(history) {
  if (!history || !Array.isArray(history.fields) || !Array.isArray(history.rows)) return [];
  const samples = [];
  for (const row of history.rows) {
    if (!Array.isArray(row)) continue;
    const sample = {};
    history.fields.forEach((name, i) => { sample[name] = finite(row[i]); });
    if (sample.time === null) continue;
    sample.cpuMicros = sample.cpuMicros === undefined ? null : sample.cpuMicros;
    sample.cpuPct = cpuShare(sample, samples[samples.length - 1]);
    samples.push(sample);
  }
  return samples;
}

/**
 * `history` with the server's samples (from a health document) that it lacks: those older than
 * its first sample while it has room, and those newer than its last (the tab was away). Returns
 * `history` itself when nothing is added.
 */
function mergeServerHistory(history, doc, maxSamples) {
  // `perfHistory` at the top level, where the server sends it apart from the rest of `perf`.
  const server = serverSamples(doc && (doc.perfHistory || (doc.perf && doc.perf.history)));
  if (server.length === 0) return history;
  if (history.length === 0) return server.slice(Math.max(0, server.length - maxSamples));
  const first = history[0].time;
  const last = history[history.length - 1].time;
  const room = maxSamples - history.length;
  const older = room > 0 ? server.filter((sample) => sample.time < first) : [];
  const newer = server.filter((sample) => sample.time > last);
  if (older.length === 0 && newer.length === 0) return history;
  const merged = [...older.slice(Math.max(0, older.length - room)), ...history, ...newer];
  // CPU % across a join is taken over the two samples that now meet.
  const joinAt = [older.length ? older.length : -1, history.length + (older.length ? older.length : 0)];
  for (const at of joinAt) if (at > 0 && at < merged.length) merged[at] = { ...merged[at], cpuPct: cpuShare(merged[at], merged[at - 1]) };
  return merged.length > maxSamples ? merged.slice(merged.length - maxSamples) : merged;
}

/** [{ x: time, y }] of one field, for TimeSeriesChart. */
function seriesOf(history, field) {
  return history.map((sample) => ({ x: sample.time, y: sample[field] }));
}

/**
 * Rejections by reason from the store (`rejectReasons`: bad_signature, bad_snr, bad_region ...)
 * and the pipeline (`rejectedByReason`, before the store), largest first.
 */
function rejectRows(store, ingest) {
  const rows = [];
  for (const [where, reasons] of [['store', store && store.rejectReasons], ['pipeline', ingest && ingest.rejectedByReason]]) {
    for (const [reason, count] of Object.entries(reasons || {})) if (finite(count) !== null) rows.push({ key: `${where}:${reason}`, where, reason, count });
  }
  return rows.sort((a, b) => b.count - a.count || (a.key < b.key ? -1 : 1));
}

/** The memory account's parts in bytes, largest first, each with its share of the budget (%). */
function memoryPartRows(store) {
  const parts = (store && store.memoryParts) || {};
  const budget = finite(store && store.memoryBudgetBytes);
  return Object.entries(parts).filter(([, bytes]) => finite(bytes) !== null)
    .map(([part, bytes]) => ({ part, bytes, budgetPct: budget ? (100 * bytes) / budget : null }))
    .sort((a, b) => b.bytes - a.bytes || (a.part < b.part ? -1 : 1));
}

module.exports = { perfSample, appendSample, serverSamples, mergeServerHistory, seriesOf, rejectRows, memoryPartRows };
