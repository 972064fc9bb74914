// Meteor's test module (`meteor test --driver-package <driver>`): checks that the core loads
// inside Meteor's module system exactly as under Node. The full suites run under plain Node
// (`npm test`); the app end to end runs in tests/e2e against `meteor run`.
import assert from 'assert';
import { Meteor } from 'meteor/meteor';
import { createEngine } from '/imports/core/engine';
import { createSimulator } from '/imports/core/simulate';

if (Meteor.isServer) {
  const simulator = createSimulator({ seed: 1 });
  const engine = createEngine({ channels: simulator.channels });
  for (const message of simulator.messages(200)) {
    engine.ingest({ raw: message.payload.raw, observerId: message.topic.split('/')[2], snr: message.payload.SNR, rssi: message.payload.RSSI });
  }
  assert.ok(engine.store.size > 0, 'the core engine ingests inside Meteor');
}
