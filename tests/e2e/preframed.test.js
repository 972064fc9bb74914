'use strict';
/**
 * End to end, with websocket compression off and with Meteor's default compression (the shared
 * deflate installed, clients negotiating permessage-deflate): shared messages are written
 * pre-framed (one websocket frame built per message for every session, imports/api/ddp/
 * shared-send.js) to raw /websocket clients and to SockJS-framed clients (what a browser's Meteor
 * client uses), and all end up with exactly what the methods return. Fails if this Meteor does not take the
 * pre-framed path (its internals moved) or if a frame it writes does not parse. Skips with the
 * reason when Meteor is not available.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { startApp, MeteorUnavailableError } = require('../helpers/meteor-app');
const { DdpClient } = require('../helpers/ddp-client');
const { viewDocumentId } = require('../../imports/core/view-key');
const { createSimulator } = require('../../imports/core/simulate');
const { withoutVolatile, postPackets } = require('../helpers/app-documents');
const { waitUntil } = require('../helpers/async');

// `late`: the shared deflate installed as on Meteor 3.5, which keeps no handle on its SockJS
// server: through the first websocket connection (imports/api/ddp/shared-send.js
// installSharedDeflate), forced here on the Meteor at hand. That first session keeps the
// package's own zlib, so it alone is written the standard way.
const VARIANTS = [
  { compression: 'off', env: { SERVER_WEBSOCKET_COMPRESSION: 'false' } },
  { compression: 'meteor-default', env: {} },
  { compression: 'meteor-default', env: { MESHPULSE_SHARED_DEFLATE_INSTALL: 'first-connection' }, late: true },
];

for (const { compression, env, late } of VARIANTS) test(`compression ${compression}${late ? ', shared deflate installed through the first websocket connection (as on Meteor 3.5)' : ''}: raw and SockJS websocket clients read pre-framed shared messages`, { timeout: 15 * 60 * 1000 }, async (t) => {
  let app;
  try {
    app = await startApp({ settings: { sources: { simulator: { enabled: false } }, persistence: { enabled: false } }, env });
  } catch (err) {
    if (err instanceof MeteorUnavailableError) {
      t.skip(err.message);
      return;
    }
    throw err;
  }
  const wsUrl = app.url.replace('http', 'ws');
  const clients = [];
  try {
    const sim = createSimulator({ seed: 23 });
    await postPackets(app, sim.messages(300));
    const raw = await DdpClient.connect(`${wsUrl}/websocket`);
    const sockjs = await DdpClient.connect(wsUrl, { sockjs: true });
    // A second session of each transport: they share the first one's frames.
    clients.push(raw, sockjs, await DdpClient.connect(`${wsUrl}/websocket`), await DdpClient.connect(wsUrl, { sockjs: true }));
    for (const client of clients) {
      await client.subscribe('view.stats', [{}]);
      await client.subscribe('view.nodes', [{}]);
      await client.subscribe('packets.live', [{ limit: 12 }]);
    }
    // Live changes: more packets, sent to every session through the tick's shared frames.
    const beforeTicks = (await fetch(`${app.url}/api/health`).then((r) => r.json())).sharedSend;
    await postPackets(app, sim.messages(400));
    const statsId = viewDocumentId('stats', {});
    const nodesId = viewDocumentId('nodes', {});
    await waitUntil(async () => {
      const method = await raw.call('view.stats', [{}]);
      return clients.every((c) => c.collection('meshpulse.views').get(statsId).transmissions === method.transmissions);
    }, 'both clients\' stats reach the method\'s transmission count', 15000);
    const nodesMethod = await raw.call('view.nodes', [{}]);
    await waitUntil(() => clients.every((c) => JSON.stringify(withoutVolatile(c.collection('meshpulse.views').get(nodesId))) === JSON.stringify(withoutVolatile(nodesMethod))), 'both clients\' nodes documents equal the method\'s', 15000);
    const packetsMethod = await raw.call('view.packets', [{ limit: 12 }]);
    const liveHashes = (c) => [...c.collection('meshpulse.live').keys()].sort();
    await waitUntil(() => clients.every((c) => JSON.stringify(liveHashes(c)) === JSON.stringify(packetsMethod.packets.map((p) => p.hash).sort())), 'both live feeds hold the method\'s 12 newest packets', 15000);
    // The two transports carried the same documents.
    assert.deepEqual(withoutVolatile(sockjs.collection('meshpulse.views').get(statsId)), withoutVolatile(raw.collection('meshpulse.views').get(statsId)));
    assert.deepEqual([...sockjs.collection('meshpulse.live').entries()].sort(), [...raw.collection('meshpulse.live').entries()].sort());

    const health = await fetch(`${app.url}/api/health`).then((r) => r.json());
    if (compression === 'off') assert.equal(health.websocketCompression.negotiated.deflate, 0, JSON.stringify(health.websocketCompression));
    else {
      assert.ok(health.websocketCompression.negotiated.deflate >= 4, JSON.stringify(health.websocketCompression));
      assert.equal(health.sharedDeflate.installed, true, health.sharedDeflate.reason);
      if (late) assert.equal(health.sharedDeflate.via, 'first websocket connection', JSON.stringify(health.sharedDeflate));
      assert.ok(health.sharedDeflate.compressed > 0, JSON.stringify(health.sharedDeflate));
    }
    assert.equal(health.sharedSend.mode, 'shared', `shared DDP sends fell back: ${health.sharedSend.fallbackReason}`);
    assert.equal(health.sharedSend.preFramed, true);
    if (late) assert.deepEqual(health.sharedSend.framedFallbacks, { 'permessage-deflate does not drive the shared deflate': 1 }, 'the first session alone kept the package\'s zlib');
    else assert.deepEqual(health.sharedSend.framedFallbacks, {}, 'every websocket session took the pre-framed path');
    assert.ok(health.sharedSend.framedWrites > 0 && health.sharedSend.framesBuilt > 0, JSON.stringify(health.sharedSend));
    // Four sessions, two per transport, all in every group: each tick's frame went to two sessions.
    const built = health.sharedSend.framesBuilt - beforeTicks.framesBuilt;
    const written = health.sharedSend.framedWrites - beforeTicks.framedWrites;
    // With the late install the first raw session writes through its own send: raw frames then
    // go to one session, SockJS ones to two (1.5 writes per frame built).
    const perFrame = late ? 1.5 : 2;
    assert.ok(built > 0 && written >= perFrame * built, `frames are shared between the sessions: ${built} built, ${written} written`);
  } finally {
    for (const client of clients) client.close();
    await app.stop();
  }
});
