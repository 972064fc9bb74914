'use strict';
// A study's JSON says how to reproduce it (benchmarks/lib/study.js): the MeshPulse variables its
// servers inherited belong to that command (an A/B such as MESHPULSE_DEFLATE_FIRST_USE_LEVEL=off
// would otherwise read as the default run), and a secret never does.
const test = require('node:test');
const assert = require('node:assert/strict');
const { studyCommand } = require('../benchmarks/lib/study');

test('the study command carries the MESHPULSE_ variables set, sorted, without secrets or empty ones', () => {
  const argv = ['node', '/repo/benchmarks/delivery.js', '--users=200', '--rounds=1'];
  const env = { PATH: '/usr/bin', MESHPULSE_DEFLATE_FIRST_USE_LEVEL: 'off', MESHPULSE_SIM_PROFILE: 'large', MESHPULSE_API_KEY: 'hunter2', MESHPULSE_MQTT_PASSWORD: 'x', MESHPULSE_SHARED_SEND: '' };
  assert.equal(studyCommand(argv, env, 'delivery'), 'MESHPULSE_DEFLATE_FIRST_USE_LEVEL=off MESHPULSE_SIM_PROFILE=large npm run bench:delivery -- --users=200 --rounds=1');
  assert.equal(studyCommand(['node', '/repo/benchmarks/capacity.js'], { PATH: '/usr/bin' }, 'capacity'), 'npm run bench:capacity');
  assert.equal(studyCommand(['node', '/repo/benchmarks/fanout.js'], { MESHPULSE_X: 'a b' }, 'fanout'), 'MESHPULSE_X="a b" npm run bench:fanout');
});
