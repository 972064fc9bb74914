'use strict';
/**
 * End to end over DDP against the real app under Meteor: every view's publication delivers
 * a document that changes when packets arrive, methods return the same data, bad arguments
 * are refused, and rate limits bite. Skips with the reason when Meteor is not available.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { startApp, MeteorUnavailableError } = require('../helpers/meteor-app');
const { DdpClient } = require('../helpers/ddp-client');
const { viewDocumentId } = require('../../imports/core/view-key');
const { createSimulator } = require('../../imports/core/simulate');
const { withoutVolatile, postPackets } = require('../helpers/app-documents');
const { waitUntil } = require('../helpers/async');

test('views over DDP: publications, methods, validation, rate limits', { timeout: 15 * 60 * 1000 }, async (t) => {
  let app;
  try {
    app = await startApp({ settings: { sources: { simulator: { enabled: false } }, persistence: { enabled: true }, limits: { methodCallsPerSecond: 20 } } });
  } catch (err) {
    if (err instanceof MeteorUnavailableError) {
      console.log(`# skipping end-to-end DDP tests: ${err.message}`);
      t.skip(err.message);
      return;
    }
    throw err;
  }
  const client = await DdpClient.connect(`${app.url.replace('http', 'ws')}/websocket`);
  try {
    const sim = createSimulator({ seed: 11 });
    const first = sim.messages(300);
    await postPackets(app, first);
    const stats = await client.call('view.stats', [{}]);
    assert.ok(stats.transmissions > 0, 'packets posted over HTTP reached the store');

    const anAdvert = first.find((m) => m.payload.raw.slice(2, 4) !== undefined && (parseInt(m.payload.raw.slice(0, 2), 16) >> 2 & 0x0f) === 4);
    const nodes = await client.call('view.nodes', [{ limit: 5 }]);
    const pubKey = (nodes.nodes || nodes.rows || [])[0]?.pubKey;
    const channels = await client.call('view.channels', [{}]);
    const channelHash = (channels.channels || [])[0]?.hash || (channels.channels || [])[0]?.channelHash;
    const paramsByView = {
      node: pubKey ? { pubKey } : null,
      channelMessages: channelHash ? { channel: channelHash } : null,
    };
    const viewNames = ['stats', 'packets', 'observers', 'nodes', 'node', 'bulkHealth', 'rf', 'topology', 'hashSizes', 'subpaths', 'channels', 'channelMessages', 'channelAnalytics', 'perf'];
    const subscribed = [];
    for (const name of viewNames) {
      const params = name in paramsByView ? paramsByView[name] : {};
      if (params === null) continue;
      await client.subscribe(`view.${name}`, [params]);
      const id = viewDocumentId(name, params);
      const doc = client.collection('meshpulse.views').get(id);
      assert.ok(doc, `view.${name} delivered its document`);
      subscribed.push({ name, params, id });
    }
    assert.ok(anAdvert !== undefined);

    // Methods return what the publication sent (modulo generation time).
    for (const { name, params, id } of subscribed) {
      if (name === 'perf') continue;
      const result = await client.call(`view.${name}`, [params]);
      const doc = client.collection('meshpulse.views').get(id);
      assert.deepEqual(Object.keys(withoutVolatile(result)).sort(), Object.keys(withoutVolatile(doc)).sort(), `view.${name} method and publication have the same fields`);
    }

    // New packets change the published documents of every packet-driven view.
    const docs = client.collection('meshpulse.views');
    const before = { ...docs.get(viewDocumentId('stats', {})) };
    const signatures = new Map(subscribed.map(({ id }) => [id, JSON.stringify(withoutVolatile(docs.get(id)))]));
    await postPackets(app, sim.messages(200));
    await waitUntil(() => docs.get(viewDocumentId('stats', {})).transmissions > before.transmissions, 'stats counts the new packets');
    for (const name of ['stats', 'packets', 'rf', 'topology', 'hashSizes', 'observers', 'nodes']) {
      const id = viewDocumentId(name, {});
      await waitUntil(() => JSON.stringify(withoutVolatile(docs.get(id))) !== signatures.get(id), `${name} changes`);
    }
    const statsDoc = client.collection('meshpulse.views').get(viewDocumentId('stats', {}));
    const statsMethod = await client.call('view.stats', [{}]);
    assert.equal(withoutVolatile(statsDoc).transmissions, statsMethod.transmissions);

    // The live feed.
    await client.subscribe('packets.live', [{ limit: 10 }]);
    assert.equal(client.collection('meshpulse.live').size, 10);

    // Validation: bounded limits and unknown params are refused with a clear error.
    await assert.rejects(client.subscribe('view.packets', [{ limit: 100000 }]), /at most 500/);
    await assert.rejects(client.call('view.packets', [{ bogus: true }]), /not accepted/);
    await assert.rejects(client.call('view.packets', ['not an object']), /Match|match/);

    // Rate limit: a burst over the per-second allowance is refused.
    const burst = await Promise.allSettled(Array.from({ length: 60 }, () => client.call('view.stats', [{}])));
    const limited = burst.filter((r) => r.status === 'rejected' && /too-many-requests|rate/i.test(r.reason.message));
    assert.ok(limited.length > 0, 'some calls of a 60-call burst were rate limited');

    // Security: clients cannot write to any collection (no allow rules, no insecure).
    await assert.rejects(client.call('/transmissions/insert', [{ _id: 'x', hash: 'x' }]), /denied|not found|403|404/i);
    await assert.rejects(client.call('/nodes/remove', [{}]), /denied|not found|403|404/i);
    const withoutKey = await fetch(`${app.url}/api/packets`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(withoutKey.status, 401);
    const settingsLeak = JSON.stringify(await client.call('view.perf', [{}]));
    assert.ok(!settingsLeak.includes(app.settings.apiKey), 'the API key never reaches a client');

    // REST mirror and health.
    const rest = await fetch(`${app.url}/api/views/stats`).then((r) => r.json());
    assert.ok(rest.transmissions >= statsMethod.transmissions);
    // The health endpoint tells which connections negotiated permessage-deflate.
    const plain = await DdpClient.connect(`${app.url.replace('http', 'ws')}/websocket`, { perMessageDeflate: false });
    const health = await fetch(`${app.url}/api/health`).then((r) => r.json());
    plain.close();
    assert.equal(health.status, 'ok');
    assert.ok(health.websocketCompression.negotiated.deflate >= 1, JSON.stringify(health.websocketCompression));
    assert.ok(health.websocketCompression.negotiated.none >= 1, JSON.stringify(health.websocketCompression));
    assert.ok(health.publish.subscribers >= subscribed.length);

    // Shared serialization (imports/api/ddp/shared-send.js) must be what this Meteor runs: if a
    // Meteor upgrade changed the ddp-server internals it relies on, this fails with the reason.
    assert.equal(health.sharedSend.mode, 'shared', `shared DDP sends fell back: ${health.sharedSend.fallbackReason}`);
    assert.ok(health.sharedSend.sharedRelays >= subscribed.length && health.sharedSend.sharedSends > 0, JSON.stringify(health.sharedSend));
    // Sessions that negotiated permessage-deflate get the shared deflate's pre-built frames too,
    // but for the first one where the shared deflate is installed through it (Meteor 3.5+).
    const lateInstall = health.sharedDeflate.via === 'first websocket connection';
    assert.deepEqual(health.sharedSend.framedFallbacks, lateInstall ? { 'permessage-deflate does not drive the shared deflate': 1 } : {}, JSON.stringify(health.sharedSend));
    assert.ok(health.sharedSend.framedWrites > 0, JSON.stringify(health.sharedSend));
    // View documents are plain JSON: their texts skip EJSON (stringifyPlainDDP), and the clients
    // above read them; the live feed's rows went out as batches (one write per session per tick).
    assert.ok(health.sharedSend.plainSerializations > 0, JSON.stringify(health.sharedSend));
    assert.ok(health.sharedSend.batches > 0 && health.sharedSend.batchFramedWrites > 0, JSON.stringify(health.sharedSend));
    // Shared permessage-deflate: installed into Meteor's extension, and the deflate client above
    // decoded every message it got (stored small ones, shared compressed large ones).
    assert.equal(health.sharedDeflate.installed, true, `shared deflate not installed: ${health.sharedDeflate.reason}`);
    // On Meteor 3.1.1+ (permessage-deflate2) messages under the package's own threshold go out
    // as plain frames before the shared compressor sees them, so none is stored there.
    const smallOnesReachUs = !(health.sharedDeflate.packageThresholdBytes > 0);
    assert.ok(health.sharedDeflate.messages > 0 && (health.sharedDeflate.stored > 0 || !smallOnesReachUs) && health.sharedDeflate.compressed > 0, JSON.stringify(health.sharedDeflate));
    // A second client of the same views reuses the texts already made for the first.
    const second = await DdpClient.connect(`${app.url.replace('http', 'ws')}/websocket`);
    try {
      const beforeJoin = (await fetch(`${app.url}/api/health`).then((r) => r.json())).sharedSend;
      await second.subscribe('view.stats', [{}]);
      await second.subscribe('packets.live', [{ limit: 10 }]);
      const afterJoin = (await fetch(`${app.url}/api/health`).then((r) => r.json())).sharedSend;
      assert.ok(second.collection('meshpulse.views').get(viewDocumentId('stats', {})).transmissions > 0);
      assert.equal(second.collection('meshpulse.live').size, 10);
      assert.ok(afterJoin.sharedSends - beforeJoin.sharedSends >= 11, JSON.stringify(afterJoin));
      // Writes are batched per session per tick (the SockJS path to the TCP socket was found).
      assert.ok(afterJoin.corkedSockets > 0, `no socket was corked: ${JSON.stringify(afterJoin)}`);
      // Byte-for-byte what the first client holds (both came from the same cached snapshot or a later one).
      const firstDoc = withoutVolatile(client.collection('meshpulse.views').get(viewDocumentId('stats', {})));
      const secondDoc = withoutVolatile(second.collection('meshpulse.views').get(viewDocumentId('stats', {})));
      assert.deepEqual(Object.keys(secondDoc).sort(), Object.keys(firstDoc).sort());
    } finally {
      second.close();
    }
  } finally {
    client.close();
    await app.stop();
  }
});
