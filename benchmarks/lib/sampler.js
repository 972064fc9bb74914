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

/** CPU seconds (user + system) in one /proc stat line (a process's, or one of its threads'). */
function statCpuSeconds(stat) {
  // Fields after the command name (which may hold spaces and parentheses) start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** CPU seconds (user + system) a process has used so far, or null when it is gone. */
function cpuSeconds(pid) {
  try {
    return statCpuSeconds(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch (err) {
    return null;
  }
}

/**
 * CPU seconds so far of a process's main thread and of all its other threads together
 * ({ main, helpers }; V8's helper threads: its GC's parallel and concurrent work, JIT compiles),
 * from /proc/<pid>/task; null where there is no /proc (not Linux). A thread that ended between
 * two readings takes its seconds with it: read around a stretch in which threads live on.
 */
function threadCpuSeconds(pid = process.pid) {
  let tasks;
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`);
  } catch (err) {
    return null;
  }
  const seconds = { main: 0, helpers: 0 };
  for (const task of tasks) {
    let stat;
    try {
      stat = fs.readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8');
    } catch (err) {
      continue; // the thread ended while listed
    }
    if (task === String(pid)) seconds.main += statCpuSeconds(stat);
    else seconds.helpers += statCpuSeconds(stat);
  }
  return seconds;
}

/** The helpers' share of the CPU a process used between two threadCpuSeconds readings (null without them, or with no CPU used). */
function helperShare(before, after) {
  if (before === null || after === null) return null;
  const helpers = after.helpers - before.helpers;
  const total = after.main - before.main + helpers;
  return total > 0 ? helpers / total : null;
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

/**
 * Per-core busy and total clock ticks from /proc/stat: { [cpu]: { busy, total } }. Two readings
 * give how busy a core was in between, whoever used it: on a shared machine, a load core that
 * other work keeps busy makes the load generator, not the server, fall behind.
 */
function coreTimes() {
  const cores = {};
  try {
    for (const line of fs.readFileSync('/proc/stat', 'utf8').split('\n')) {
      const match = /^cpu(\d+)\s+(.*)$/.exec(line);
      if (!match) continue;
      const [user, nice, system, idle, iowait = 0, irq = 0, softirq = 0, steal = 0] = match[2].trim().split(/\s+/).map(Number);
      const busy = user + nice + system + irq + softirq + steal;
      cores[match[1]] = { busy, total: busy + idle + iowait };
    }
  } catch (err) {
    // not Linux: no per-core figures
  }
  return cores;
}

/** Busy % of one core between two coreTimes() readings, or null. */
function coreBusyPct(before, after, cpu) {
  const a = before[cpu];
  const b = after[cpu];
  if (!a || !b || b.total === a.total) return null;
  return Math.round(((b.busy - a.busy) / (b.total - a.total)) * 1000) / 10;
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

/**
 * Open TCP connections whose LOCAL port is `port` (the server side of each client socket), from
 * /proc/net/tcp and tcp6: how many users the server holds right now, read from outside the
 * server so that counting costs it nothing. Null when /proc is not there.
 */
function establishedOnPort(port) {
  const hex = `:${Number(port).toString(16).toUpperCase().padStart(4, '0')}`;
  let count = 0;
  let readable = false;
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text;
    try { text = fs.readFileSync(file, 'utf8'); } catch (err) { continue; }
    readable = true;
    for (const line of text.split('\n')) {
      // "  sl  local_address rem_address   st ..."; state 01 = ESTABLISHED
      const fields = line.trim().split(/\s+/);
      if (fields.length > 3 && fields[3] === '01' && fields[1].endsWith(hex)) count++;
    }
  }
  return readable ? count : null;
}

/**
 * A fine track of one server: every intervalMs, its exact CPU seconds (/proc/<pid>/stat, this
 * process only) and how many client connections it holds. From it a study takes the CPU of the
 * stretch when users were connected, and the ingest-only floor right before and after it, with
 * no extra idle wait: see presence(), cpuRate(), userSeconds().
 *   const track = startCpuTrack(pid, port); ...; const samples = track.stop();
 */
function startCpuTrack(pid, port, { intervalMs = 200, cores = [] } = {}) {
  const samples = [];
  const take = () => {
    const cpu = cpuSeconds(pid);
    if (cpu === null) return;
    const sample = { t: Date.now(), cpu, conns: port ? establishedOnPort(port) : null };
    // The cores' own busy/total ticks, to tell how busy they were over the same stretch.
    if (cores.length) {
      const all = coreTimes();
      sample.cores = Object.fromEntries(cores.map((core) => [core, all[core] || null]));
    }
    samples.push(sample);
  };
  take();
  const timer = setInterval(take, intervalMs);
  return {
    samples,
    stop() { clearInterval(timer); take(); return samples; },
  };
}

/** CPU seconds used at time t, linearly interpolated between the track's samples (clamped at its ends). Pure. */
function cpuAt(samples, t) {
  if (!samples.length) return null;
  if (t <= samples[0].t) return samples[0].cpu;
  for (let i = 1; i < samples.length; i++) {
    const b = samples[i];
    if (t <= b.t) {
      const a = samples[i - 1];
      return b.t === a.t ? b.cpu : a.cpu + ((b.cpu - a.cpu) * (t - a.t)) / (b.t - a.t);
    }
  }
  return samples[samples.length - 1].cpu;
}

/** Mean CPU % of a core between two times (null when the stretch is empty). Pure. */
function cpuRate(samples, from, to) {
  if (!(to > from)) return null;
  const used = cpuAt(samples, to) - cpuAt(samples, from);
  return (used / ((to - from) / 1000)) * 100;
}

/** First and last sample time with at least one connection, or null when none was seen. Pure. */
function presence(samples) {
  let first = null;
  let last = null;
  for (const s of samples) {
    if (s.conns > 0) {
      if (first === null) first = s.t;
      last = s.t;
    }
  }
  return first === null ? null : { from: first, to: last };
}

/** Busy % of `core` between the track's samples nearest (at or inside) two times, or null. Pure. */
function coreBusyBetween(samples, core, from, to) {
  const inside = samples.filter((s) => s.t >= from && s.t <= to && s.cores && s.cores[core]);
  if (inside.length < 2) return null;
  return coreBusyPct({ [core]: inside[0].cores[core] }, { [core]: inside[inside.length - 1].cores[core] }, core);
}

/** Connection·seconds between two times (step integral of the sampled counts): the user·seconds served. Pure. */
function userSeconds(samples, from, to) {
  let total = 0;
  for (let i = 1; i < samples.length; i++) {
    const a = samples[i - 1];
    const start = Math.max(a.t, from);
    const end = Math.min(samples[i].t, to);
    if (end > start) total += (a.conns || 0) * (end - start);
  }
  return total / 1000;
}

module.exports = { startSampler, cpuSeconds, statCpuSeconds, threadCpuSeconds, helperShare, rssBytes, summarize, coreTimes, coreBusyPct, coreBusyBetween, establishedOnPort, startCpuTrack, cpuAt, cpuRate, presence, userSeconds };
