'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { resolveSettings, DEFAULT_SETTINGS } = require('../../imports/core/settings');
const { websocketCompressionEnv, describeWebsocketCompression, supportsThreshold } = require('../../imports/core/compression');

test('settings merge over the defaults without losing nested defaults', () => {
  const settings = resolveSettings({ store: { memoryBudgetMB: 64 }, channels: ['#x'], public: { tileUrl: 'http://t/{z}/{x}/{y}.png' } }, { MESHPULSE_API_KEY: 'k' });
  assert.equal(settings.store.memoryBudgetMB, 64);
  assert.equal(settings.store.maxTransmissions, DEFAULT_SETTINGS.store.maxTransmissions);
  assert.deepEqual(settings.channels, ['#x']);
  assert.equal(settings.apiKey, 'k');
  assert.equal(settings.public.defaultDataMode, 'reactive');
  assert.equal(DEFAULT_SETTINGS.store.memoryBudgetMB, 512, 'defaults are not mutated');
});

test('compression presets map to the environment value Meteor reads', () => {
  assert.equal(websocketCompressionEnv('off', '3.5.2'), 'false');
  assert.equal(websocketCompressionEnv('meteor-default', '3.5.2'), undefined);
  assert.equal(JSON.parse(websocketCompressionEnv('threshold-fast', 'METEOR@3.5.2')).threshold, 1024);
  // Meteor 3.0.x rejects `threshold` at start-up, so it is left out there.
  assert.equal(JSON.parse(websocketCompressionEnv('threshold-fast', 'METEOR@3.0.4')).threshold, undefined);
  assert.equal(supportsThreshold('3.1.1'), true);
  assert.equal(supportsThreshold('3.1.0'), false);
  assert.throws(() => websocketCompressionEnv('gzip9', '3.5.2'), /unknown compression preset/);
  assert.equal(describeWebsocketCompression(websocketCompressionEnv('balanced', '3.5.2')).mode, 'balanced');
  assert.equal(describeWebsocketCompression(undefined).mode, 'meteor-default');
  assert.equal(describeWebsocketCompression('{nope').mode, 'invalid');
  // What npm start sets for meteor-default with the shared deflate on (scripts/start.js).
  assert.equal(describeWebsocketCompression('{"level":6,"memLevel":8,"maxWindowBits":15}').mode, 'meteor-default (shared deflate, level 6, full window)');
  // What it set before level 6 is now someone's own choice.
  assert.equal(describeWebsocketCompression('{"memLevel":8,"maxWindowBits":15}').mode, 'custom');
  assert.equal(describeWebsocketCompression('{"memLevel":9,"maxWindowBits":15}').mode, 'custom');
});

test('store settings become the store options, caps and windows included', () => {
  const { storeOptions } = require('../../imports/core/settings');
  const { PacketStore } = require('../../imports/core/store');
  const options = storeOptions(resolveSettings({ store: { memoryBudgetMB: 64, directory: { maxNodes: 500 } } }, {}).store);
  assert.equal(options.memoryBudgetBytes, 64 * 1024 * 1024);
  assert.equal(options.directory.maxNodes, 500);
  assert.equal(options.directory.maxAgeMs, 30 * 24 * 3600e3);
  const store = new PacketStore(options);
  assert.equal(store.directory.options.maxNodes, 500, 'the configured cap');
  assert.equal(store.directory.options.maxIdleObservers, 1000, 'unset caps keep their defaults');
  assert.equal(store.options.viewBatch, 2048, 'views run in batches by default');
  assert.equal(storeOptions(resolveSettings({ store: { viewBatch: 0 } }, {}).store).viewBatch, 0);
  for (const bad of [-1, 1.5, '100', 1e9]) {
    assert.throws(() => storeOptions(resolveSettings({ store: { viewBatch: bad } }, {}).store), /store\.viewBatch is .*integer from 0/);
  }
});

test('region scopes and the publish switches have settings defaults; the benchmarks\' env switches override them', () => {
  const { REGION_SCOPE_DEFAULTS } = require('../../imports/core/analytics/region-scope');
  const { SHARED_DEFLATE_DEFAULTS } = require('../../imports/core/shared-deflate');
  const { createEngine } = require('../../imports/core/engine');
  const defaults = resolveSettings({}, {});
  // The settings name the same defaults the code has, option for option.
  assert.deepEqual(defaults.regionScope, { maxInstances: 16, idleMs: 600000, maxCreationsPerMinute: 120 });
  for (const [name, value] of Object.entries(defaults.regionScope)) assert.equal(REGION_SCOPE_DEFAULTS[name], value, name);
  assert.equal(defaults.publish.sharedSend, true);
  assert.equal(defaults.publish.sharedDeflate, true);
  assert.equal(defaults.publish.deflateThresholdBytes, SHARED_DEFLATE_DEFAULTS.thresholdBytes);
  assert.equal(defaults.publish.deflateFirstUseLevel, SHARED_DEFLATE_DEFAULTS.firstUseLevel);
  // settings.json changes them, and the engine takes the region-scope ones.
  const configured = resolveSettings({ regionScope: { maxInstances: 4 }, publish: { sharedSend: false, deflateThresholdBytes: 256 } }, {});
  assert.deepEqual(configured.regionScope, { maxInstances: 4, idleMs: 600000, maxCreationsPerMinute: 120 });
  assert.equal(configured.publish.sharedSend, false);
  assert.equal(configured.publish.sharedDeflate, true);
  assert.equal(configured.publish.deflateThresholdBytes, 256);
  assert.equal(configured.publish.intervalMs, 250, 'other publish defaults kept');
  const engine = createEngine({ channels: [], regionScope: configured.regionScope });
  assert.equal(engine.regionScopes.stats().maxInstances, 4);
  assert.equal(engine.regionScopes.options.maxCreationsPerMinute, 120);
  // The env switches win over settings.json: 'off' disables, another value enables.
  const env = resolveSettings({ publish: { sharedSend: false } }, { MESHPULSE_SHARED_SEND: 'on', MESHPULSE_SHARED_DEFLATE: 'off', MESHPULSE_DEFLATE_THRESHOLD: '0' });
  assert.equal(env.publish.sharedSend, true);
  assert.equal(env.publish.sharedDeflate, false);
  assert.equal(env.publish.deflateThresholdBytes, 0);
  assert.equal(resolveSettings({}, {}).publish.deflateFirstUseLevel, 1);
  assert.equal(resolveSettings({}, { MESHPULSE_DEFLATE_FIRST_USE_LEVEL: 'off' }).publish.deflateFirstUseLevel, null);
  assert.equal(resolveSettings({ publish: { deflateFirstUseLevel: null } }, { MESHPULSE_DEFLATE_FIRST_USE_LEVEL: '3' }).publish.deflateFirstUseLevel, 3);
  assert.equal(resolveSettings({}, { MESHPULSE_SHARED_SEND: 'off' }).publish.sharedSend, false);
  assert.equal(resolveSettings({}, { MESHPULSE_SHARED_SEND: '' }).publish.sharedSend, true, 'an empty variable is unset');
});

test('the simulator\'s mesh profile: default unless settings.json or MESHPULSE_SIM_PROFILE names one; an unknown one is refused by name', () => {
  const { simulatorOptions } = require('../../imports/core/settings');
  const { createSimulatorFeed } = require('../../imports/ingest/simulator-feed');
  assert.deepEqual(simulatorOptions(resolveSettings({}, {}).sources.simulator), { seed: 2026, profile: 'default' });
  assert.equal(resolveSettings({ sources: { simulator: { profile: 'large' } } }, {}).sources.simulator.profile, 'large');
  const fromEnv = resolveSettings({ sources: { simulator: { seed: 9 } } }, { MESHPULSE_SIM_PROFILE: 'large' }).sources.simulator;
  assert.deepEqual(simulatorOptions(fromEnv), { seed: 9, profile: 'large' });
  assert.throws(() => simulatorOptions({ seed: 1, profile: 'huge' }), /sources\.simulator\.profile \(or MESHPULSE_SIM_PROFILE\) is "huge"; known profiles: default, large/);
  // What the server builds from them (imports/startup/server/index.js): the feed's mesh is the named one.
  const feedOf = (simulator) => createSimulatorFeed({ pipeline: { submitMessage() {} }, simulator: simulatorOptions(simulator) });
  const meshOf = (feed) => {
    const regions = new Set();
    const observers = new Set();
    for (const message of feed.simulator.messages(3000)) {
      const [, region, observer] = message.topic.split('/');
      regions.add(region);
      observers.add(observer);
    }
    return { nodes: feed.simulator.nodes.length, regions: regions.size, observers: observers.size };
  };
  const large = meshOf(feedOf(fromEnv));
  const small = meshOf(feedOf(resolveSettings({}, {}).sources.simulator));
  assert.ok(large.nodes >= 5000 && large.regions >= 4 && large.observers >= 60, `large mesh: ${JSON.stringify(large)}`);
  assert.ok(small.nodes < 500 && small.observers <= 8, `default mesh: ${JSON.stringify(small)}`);
});

test('shutdown: the flush gives up before the stop\'s deadline, so its failure is logged before the exit', () => {
  const { shutdown } = resolveSettings({}, {});
  assert.equal(shutdown.deadlineMs, 15000);
  assert.equal(shutdown.flushTimeoutMs, 10000);
  assert.ok(shutdown.flushTimeoutMs < shutdown.deadlineMs);
  assert.equal(resolveSettings({ shutdown: { deadlineMs: 60000 } }, {}).shutdown.flushTimeoutMs, 10000, 'a partial override keeps the other default');
});
