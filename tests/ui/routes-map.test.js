'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { routeLine, routeLines, linePath } = require('../../imports/ui/lib/map-data');
const { statusSeries, airtimePct, snrBars } = require('../../imports/ui/lib/observer-series');

const place = (name, lat, lon, extra = {}) => ({ pubKey: `${name}key`, name, role: 'repeater', lat, lon, ...extra });
const hop = (name, lat, lon) => ({ hop: name.slice(0, 2), status: 'resolved', candidates: 1, ...place(name, lat, lon) });
const unresolved = (status = 'ambiguous') => ({ hop: 'ab', status, candidates: 3, pubKey: null, name: null, role: null, lat: null, lon: null });

test('a route is drawn through its placed points; skipped hops make the segment across them dashed', () => {
  const route = {
    hash: 'h1', time: 5, type: 'GRP_TXT', payloadType: 5,
    source: place('Src', 37.1, -122.1),
    hops: [hop('Aa', 37.2, -122.2), unresolved(), unresolved('unknown'), hop('Bb', 37.3, -122.3)],
    observer: { id: 'OBS', name: 'Obs', lat: 37.4, lon: -122.4 },
  };
  const line = routeLine(route);
  assert.deepEqual(line.points.map((p) => p.label), ['Src', 'Aa', 'Bb', 'Obs']);
  assert.deepEqual(line.segments.map((s) => s.dashed), [false, true, false]);
  assert.equal(line.skipped, 2);
  assert.equal(line.hops, 4);
  const d = linePath(line.points, (p) => [p.x * 1000, p.y * 1000]);
  assert.match(d, /^M[-\d.]+,[-\d.]+(L[-\d.]+,[-\d.]+){3}$/);
});

test('a route with fewer than two placed points is not drawn, and is counted', () => {
  const lonely = { hash: 'h2', hops: [unresolved()], source: null, observer: { id: 'X', lat: null, lon: null } };
  assert.equal(routeLine(lonely), null);
  // A source that is also the first hop is one point, not a zero-length segment.
  const twice = { hash: 'h3', source: place('Aa', 37, -122), hops: [hop('Aa', 37, -122)], observer: { id: 'O', lat: 37.5, lon: -122 } };
  assert.equal(routeLine(twice).points.length, 2);
  const { lines, undrawable } = routeLines([twice, lonely, { ...twice, hash: 'h4' }]);
  assert.deepEqual(lines.map((l) => l.hash), ['h4', 'h3'], 'oldest first (the view sends newest first)');
  assert.equal(undrawable, 1);
  assert.deepEqual(routeLines(null), { lines: [], undrawable: 0 });
});

test('status history becomes battery, noise, airtime share and error series; a reboot leaves a gap', () => {
  const history = [
    { time: 0, batteryMv: 4100, noiseFloorDbm: -110, uptimeSecs: 1000, txAirSecs: 10, rxAirSecs: 100, radioErrors: 2 },
    { time: 60e3, batteryMv: 4090, noiseFloorDbm: -111, uptimeSecs: 1060, txAirSecs: 13, rxAirSecs: 106, radioErrors: 5 },
    { time: 120e3, batteryMv: null, noiseFloorDbm: -109, uptimeSecs: 30, txAirSecs: 1, rxAirSecs: 2, radioErrors: 0 },
  ];
  const series = statusSeries(history);
  assert.deepEqual(series.battery.map((p) => p.y), [4.1, 4.09, null]);
  assert.deepEqual(series.noise.map((p) => p.y), [-110, -111, -109]);
  assert.deepEqual(series.txPct.map((p) => p.y), [5, null]);
  assert.deepEqual(series.rxPct.map((p) => p.y), [10, null]);
  assert.deepEqual(series.errors.map((p) => p.y), [3, null]);
  assert.equal(airtimePct(50, 1000), 5);
  assert.equal(airtimePct(50, 0), null);
  assert.deepEqual(statusSeries([]), { battery: [], noise: [], txPct: [], rxPct: [], errors: [] });
});

test('SNR bins become one bar per whole dB, gaps filled with zeros', () => {
  assert.deepEqual(snrBars([{ snr: -2, count: 3 }, { snr: 1, count: 1 }]).map((b) => [b.label, b.value]), [['-2', 3], ['-1', 0], ['0', 0], ['1', 1]]);
  assert.deepEqual(snrBars([]), []);
});
