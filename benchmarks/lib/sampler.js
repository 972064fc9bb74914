'use strict';
/**
 * Process sampling for the load studies.
 *
 *   const sampler = startSampler({ server: pid, load: pid2 });   // pidusage every second
 *   const mark = cpuSeconds(pid);                                 // exact CPU time, /proc
 *   ... later: cpuSeconds(pid) - mark;  sampler.stop() -> { server: [{ t, cpu, rssMB }], ... }
 *
 * pidusage gives the per-second series (CPU %, RSS) for the plots; totals such as "server CPU
 * per delivered update" come from /proc/<pid>/stat (utime + stime, in clock ticks), which is
 * exact over any interval and does not depend on when the one-second samples fell.
 */
const fs = require('fs');
const pidusage = require('pidusage');

const CLOCK_TICKS = 100; // USER_HZ on Linux

/** CPU seconds (user + system) a process has used so far, or null when it is gone. */
function cpuSeconds(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch (err) {
    return null;
  }
}

/** Resident set size in bytes, from /proc (current, not peak). */
function rssBytes(pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /VmRSS:\s+(\d+) kB/.exec(status);
    return match ? Number(match[1]) * 1024 : null;
  } catch (err) {
    return null;
  }
}

/** Sample each named pid every intervalMs; stop() returns { name: [{ t, cpu, rssMB }] }. */
function startSampler(pids, { intervalMs = 1000 } = {}) {
  const series = Object.fromEntries(Object.keys(pids).map((name) => [name, []]));
  let busy = false;
  const timer = setInterval(async () => {
    if (busy) return;
    busy = true;
    const t = Date.now();
    await Promise.all(Object.entries(pids).map(async ([name, pid]) => {
      if (!pid) return;
      try {
        const stat = await pidusage(pid);
        series[name].push({ t, cpu: Math.round(stat.cpu * 10) / 10, rssMB: Math.round(stat.memory / 1048576 * 10) / 10 });
      } catch (err) {
        // the process ended: its series just stops
      }
    }));
    busy = false;
  }, intervalMs);
  return {
    series,
    /** Add or replace a sampled process (e.g. a load generator started later). */
    watch(name, pid) { pids[name] = pid; if (!series[name]) series[name] = []; },
    stop() {
      clearInterval(timer);
      if (pidusage.clear) pidusage.clear(); // pidusage keeps per-pid history between calls
      return series;
    },
  };
}

/** Summary of a series between two times: mean and max CPU %, mean and max RSS (MB). */
function summarize(samples, from = -Infinity, to = Infinity) {
  const window = samples.filter((s) => s.t >= from && s.t <= to);
  if (!window.length) return { cpu_mean: null, cpu_max: null, rss_mean_mb: null, rss_max_mb: null };
  const mean = (key) => Math.round(window.reduce((sum, s) => sum + s[key], 0) / window.length * 10) / 10;
  const max = (key) => Math.max(...window.map((s) => s[key]));
  return { cpu_mean: mean('cpu'), cpu_max: max('cpu'), rss_mean_mb: mean('rssMB'), rss_max_mb: max('rssMB') };
}

module.exports = { startSampler, cpuSeconds, rssBytes, summarize };
