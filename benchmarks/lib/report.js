'use strict';
/** Shared helpers for benchmark scripts: percentiles and JSON -> Markdown rendering. */

/** Nearest-rank percentile of an ascending-sorted array. */
function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

const fmt = (value) => (value === null || value === undefined ? 'n/a' : typeof value === 'number' ? value.toLocaleString('en-US') : String(value));

function verdict(ok) {
  return ok ? 'met' : '**missed**';
}

function renderCoreReport(result, quickResult) {
  const large = result.quick ? '100k' : '1m';
  const lines = [];
  lines.push('# Core engine benchmark', '');
  lines.push(`Generated from \`benchmarks/results/${result.quick ? 'core-quick' : 'core'}.json\` by \`${result.command}\` on ${result.date}.`);
  lines.push(`Machine: ${result.machine.cpus} cores (${result.machine.cpu}), ${result.machine.memoryGiB} GiB, Node ${result.machine.node}. One process, one core.`);
  lines.push(`Traffic: the seeded simulator (seed 2026), ${fmt(result.packets)} observer reports = ${fmt(result.transmissions)} transmissions. "Packet" = one observer report (one MQTT message).`, '');
  lines.push('| figure | measured | target | |', '|---|---|---|---|');
  lines.push(`| decode only | ${fmt(result.decode_only_per_s)} packets/s | | |`);
  if (result.reference_library_decode_only_per_s) lines.push(`| decode only, reference library (@michaelhart/meshcore-decoder), for context | ${fmt(result.reference_library_decode_only_per_s)} packets/s | | |`);
  lines.push(`| ingest (decode + dedup + store + every view) | ${fmt(result.ingest_per_s)} packets/s | ≥ 25,000 | ${verdict(result.ingest_per_s >= 25000)} |`);
  lines.push(`| ingest / decode only | ${result.ingest_to_decode_ratio} | ≥ 0.35 | ${verdict(result.ingest_to_decode_ratio >= 0.35)} |`);
  lines.push(`| ingest flatness (last 100k / first 100k) | ${result.ingest_flatness} | ≥ 0.8${result.quick ? ' (over 1M)' : ''} | ${verdict(result.ingest_flatness >= 0.8)} |`);
  lines.push(`| heap per packet, all indexes and views | ${fmt(result.bytes_per_packet)} bytes (${fmt(result.bytes_per_transmission)} per transmission) | ≤ 400 at 1M | ${verdict(result.bytes_per_packet <= 400)} |`);
  lines.push('', `Ingest rate per 100k chunk: ${result.chunk_rates_per_s.map(fmt).join(', ')}.`, '');
  lines.push(`## Snapshot latency per view (ms; target p99 ≤ 5 at 28k, ≤ 50 at 1M)`, '');
  lines.push('Wall-clock latency; "CPU p99" is this process\'s CPU time over the same calls, which a busy neighbour process cannot inflate (it still includes our own GC).', '');
  lines.push(`| view | p50 28k | p99 28k | CPU p99 28k | p50 ${large} | p99 ${large} | CPU p99 ${large} | | params measured |`, '|---|---|---|---|---|---|---|---|---|');
  for (const [name, v] of Object.entries(result.views)) {
    const p99Large = v[`p99_ms_${large}`];
    const over = [];
    if (v.p99_ms_28k > 5) over.push('28k over');
    if (p99Large > 50) over.push(`${large} over`);
    lines.push(`| ${name} | ${v.p50_ms_28k} | ${v.p99_ms_28k} | ${v.cpu_p99_ms_28k ?? 'n/a'} | ${v[`p50_ms_${large}`]} | ${p99Large} | ${v[`cpu_p99_ms_${large}`] ?? 'n/a'} | ${over.length ? `**${over.join(', ')}**` : 'met'} | ${v.params.join(', ')} |`);
  }
  lines.push('', `Samples per view and size: ${Object.values(result.views)[0].samples || 'n/a'} (every params set, interleaved). Load average at the end of the run: ${(result.load_average || []).join(', ')}.`);
  if (quickResult && quickResult !== result) {
    lines.push('', `A quick run (\`npm run bench:core -- --quick\`, 100k) is in \`results/core-quick.json\`.`);
  }
  lines.push('');
  return lines.join('\n');
}

module.exports = { percentile, renderCoreReport, fmt };

function renderServerReport(result) {
  const reloadKey = result.quick ? 'reload_100k_s' : 'reload_1m_s';
  const s = result.sustained;
  const lines = ['# Server benchmark (Node-measurable parts)', ''];
  lines.push(`Generated from \`benchmarks/results/${result.quick ? 'server-quick' : 'server'}.json\` by \`${result.command}\` on ${result.date}.`);
  lines.push(`Machine: ${result.machine.cpus} cores, ${result.machine.memoryGiB} GiB, Node ${result.machine.node}; MongoDB: ${result.mongo}. Load average at the end: ${result.load_average.join(', ')}.`, '');
  lines.push('| figure | measured | target | |', '|---|---|---|---|');
  const reloadVerdict = result.quick ? 'quick run: the target is for 1M' : verdict(result[reloadKey] <= 60 && result.reload.complete);
  lines.push(`| reload of ${fmt(result.reload.transmissions)} stored transmissions (${fmt(result.reload.observations)} observations) | ${result[reloadKey]} s${result.reload.reload_engine_s !== undefined ? ` (engine replay ${result.reload.reload_engine_s} s, reading MongoDB ${result.reload.reload_reading_s} s)` : ''} | ≤ 60 s for 1M | ${reloadVerdict} |`);
  lines.push(`| sustained ingest with write-behind (observations written / s, offered ${fmt(s.offered_per_s)}/s for ${s.seconds} s) | ${fmt(s.sustained_ingest_per_s)} | keeps pace with 2,000 | ${verdict(s.sustained_ingest_per_s >= 0.95 * s.offered_per_s && s.overflowed === 0)} |`);
  lines.push(`| max write backlog (pending writes) | ${fmt(s.max_backlog)} (second half max ${fmt(s.backlog_second_half_max)}; drained ${s.drain_after_stop_s} s after the feed stopped) | bounded | ${verdict(s.overflowed === 0 && s.failed === 0)} |`);
  const measured = (value) => value !== null && value !== undefined;
  lines.push(`| bytes per subscriber (server RSS growth per DDP client subscribed, NO_MERGE on) | ${measured(result.bytes_per_subscriber) ? fmt(result.bytes_per_subscriber) : 'not measured'} | ≤ 100 KB | ${measured(result.bytes_per_subscriber) ? verdict(result.bytes_per_subscriber <= 102400) : ''} |`);
  lines.push(`| fan-out CPU ratio, 1,000 vs 1 subscriber, same updates | ${measured(result.fanout_cpu_ratio_1000) ? result.fanout_cpu_ratio_1000 : 'not measured'} | ≤ 5 | ${measured(result.fanout_cpu_ratio_1000) ? verdict(result.fanout_cpu_ratio_1000 <= 5) : ''} |`);
  lines.push('', result.fanout_source ? `The last two rows come from ${result.fanout_source}; see [FANOUT.md](FANOUT.md).` : (result.not_measured_here || ''), '');
  return lines.join('\n');
}

module.exports.renderServerReport = renderServerReport;
