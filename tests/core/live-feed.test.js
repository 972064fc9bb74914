'use strict';
/**
 * The live packet feed (imports/core/live-feed.js, behind the `packets.live` publication):
 * a filter expression is evaluated on the server, so a subscriber's rows are exactly the
 * brute-force list of stored transmissions that match it, newest first, through inserts and
 * evictions; a bad filter is refused with its position and leaves nothing subscribed.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { PublishHub } = require('../../imports/core/publish-hub');
const { createEngine } = require('../../imports/core/engine');
const { compileFilter } = require('../../imports/core/packet-filter');
const { ParamError } = require('../../imports/core/analytics/view');
const { liveFeedParams, subscribeLiveFeed } = require('../../imports/core/live-feed');
const { simulatedReports } = require('../helpers/mesh');

/** A client's view of a rows subscription: the ids added and not removed since. */
function clientRows() {
  const rows = new Map();
  return {
    rows,
    added: (id, fields) => rows.set(id, { ...fields }),
    changed: (id, fields) => rows.set(id, { ...rows.get(id), ...fields }),
    removed: (id) => rows.delete(id),
  };
}

function setup({ maxTransmissions = 0 } = {}) {
  const { reports, channels } = simulatedReports({ seed: 7, count: 1200 });
  const engine = createEngine({ channels, store: { maxTransmissions } });
  const hub = new PublishHub((name) => engine.views.get(name), { publishIntervalMs: 0 });
  return { engine, hub, reports };
}

/** Brute force: every stored transmission, newest first, that the filter (and region) accept. */
function expectedHashes(engine, expression, { limit, region = null }) {
  const { test: matches } = compileFilter(expression);
  return engine.store.transmissions().slice().reverse()
    .filter((tx) => matches(tx) && (region === null || tx.observations.some((o) => o.observer.region === region)))
    .slice(0, limit)
    .map((tx) => tx.hash);
}

const FILTERS = [
  'type == GRP_TXT',
  'hops >= 2 && snr < 5',
  '!(route == FLOOD) || size > 60',
  'type == ADVERT && name',
];

for (const expression of FILTERS) {
  test(`live feed with filter \`${expression}\` sends exactly the matching packets, through inserts and evictions`, () => {
    const { engine, hub, reports } = setup({ maxTransmissions: 300 });
    const client = clientRows();
    const limit = 40;
    subscribeLiveFeed(hub, { limit }, expression, client);
    let checked = 0;
    for (let i = 0; i < reports.length; i += 150) {
      for (const report of reports.slice(i, i + 150)) engine.ingest(report);
      hub.tick();
      const expected = expectedHashes(engine, expression, { limit });
      assert.deepEqual([...client.rows.keys()].sort(), expected.slice().sort(), `after ${i + 150} reports`);
      checked += expected.length;
    }
    assert.ok(checked > 0, 'the filter matched something along the way');
  });
}

test('the filter inside the params and as the second argument give the same feed; with the region too', () => {
  const { engine, hub, reports } = setup();
  for (const report of reports.slice(0, 600)) engine.ingest(report);
  const region = reports[0].region;
  const inParams = clientRows();
  const asArgument = clientRows();
  subscribeLiveFeed(hub, { limit: 30, region, filter: 'hops >= 1' }, undefined, inParams);
  subscribeLiveFeed(hub, { limit: 30, region }, 'hops >= 1', asArgument);
  assert.equal(hub.stats().groups, 1, 'one shared group: the two forms are the same params');
  assert.deepEqual([...asArgument.rows.keys()], [...inParams.rows.keys()]);
  assert.deepEqual([...inParams.rows.keys()].sort(), expectedHashes(engine, 'hops >= 1', { limit: 30, region }).sort());
});

test('a bad filter is refused with its position, and nothing stays subscribed', () => {
  const { hub } = setup();
  const client = clientRows();
  assert.throws(() => subscribeLiveFeed(hub, { limit: 10 }, 'hops >=', client), (err) => {
    assert.ok(err instanceof ParamError);
    assert.match(err.message, /parameter "filter" does not parse: at \d+: /);
    return true;
  });
  assert.throws(() => subscribeLiveFeed(hub, { filter: 'snr << 3' }, null, client), /filter" does not parse: at \d+/);
  assert.throws(() => subscribeLiveFeed(hub, {}, 'x'.repeat(600), client), /filter" must be at most 512 characters/);
  assert.throws(() => subscribeLiveFeed(hub, {}, 42, client), /filter" must be a string/);
  assert.throws(() => subscribeLiveFeed(hub, { filter: 'hops > 1' }, 'hops > 2', client), /given twice/);
  assert.throws(() => subscribeLiveFeed(hub, [], null, client), /must be an object/);
  assert.equal(hub.stats().groups, 0);
  assert.equal(client.rows.size, 0);
});

test('liveFeedParams: the filter argument joins the params; an equal one in both places is fine', () => {
  assert.deepEqual(liveFeedParams({ limit: 5 }, 'hops > 1'), { limit: 5, filter: 'hops > 1' });
  assert.deepEqual(liveFeedParams(null, undefined), {});
  assert.deepEqual(liveFeedParams({ filter: 'hops > 1' }, 'hops > 1'), { filter: 'hops > 1' });
  assert.deepEqual(liveFeedParams({ filter: 'hops > 1' }, ''), { filter: 'hops > 1' });
});
