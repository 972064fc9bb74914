'use strict';
/**
 * Observer reports from the simulator, parsed as the MQTT source parses them, held in memory for
 * a benchmark to ingest: { reports, channels } (channels as createEngine takes them).
 * `simulatorOptions`: createSimulator's (seed, profile, any option a study varies).
 */
const { createSimulator } = require('../../imports/core/simulate');
const { parseObserverMessage } = require('../../imports/core/observer-message');

function simulatedReports(simulatorOptions, count) {
  const sim = createSimulator(simulatorOptions);
  const reports = [];
  for (const message of sim.messages(count)) {
    const time = Date.parse(message.payload.timestamp);
    const { report, error } = parseObserverMessage(message.topic, JSON.stringify(message.payload), time);
    if (error) throw new Error(error.message);
    reports.push(report);
  }
  return { reports, channels: sim.channels.map((c) => ({ name: c.name, key: c.key })) };
}

module.exports = { simulatedReports };
