'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { checkAgainstBruteForce, simulatedReports, simulatedWorld, churnThrough, seededRandom } = require('../../helpers/mesh');
const { createEngine } = require('../../../imports/core/engine');
const { nodeStatus } = require('../../../imports/core/node-status');
const { STATUS_REFRESH_MS } = require('../../../imports/core/analytics/places');

/** From the definition: every known node whose position the map can draw, by public key. */
function brutePlaces(store, params, now) {
  const drawable = (node) => Number.isFinite(node.lat) && Number.isFinite(node.lon) && !(node.lat === 0 && node.lon === 0)
    && Math.abs(node.lat) <= 90 && Math.abs(node.lon) <= 180;
  const places = Array.from(store.nodes.values()).filter(drawable)
    .map((node) => ({ pubKey: node.pubKey, name: node.name, role: node.role, lat: node.lat, lon: node.lon, status: nodeStatus(node, now) }))
    .sort((a, b) => (a.pubKey < b.pubKey ? -1 : 1));
  return { total: store.nodes.size, placed: places.length, places };
}

/** What the map draws of an answer apart from statuses (those move with time alone). */
function drawn(answer) {
  return JSON.stringify({ total: answer.total, places: answer.places.map(({ status, ...place }) => place) });
}

test('places equals the directory\'s placed nodes after random inserts and evictions, on both mesh profiles', () => {
  // (Region-scoped answers are checked with every view's in region-scope.test.js.)
  checkAgainstBruteForce({ view: 'places', bruteForce: brutePlaces });
});

test('places moves its version whenever what it draws changes (nodes learned, moved, renamed, re-roled, removed), and not with every packet', () => {
  for (const { profile, count } of [{ profile: 'default', count: 1500 }, { profile: 'large', count: 2500 }]) {
    const { reports, channels } = simulatedReports({ seed: 13, count, profile });
    const engine = createEngine({ channels, views: ['places'] });
    const view = engine.view('places');
    let version = view.version;
    let answer = drawn(view.snapshot({}));
    let moves = 0;
    let packets = 0;
    // After every packet (and every node change), a different drawing means a moved version.
    const check = (where) => {
      const now = drawn(view.snapshot({}));
      if (now !== answer) assert.ok(view.version > version, `${profile} ${where}: what the map draws changed, the version did not move`);
      if (view.version > version) moves++;
      answer = now;
      version = view.version;
    };
    const ingest = engine.ingest.bind(engine);
    engine.ingest = (report) => {
      const result = ingest(report);
      packets++;
      check(`packet ${packets}`);
      return result;
    };
    // Every change but a removal is an advert through ingest (checked above); a removal (here made
    // outside ingest, as the directory's age-out is made after the views applied a packet) shows
    // at the next packet.
    churnThrough({ engine, world: simulatedWorld({ seed: 13, profile }), reports, random: seededRandom(19), afterChange: () => {} });
    assert.ok(moves < packets / 4, `${profile}: ${moves} version moves over ${packets} packets: most packets change no node`);
  }
});

test('places moves at least once a minute of store time while packets flow, so that statuses stay fresh', () => {
  const { reports, channels } = simulatedReports({ seed: 3, count: 3000 });
  const engine = createEngine({ channels, views: ['places'] });
  const view = engine.view('places');
  let lastMove = null;
  let version = view.version;
  let longest = 0;
  for (const report of reports) {
    engine.ingest(report);
    if (view.version !== version) {
      if (lastMove !== null) longest = Math.max(longest, engine.store.lastTime - lastMove);
      lastMove = engine.store.lastTime;
      version = view.version;
    }
  }
  assert.ok(longest > 0 && longest < STATUS_REFRESH_MS + 60000, `longest stretch without a move: ${longest} ms of store time`);
});
