'use strict';
/** Shared helpers for benchmark scripts: percentiles and JSON -> Markdown rendering. */

/** Nearest-rank percentile of an ascending-sorted array. */
function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

/** Median of the finite numbers in `values` (mean of the middle two when even), or null if none. */
function median(values) {
  const sorted = values.filter((v) => v !== null && v !== undefined && Number.isFinite(v)).sort((a, b) => a - b);
  if (!sorted.length) return null;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const fmt = (value) => (value === null || value === undefined ? 'n/a' : typeof value === 'number' ? value.toLocaleString('en-US') : String(value));

function verdict(ok) {
  return ok ? 'met' : '**missed**';
}

/**
 * Why a view's p99 is over, when the run recorded it: its first call (per params, the view's
 * code not yet optimized in that process) and the p99 of the calls after it. Empty for older runs.
 */
function firstCallsNote(v, size, limit) {
  const first = v[`first_call_ms_${size}`];
  const later = v[`p99_after_first_calls_ms_${size}`];
  if (first === undefined || later === undefined) return '';
  return ` (first call ${first}; later calls p99 ${later}${later <= limit ? '' : ', also over'})`;
}

function viewTable(lines, views, large) {
  lines.push(`| view | p50 28k | p99 28k | CPU p99 28k | p50 ${large} | p99 ${large} | CPU p99 ${large} | | params measured |`, '|---|---|---|---|---|---|---|---|---|');
  for (const [name, v] of Object.entries(views)) {
    const p99Large = v[`p99_ms_${large}`];
    const over = [];
    if (v.p99_ms_28k > 5) over.push(`28k over${firstCallsNote(v, '28k', 5)}`);
    if (p99Large > 50) over.push(`${large} over${firstCallsNote(v, large, 50)}`);
    lines.push(`| ${name} | ${v.p50_ms_28k} | ${v.p99_ms_28k} | ${v.cpu_p99_ms_28k ?? 'n/a'} | ${v[`p50_ms_${large}`]} | ${p99Large} | ${v[`cpu_p99_ms_${large}`] ?? 'n/a'} | ${over.length ? over.map((text) => `**${text}**`).join(', ') : 'met'} | ${v.params.join(', ')} |`);
  }
}

/** How the run used the machine's cores (runs before `cores_available` was recorded: pinned to one by hand). */
function coresNote(result) {
  if (result.cores_available === undefined) return 'One process, one core. Rates are per CPU-second of this process.';
  const rounds = result.ingest_rounds && result.ingest_rounds.pinned_to_core !== undefined && result.ingest_rounds.pinned_to_core !== null
    ? ` The ingest rounds each ran in a process pinned to core ${result.ingest_rounds.pinned_to_core}.` : '';
  const helpers = result.cores_available > 1
    ? `This process could use ${result.cores_available} cores: its main thread measures on one, V8's helper threads (JIT compiles, GC) run beside it, as in a server on any multi-core box.`
    : 'This process was pinned to one core: V8\'s helper threads (JIT compiles, GC) take turns with the main thread, so a background compile can show in a snapshot\'s wall time.';
  return `Rates are per CPU-second of the measuring process (every thread of it). ${helpers}${rounds}`;
}

function renderCoreReport(result, quickResult) {
  const large = result.quick ? '100k' : '1m';
  const lines = [];
  lines.push('# Core engine benchmark', '');
  lines.push(`Generated from \`benchmarks/results/${result.quick ? 'core-quick' : 'core'}.json\` by \`${result.command}\` on ${result.date}.`);
  lines.push(`Machine: ${result.machine.cpus} cores (${result.machine.cpu}), ${result.machine.memoryGiB} GiB, Node ${result.machine.node}. ${coresNote(result)} Load average at the end: ${(result.load_average || []).join(', ')} (2 cores; above ~2 other work ran beside it).`);
  lines.push('"Packet" = one observer report (one MQTT message).', '');
  if (result.parts_from) lines.push(`Parts from ${['two', 'three', 'four', 'five'][Object.keys(result.parts_from).length - 2] || Object.keys(result.parts_from).length} runs: ${Object.entries(result.parts_from).map(([part, run]) => `${part} by \`${run.command}\` on ${run.date}`).join('; ')}.`, '');
  const profiles = result.profiles || {};
  const names = Object.keys(profiles);
  if (names.length > 0) {
    const base = profiles.default;
    const big = profiles.large;
    lines.push('## Both mesh profiles', '');
    lines.push(`| figure | ${names.join(' | ')} | target | |`, `|---|${names.map(() => '---').join('|')}|---|---|`);
    const row = (label, pick, target, ok) => lines.push(`| ${label} | ${names.map((n) => pick(profiles[n])).join(' | ')} | ${target} | ${ok === undefined ? '' : verdict(ok)} |`);
    row('nodes / observers known at the end', (p) => `${fmt(p.nodes)} / ${fmt(p.observers)}`, '');
    row('reports = transmissions', (p) => `${fmt(p.packets)} = ${fmt(p.transmissions)}`, '');
    row('decode only (ours)', (p) => `${fmt(p.decode_only_per_s)}/s`, '');
    // Runs before 11 timed the reference over its first 50k reports alone (no reference_decode_reports).
    const wholeStream = names.every((n) => profiles[n].reference_decode_reports !== undefined);
    row(`decode only, reference library (@michaelhart/meshcore-decoder)${wholeStream ? ', over every report' : ', over its first 50k reports'}`, (p) => `${fmt(p.reference_library_decode_only_per_s)}/s`, '');
    if (wholeStream) row('… over its first 50k reports alone (cold start; runs 1–10 compared against this)', (p) => `${fmt(p.reference_library_first_50k_per_s)}/s`, '');
    row('ingest (decode + verify + dedup + store + every view)', (p) => `${fmt(p.ingest_per_s)}/s`, '');
    if (names.every((n) => profiles[n].hops_per_report !== undefined)) {
      row('hops per report (mean path length)', (p) => String(p.hops_per_report), '');
      row('ingest CPU per report', (p) => `${p.ingest_cpu_us_per_report} µs (${(p.ingest_cpu_us_per_report / (1 + p.hops_per_report)).toFixed(2)} per report + hop)`, '');
    }
    if (base) row('default ingest / reference decode-only', (p) => (p === base ? String(p.ingest_to_reference_decode_ratio) : ''), '≥ 1.5', base.ingest_to_reference_decode_ratio >= 1.5);
    if (base && base.ingest_to_reference_first_50k_ratio !== undefined) row('… against the reference\'s first 50k reports alone', (p) => (p === base ? String(p.ingest_to_reference_first_50k_ratio) : ''), '');
    if (base && big) row('large ingest / default ingest', (p) => (p === big ? String(result.large_to_default_ingest_ratio) : ''), '≥ 0.6', result.large_to_default_ingest_ratio >= 0.6);
    row('rate per fifth of the run', (p) => p.fifth_rates_per_s.map(fmt).join(', '), '');
    row('flatness (last fifth / first)', (p) => String(p.ingest_flatness), '≥ 0.85', names.every((n) => profiles[n].ingest_flatness >= 0.85));
    row('heap per report after GC', (p) => `${fmt(p.bytes_per_packet)} B`, '≤ 250 default, ≤ 2× on large', base ? base.bytes_per_packet <= 250 && (!big || big.bytes_per_packet <= 2 * base.bytes_per_packet) : undefined);
    row('memory account / measured heap', (p) => String(p.memory_calibration.estimate_to_heap), '');
    lines.push('');
    for (const name of names) {
      lines.push(`## Snapshot latency per view, ${name} mesh (ms; each snapshot follows one more ingested report, so none is a cached answer; target p99 ≤ 5 at 28k, ≤ 50 at 1M)`, '');
      const views = profiles[name].views;
      if (Object.values(views).some((v) => v.first_call_ms_28k !== undefined)) {
        lines.push('The verdict is on every call. Where it is over, the note gives the slowest first call (one per params: the view\'s code runs for the first time in the process, before V8 optimizes it) and the p99 of the calls after them (nearest rank, as every p99 here: of 99 later calls that is the slowest, so it can exceed the p99 of all calls).', '');
      }
      viewTable(lines, views, large);
      lines.push('');
    }
  } else if (result.views) {
    viewTable(lines, result.views, large);
  }
  const rounds = result.ingest_rounds;
  if (rounds) {
    const range = (figure) => `**${figure.median}** (${figure.min}–${figure.max})`;
    lines.push(`## Ingest ratios over ${rounds.rounds_count} rounds`, '');
    lines.push(`${fmt(rounds.reports_per_round)} reports per mesh per round, ${rounds.method}. One run's ratios are one sample of a noisy host; these are medians (min–max).`, '');
    // Per report + hop (perReportAndHop below); runs before 64016e1 did not store it: no column then.
    const perHop = rounds.large_to_default_per_report_and_hop || null;
    const row = (cells, hopCell) => `|${(perHop ? [...cells, hopCell] : cells).map((cell) => (cell === '' ? ' ' : ` ${cell} `)).join('|')}|`;
    lines.push(row(['round', 'order', 'default ingest/s', 'reference decode/s', 'default / reference', 'large ingest/s', 'large / default'], '… per report + hop'), `|${'---|'.repeat(perHop ? 8 : 7)}`);
    for (const r of rounds.rounds) lines.push(row([r.round, r.order.join(', '), fmt(r.default.ingest_per_s), fmt(r.default.reference_library_decode_only_per_s), r.default_to_reference, fmt(r.large.ingest_per_s), r.large_to_default], r.large_to_default_per_report_and_hop));
    lines.push(row(['median (min–max)', '', fmt(rounds.default_ingest_per_s.median), '', range(rounds.default_to_reference), fmt(rounds.large_ingest_per_s.median), range(rounds.large_to_default)], perHop && range(perHop)));
    lines.push('', `Targets: default / reference ≥ 1.5 (${verdict(rounds.default_to_reference.median >= 1.5)}), large / default ≥ 0.6 (${verdict(rounds.large_to_default.median >= 0.6)}), both on the median.`);
    if (rounds.default_to_reference_first_50k) lines.push('', `The reference decode rate is timed over every report of the stream, its cold start spread over ${fmt(rounds.reports_per_round)} reports as the ingest's is. Against its first 50k reports alone, as runs 1–10 timed it: default / reference ${range(rounds.default_to_reference_first_50k)} (rounds ${rounds.rounds.map((r) => r.default_to_reference_first_50k).join(', ')}).`);
    const bare = rounds.default_unverified_to_reference;
    if (bare) lines.push('', `Without Ed25519 advert checks (the reference library's decode verifies none; the default mesh in a process of its own, last in each round): default / reference ${range(bare)} (rounds ${rounds.rounds.map((r) => r.default_unverified_to_reference).join(', ')}). Reported beside the target; the target is read on the figure with the checks.`);
    const keyed = rounds.default_to_reference_with_keys;
    if (keyed) lines.push('', `Against the reference given the same channel keys as the ingest (it then decrypts every group text, as the ingest does; its decode-only rate above decrypts none; timed in the default mesh's process, after the ingest): default / reference ${range(keyed)} (rounds ${rounds.rounds.map((r) => r.default_to_reference_with_keys).join(', ')}; reference ${rounds.rounds.map((r) => fmt(r.default.reference_library_with_keys_per_s)).join(', ')}/s). Reported beside the target; the target is read on the decode-only figure.`);
    const helpers = rounds.helper_threads_cpu_share;
    if (helpers && helpers.default_ingest && helpers.reference) {
      const pct = (figure) => `${(100 * figure.median).toFixed(1)}% (${(100 * figure.min).toFixed(1)}–${(100 * figure.max).toFixed(1)}%)`;
      lines.push('', `Every rate is per CPU-second of the whole process. Of that CPU, V8's helper threads (GC's parallel and concurrent work, JIT compiles; read per thread from /proc) used ${pct(helpers.default_ingest)} while the default mesh was ingested, ${pct(helpers.reference)} while the reference decoded the same reports${helpers.large_ingest ? `, ${pct(helpers.large_ingest)} while the large mesh was ingested` : ''}: the ingest keeps what it reads, so the collector copies and marks it, where the reference keeps nothing.`);
    }
    if (perHop) lines.push('', `Per report + hop (large reports × (1 + hops) per CPU-second over the default mesh's), 1 would be "a hop costs the same on both meshes"; the 0.6 target is about 0.98 on this scale.`);
    lines.push('');
  }
  const costs = result.cost_shares;
  if (costs && costs.default && costs.large) {
    const pct = (value) => (value === undefined || value === null ? '' : `${(100 * value).toFixed(1)}%`);
    const d = costs.default.shares;
    const l = costs.large.shares;
    lines.push('## Where ingest time goes (shares of sampled CPU)', '');
    lines.push(`V8's sampling CPU profiler (every ${costs.default.sampling_interval_us} µs) over ${fmt(costs.default.reports_profiled)} reports per mesh, after ${fmt(costs.default.after_untimed)} untimed. Each view's share is its apply with what it calls; the node-health tracker shared by nodes, node and bulkHealth runs under the first of them to apply (\`nodes\`).`, '');
    lines.push('| part | default | large |', '|---|---|---|');
    const part = (label, key) => lines.push(`| ${label} | ${pct(d[key])} | ${pct(l[key])} |`);
    part('decode', 'decode');
    part('… Ed25519 advert checks', 'decode_ed25519');
    part('… group-text MAC and decryption', 'decode_group_text');
    part('… content hash', 'decode_content_hash');
    part('store (dedup, records, indexes, directory, memory account)', 'store');
    part('views', 'views');
    part('… node-health tracker (nodes, node, bulkHealth)', 'node_health_tracker');
    const files = Object.keys(l.by_view_file).filter((file) => (l.by_view_file[file] || 0) >= 0.005 || (d.by_view_file[file] || 0) >= 0.005);
    for (const file of files) lines.push(`| … \`${file}\` | ${pct(d.by_view_file[file] || 0)} | ${pct(l.by_view_file[file] || 0)} |`);
    part('garbage collector', 'garbage_collector');
    lines.push('');
    const da = costs.default.allocation;
    const la = costs.large.allocation;
    if (da && la) {
      lines.push(`Allocated per report (V8's sampling heap profiler, a sample every ${fmt(da.sampling_interval_bytes)} bytes on average, objects already collected included) over the ${fmt(da.reports_sampled)} reports after those: **${fmt(da.bytes_per_report)} bytes** on the default mesh, **${fmt(la.bytes_per_report)}** on the large one. Most, default mesh: ${da.top.slice(0, 6).map(([name, bytes]) => `\`${name}\` ${fmt(bytes)}`).join(', ')}.`, '');
    }
  }
  const verification = result.advert_verification;
  if (verification) {
    lines.push('## Advert verification (Ed25519)', '');
    const perRound = verification.cost_share_per_round ? ` (rounds: ${verification.cost_share_per_round.map((share) => `${(100 * share).toFixed(1)}%`).join(', ')}; ${verification.method})` : '';
    lines.push(`Default mesh, ${fmt(verification.reports)} reports (${fmt(verification.advert_reports)} of them adverts), ${verification.rounds} rounds, medians of the passes: ${fmt(verification.ingest_per_s_verified)}/s verified, ${fmt(verification.ingest_per_s_unverified)}/s unverified: cost **${(100 * verification.cost_share).toFixed(1)}%** of ingest throughput${perRound} (target ≤ 15%: ${verdict(verification.cost_share <= 0.15)}).`, '');
    if (verification.backend) {
      const checks = Object.entries(verification.verify_us_per_check || {}).map(([name, us]) => `${name} ${us} µs`).join(', ');
      lines.push(`Backend: **${verification.backend}** (imports/core/ed25519.js). One check alone, same key and message 2,000 times: ${checks}. The verifying engine spent ${verification.extra_cpu_us_per_verification} µs more than the other per verification it ran (${fmt(Math.round(verification.verifications_per_pass))} per pass), to compare with one check alone.`, '');
    }
  }
  const hops = result.hop_resolution;
  if (hops) {
    lines.push('## Hop resolution against the simulator\'s truth (large mesh)', '');
    lines.push('| hash size | hops | right | wrong | ambiguous | unknown | wrong-free | resolved |', '|---|---|---|---|---|---|---|---|');
    for (const [size, t] of Object.entries(hops.by_hash_size)) {
      lines.push(`| ${size} byte | ${fmt(t.hops)} | ${t.right_share} | ${fmt(t.wrong)} | ${fmt(t.ambiguous)} | ${fmt(t.unknown)} | ${t.wrong_free_share} | ${t.resolved_share} |`);
    }
    const one = hops.by_hash_size[1];
    if (one) lines.push('', `Targets for 1-byte hops: wrong-free ≥ 0.95 (${verdict(one.wrong_free_share >= 0.95)}), resolved ≥ 0.80 (${verdict(one.resolved_share >= 0.8)}).`);
    const pairs = hops.pairs_alone;
    if (pairs) {
      // What the map's links read: the topology view resolves each busiest pair with no anchor.
      const by = Object.entries(pairs.by).map(([how, t]) => `${how} ${fmt(t.right + t.wrong)} (${fmt(t.wrong)} wrong, ${(100 * t.wrong_share_of_resolved).toFixed(2)}%)`).join('; ');
      lines.push('', `Each adjacent pair of the same paths resolved alone, with no observer or source as anchor (how the topology view resolves the pairs the map draws): ${fmt(pairs.ends)} ends, ${pairs.resolved_share} resolved; by ${by}; ${fmt(pairs.ambiguous)} ambiguous, ${fmt(pairs.unknown)} unknown.`);
    }
    lines.push('');
  }
  if (result.hostile && result.hostile.length) {
    lines.push('## Hostile streams under a small and a large budget', '');
    lines.push('Heap after GC is the whole process heap (the bound is 1.25 × budget + 40 MB); "engine" is what the engine added to it.', '');
    lines.push('| stream | budget | reports | stored | refused | estimate MB | heap after GC MB | engine MB | bound MB | | ingest/s |', '|---|---|---|---|---|---|---|---|---|---|---|');
    for (const h of result.hostile) {
      lines.push(`| ${h.class} | ${h.budget_mb} MB | ${fmt(h.reports)} | ${fmt(h.stored_transmissions)} | ${fmt(h.rejected)} | ${h.estimated_mb} | ${h.heap_after_gc_mb} | ${h.engine_heap_after_gc_mb} | ${h.bound_mb} | ${verdict(h.within_bound)} | ${fmt(h.rate_per_s_median)} |`);
    }
    const adverts = result.hostile.filter((h) => h.class === 'randomAdverts');
    for (const h of adverts) {
      if (h.advert_rate_ratio !== null && h.advert_rate_ratio !== undefined) lines.push('', `Random-key adverts at ${h.budget_mb} MB: ${fmt(h.advert_rate_first_5k_per_s)}/s over the first 5k, ${fmt(h.advert_rate_after_100k_keys_per_s)}/s after 100k distinct keys: ratio ${h.advert_rate_ratio} (target ≥ 0.8: ${verdict(h.advert_rate_ratio >= 0.8)}).`);
    }
    lines.push('');
  }
  if (quickResult && quickResult !== result) {
    lines.push('', `A quick run (\`npm run bench:core -- --quick\`, 100k) is in \`results/core-quick.json\`.`);
  }
  lines.push('');
  return lines.join('\n');
}

/**
 * The large / default ingest ratio of one round counted per report + hop rather than per report:
 * (large reports x (1 + its hops per report)) per CPU-second over the same for the default mesh.
 * 1 means a hop costs the same on both meshes; the per-report target 0.6 is about 0.98 on this
 * scale (5.0 against 2.68 hops), so it says how far the engine is when path lengths are set aside.
 */
function perReportAndHop(entry) {
  const large = entry.large.ingest_per_s * (1 + entry.large.hops_per_report);
  const base = entry.default.ingest_per_s * (1 + entry.default.hops_per_report);
  return Math.round((1000 * large) / base) / 1000;
}

module.exports = { percentile, median, renderCoreReport, perReportAndHop, fmt };

function renderServerReport(result) {
  const reloadKey = result.quick ? 'reload_100k_s' : 'reload_1m_s';
  const s = result.sustained;
  const lines = ['# Server benchmark (Node-measurable parts)', ''];
  lines.push(`Generated from \`benchmarks/results/${result.quick ? 'server-quick' : 'server'}.json\` by \`${result.command}\` on ${result.date}.`);
  lines.push(`Machine: ${result.machine.cpus} cores, ${result.machine.memoryGiB} GiB, Node ${result.machine.node}; MongoDB: ${result.mongo}. Load average at the end: ${result.load_average.join(', ')}.`, '');
  lines.push('| figure | measured | target | |', '|---|---|---|---|');
  const reloadSplit = (reload) => (reload.reload_engine_s !== undefined ? ` (engine replay ${reload.reload_engine_s} s, reading MongoDB ${reload.reload_reading_s} s)` : '');
  // Issue 8's unit: 1M stored reports (observation documents), <= 40 s; full runs since 2026-11-24.
  if (result.reload_reports) {
    const byReports = result.reload_reports;
    lines.push(`| reload of ${fmt(byReports.reports)} stored reports (${fmt(byReports.transmissions)} transmissions) | ${byReports.reload_s} s${reloadSplit(byReports)} | ≤ 40 s for 1M reports | ${verdict(byReports.reload_s <= 40 && byReports.complete)} |`);
  }
  const reloadVerdict = result.quick ? 'quick run: the target is for 1M' : verdict(result[reloadKey] <= 60 && result.reload.complete);
  lines.push(`| reload of ${fmt(result.reload.transmissions)} stored transmissions (${fmt(result.reload.observations)} observations) | ${result[reloadKey]} s${reloadSplit(result.reload)} | ≤ 60 s for 1M | ${reloadVerdict} |`);
  lines.push(`| sustained ingest with write-behind (observations written / s, offered ${fmt(s.offered_per_s)}/s for ${s.seconds} s) | ${fmt(s.sustained_ingest_per_s)} | keeps pace with 2,000 | ${verdict(s.sustained_ingest_per_s >= 0.95 * s.offered_per_s && s.overflowed === 0)} |`);
  lines.push(`| max write backlog (pending writes) | ${fmt(s.max_backlog)} (second half max ${fmt(s.backlog_second_half_max)}; drained ${s.drain_after_stop_s} s after the feed stopped) | bounded | ${verdict(s.overflowed === 0 && s.failed === 0)} |`);
  const measured = (value) => value !== null && value !== undefined;
  lines.push(`| bytes per subscriber (server RSS growth per DDP client subscribed, NO_MERGE on) | ${measured(result.bytes_per_subscriber) ? fmt(result.bytes_per_subscriber) : 'not measured'} | ≤ 100 KB | ${measured(result.bytes_per_subscriber) ? verdict(result.bytes_per_subscriber <= 102400) : ''} |`);
  lines.push(`| fan-out CPU ratio, 1,000 vs 1 subscriber, same updates | ${measured(result.fanout_cpu_ratio_1000) ? result.fanout_cpu_ratio_1000 : 'not measured'} | ≤ 5 | ${measured(result.fanout_cpu_ratio_1000) ? verdict(result.fanout_cpu_ratio_1000 <= 5) : ''} |`);
  lines.push('', result.fanout_source ? `The last two rows come from ${result.fanout_source}; see [FANOUT.md](FANOUT.md).` : (result.not_measured_here || ''), '');
  return lines.join('\n');
}

module.exports.renderServerReport = renderServerReport;
