'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { createEngine } = require('../../imports/core/engine');
const { createSimulator } = require('../../imports/core/simulate');
const { parseObserverMessage } = require('../../imports/core/observer-message');
const { resolvePath, forwardersOf } = require('../../imports/core/hop-resolver');

/** The large mesh with every node advertised first, and the simulator's truth for each path. */
function largeMesh(count) {
  const sim = createSimulator({ seed: 11, profile: 'large', withTruth: true, startupAdverts: true });
  const engine = createEngine({ views: [], channels: sim.channels.map((c) => ({ name: c.name, key: c.key })) });
  const observed = [];
  for (const message of sim.messages(count)) {
    const { report } = parseObserverMessage(message.topic, JSON.stringify(message.payload), Date.parse(message.payload.timestamp));
    const result = engine.ingest(report);
    if (!result.error && result.observation && message.truth && message.truth.hops.length > 0) observed.push({ result, report, truth: message.truth.hops });
  }
  return { engine, observed };
}

test('hop resolution on the large mesh: only repeaters, and far more often right than wrong', () => {
  const { engine, observed } = largeMesh(12000);
  const tally = { right: 0, wrong: 0, ambiguous: 0, unknown: 0 };
  for (const { result, report, truth } of observed.slice(-3000)) {
    const entries = resolvePath(engine.store, result.observation.path, { observerId: report.observerId, sourceKey: result.tx.advert ? result.tx.advert.pubKey : null });
    entries.forEach((entry, i) => {
      if (entry.status === 'resolved') {
        assert.equal(entry.node.role, 'repeater', 'only a repeater is ever credited with a hop');
        tally[entry.node.pubKey === truth[i].toLowerCase() ? 'right' : 'wrong']++;
      } else {
        tally[entry.status]++;
        if (entry.status === 'ambiguous') assert.ok(entry.candidates.length > 1, 'ambiguous means several candidates');
      }
    });
  }
  const total = tally.right + tally.wrong + tally.ambiguous + tally.unknown;
  // Loose floors (the benchmark measures the real figures): a resolver that guessed would fail.
  assert.ok(tally.wrong / total < 0.1, `wrong ${tally.wrong} of ${total}`);
  assert.ok(tally.right / total > 0.6, `right ${tally.right} of ${total}`);
});

test('a prefix shared by a companion and a repeater resolves to the repeater', () => {
  const engine = createEngine({ views: [] });
  const store = engine.store;
  const key = (first, rest) => first + rest.repeat(31);
  store.restoreNode({ _id: key('ab', '01'), name: 'Companion', role: 'companion', firstSeen: Date.UTC(2026, 0, 1) });
  store.restoreNode({ _id: key('ab', '02'), name: 'Ridge RPT', role: 'repeater', firstSeen: Date.UTC(2026, 0, 1) });
  assert.deepEqual(forwardersOf(store, 'ab').map((node) => node.name), ['Ridge RPT']);
  const [entry] = resolvePath(store, ['ab']);
  assert.equal(entry.status, 'resolved');
  assert.equal(entry.node.name, 'Ridge RPT');
  assert.equal(resolvePath(store, ['cd'])[0].status, 'unknown', 'no repeater carries the prefix');
});
