'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { createEngine } = require('../../../imports/core/engine');
const { simulatedReports } = require('../../helpers/mesh');

// view.js keeps versions for at most 50,000 watched scopes, then clears them all.
const PAST_THE_CAP = 50001;

test('scope versions past their 50,000 watched scopes: cleared, and no change to a watched scope is ever missed', () => {
  const { reports, channels } = simulatedReports({ seed: 8, count: 400 });
  const engine = createEngine({ channels, views: ['observer'] });
  for (const report of reports.slice(0, 300)) engine.ingest(report);
  const view = engine.view('observer');
  const { observerId } = reports[0];
  const nextReport = (i) => ({ ...reports[300 + i], observerId });
  const flood = (tag) => { for (let i = 0; i < PAST_THE_CAP; i++) view.versionFor({ id: `${tag}-${i}` }); };

  // Watched, flooded out, then changed: the version moves.
  const seen = view.versionFor({ id: observerId });
  flood('a');
  engine.ingest(nextReport(0));
  assert.notEqual(view.versionFor({ id: observerId }), seen, 'changed after the flood');

  // Watched, changed while watched, flooded out before anyone asked: it still moves.
  const seenAgain = view.versionFor({ id: observerId });
  engine.ingest(nextReport(1));
  flood('b');
  assert.notEqual(view.versionFor({ id: observerId }), seenAgain, 'changed before the flood');

  // With nothing changed, asking again gives the same version (a subscriber recomputes once).
  const settled = view.versionFor({ id: observerId });
  assert.equal(view.versionFor({ id: observerId }), settled);
  // Another observer's first hearing of a new transmission does not move this one's version.
  const heard = new Set(reports.slice(0, 302).map((report) => report.raw));
  const other = reports.slice(300).find((report) => report.observerId !== observerId && !heard.has(report.raw));
  assert.equal(engine.ingest(other).isNew, true);
  assert.equal(view.versionFor({ id: observerId }), settled);
});
