'use strict';
// The delivery study's CPU arithmetic (benchmarks/lib/sampler.js), checked against brute force
// on synthetic tracks: interpolated CPU, rates, the stretch with users, connection·seconds.
const test = require('node:test');
const assert = require('node:assert');
const { cpuAt, cpuRate, presence, userSeconds, establishedOnPort } = require('../benchmarks/lib/sampler');

// A server using `busy` CPU s per s, sampled every `step` ms, with `conns(t)` connections.
function track({ from = 0, to = 10000, step = 200, busy = () => 0.05, conns = () => 0 }) {
  const samples = [];
  let cpu = 0;
  for (let t = from; t <= to; t += step) {
    if (t > from) cpu += busy(t - step) * (step / 1000);
    samples.push({ t, cpu, conns: conns(t) });
  }
  return samples;
}

test('cpuAt interpolates between samples and clamps at the ends', () => {
  const samples = [{ t: 1000, cpu: 1, conns: 0 }, { t: 2000, cpu: 1.5, conns: 0 }];
  assert.strictEqual(cpuAt(samples, 500), 1);
  assert.strictEqual(cpuAt(samples, 1500), 1.25);
  assert.strictEqual(cpuAt(samples, 3000), 1.5);
  assert.strictEqual(cpuAt([], 1), null);
});

test('cpuRate gives the mean % of a core over any stretch, equal to brute force', () => {
  // 5% idle, 30% between 4 s and 8 s.
  const busy = (t) => (t >= 4000 && t < 8000 ? 0.3 : 0.05);
  const samples = track({ busy });
  for (const [from, to] of [[0, 4000], [4000, 8000], [8000, 10000], [1000, 9000]]) {
    let used = 0;
    for (let t = from; t < to; t += 200) used += busy(t) * 0.2;
    assert.ok(Math.abs(cpuRate(samples, from, to) - (used / ((to - from) / 1000)) * 100) < 1e-9, `${from}-${to}`);
  }
  assert.strictEqual(cpuRate(samples, 5000, 5000), null);
});

test('presence is the first to last sample with a connection; userSeconds integrates the counts', () => {
  // 10 users arrive one per 200 ms from 2 s and all leave at 8 s.
  const conns = (t) => (t < 2000 || t >= 8000 ? 0 : Math.min(10, Math.floor((t - 2000) / 200) + 1));
  const samples = track({ conns });
  assert.deepStrictEqual(presence(samples), { from: 2000, to: 7800 });
  let brute = 0;
  for (let t = 0; t < 10000; t += 200) brute += conns(t) * 0.2;
  assert.ok(Math.abs(userSeconds(samples, 0, 10000) - brute) < 1e-9);
  assert.ok(Math.abs(userSeconds(samples, 2000, 8000) - brute) < 1e-9);
  assert.strictEqual(presence(track({})), null);
});

test('establishedOnPort counts nothing on a port no one uses', () => {
  const count = establishedOnPort(1);
  assert.ok(count === 0 || count === null);
});

test('coreBusyBetween takes the busy share of a core from the first to the last sample inside the stretch', () => {
  const samples = [0, 1, 2, 3].map((i) => ({ t: i * 1000, cpu: 0, conns: 0, cores: { 0: { busy: i * 30, total: i * 100 } } }));
  samples[3].cores[0] = { busy: 60 + 70, total: 300 }; // the last second 70% busy
  const { coreBusyBetween } = require('../benchmarks/lib/sampler');
  assert.strictEqual(coreBusyBetween(samples, 0, 0, 2000), 30);
  assert.strictEqual(coreBusyBetween(samples, 0, 2000, 3000), 70);
  assert.strictEqual(coreBusyBetween(samples, 1, 0, 3000), null);
  assert.strictEqual(coreBusyBetween(samples, 0, 500, 900), null);
});

test('statCpuSeconds reads utime + stime after a command name holding spaces and parentheses', () => {
  const { statCpuSeconds } = require('../benchmarks/lib/sampler');
  // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime ...
  const line = '4242 (node (a) b) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 37 0 0 20 0 11 0 5000 1000000 2000';
  assert.strictEqual(statCpuSeconds(line), 2.87);
});

test('threadCpuSeconds splits this process into its main thread and the rest; helperShare is the rest\'s share', () => {
  const { threadCpuSeconds, helperShare } = require('../benchmarks/lib/sampler');
  assert.strictEqual(helperShare(null, { main: 1, helpers: 1 }), null);
  assert.strictEqual(helperShare({ main: 1, helpers: 1 }, { main: 1, helpers: 1 }), null); // no CPU used between
  assert.strictEqual(helperShare({ main: 1, helpers: 0.5 }, { main: 4, helpers: 1.5 }), 0.25);
  const before = threadCpuSeconds();
  if (before === null) return; // no /proc here: nothing more to read
  // Spin this (the main) thread for 150 ms of its own CPU: that time shows as the main thread's.
  const started = process.cpuUsage();
  let spin = 0;
  for (;;) {
    spin++;
    const used = process.cpuUsage(started);
    if (used.user + used.system >= 150000) break;
  }
  const after = threadCpuSeconds();
  assert.ok(spin > 0);
  assert.ok(after.main >= before.main && after.helpers >= before.helpers, 'seconds only grow');
  assert.ok(after.main - before.main >= 0.1, `the spin is the main thread's: ${after.main - before.main} s`);
  assert.ok(after.main - before.main > after.helpers - before.helpers, 'and not the helpers\'');
  // The whole process's CPU is the two parts together (both read from /proc in clock ticks).
  const { cpuSeconds } = require('../benchmarks/lib/sampler');
  const whole = cpuSeconds(process.pid);
  const parts = threadCpuSeconds();
  assert.ok(Math.abs(whole - (parts.main + parts.helpers)) < 0.05, `${whole} vs ${parts.main + parts.helpers}`);
});
