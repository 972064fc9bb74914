'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { checkAgainstBruteForce, simulatedReports, assertClose, seededRandom, namesKey, nodeKeysOf, observationsNaming } = require('../../helpers/mesh');
const { createEngine } = require('../../../imports/core/engine');
const { sharedTracker } = require('../../../imports/core/analytics/node-tracker');
const { KnownKeys } = require('../../../imports/core/analytics/observation-keys');
const { VIEWS_BY_NAME } = require('../../../imports/core/analytics');
const { nodeStatus } = require('../../../imports/core/node-status');
const { PAYLOAD_TYPES } = require('../../../imports/core/decode');
const { bruteNewest, bruteChoose, bruteDescribe, bruteRows, checkStretched } = require('./bucket-brute');

const HOUR = 3600e3;
const DAY = 24 * HOUR;

const average = (values) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : null);
const byCountThenKey = (a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1);


/** Brute force, straight from the definitions, over every stored transmission. */
function bruteNode(store, params, now) {
  const node = store.nodes.get(params.pubKey);
  if (!node) return { found: false };
  const pubKey = node.pubKey;
  // Per-key definition (node-tracker.js): a node's figures sum those of its keys (public key,
  // address key, and a repeater's 1-, 2- and 3-byte prefixes); a transmission counts once per key that it names.
  const keys = nodeKeysOf(store, pubKey);
  const all = store.transmissions();
  // Each key sees the observations that name it (all of them for its advert, src and dest keys;
  // for a hop key those whose path shows the hop): a keyed copy of the transmission carries them.
  // (defined, not assigned: a stored transmission may expose `observations` as a getter)
  const keyed = (tx, key) => Object.create(tx, { observations: { value: observationsNaming(tx, key) } });
  const keyTxs = keys.map((key) => [key, all.filter((tx) => namesKey(tx, key)).map((tx) => keyed(tx, key))]);
  const txs = keyTxs.flatMap(([, list]) => list); // with a repeat per key
  const union = all.filter((tx) => keys.some((key) => namesKey(tx, key)));
  const snrs = (list) => list.filter((o) => o.snr !== null).map((o) => o.snr);
  const observationsOf = (list) => list.flatMap((tx) => tx.observations);

  const sharers = Array.from(store.nodes.values()).filter((n) => n.pubKey !== pubKey && n.pubKey.slice(0, 2) === pubKey.slice(0, 2))
    .map((n) => ({ pubKey: n.pubKey, name: n.name, role: n.role })).sort((a, b) => (a.pubKey < b.pubKey ? -1 : 1));
  const advertTxs = all.filter((tx) => tx.advert && tx.advert.pubKey === pubKey);
  const adverts = advertTxs.slice(-20).reverse().map((tx) => ({
    time: tx.time, timestamp: tx.advert.timestamp, name: tx.advert.name, lat: tx.advert.lat, lon: tx.advert.lon, role: tx.advert.role,
    observers: Array.from(new Set(tx.observations.map((o) => o.observer.id))),
  }));

  const observations = observationsOf(txs);
  const perObserver = new Map();
  for (const o of observations) {
    if (!perObserver.has(o.observer.id)) perObserver.set(o.observer.id, []);
    perObserver.get(o.observer.id).push(o);
  }
  const midnight = Math.floor(now / DAY) * DAY;
  const health = {
    status: nodeStatus(node, now),
    lastHeard: node.lastSeen,
    observerCount: perObserver.size,
    packets: txs.length,
    packetsToday: txs.filter((tx) => tx.time >= midnight && tx.time < midnight + DAY).length,
    meanSnr: average(snrs(observations)),
    meanRssi: average(observations.filter((o) => o.rssi !== null).map((o) => o.rssi)),
    meanHops: average(txs.map((tx) => tx.hopCount)),
    observers: Array.from(perObserver).map(([id, list]) => [id, list.length, list]).sort(byCountThenKey)
      .map(([id, count, list]) => ({ observer: id, count, meanSnr: average(snrs(list)), meanRssi: average(list.filter((o) => o.rssi !== null).map((o) => o.rssi)) })),
    recentPackets: union.slice(-10).reverse().map((tx) => ({ hash: tx.hash, time: tx.time, payloadType: tx.payloadType, hops: tx.hopCount, snr: average(snrs(tx.observations)) })),
  };

  // Window: the last `days` UTC calendar days, today included.
  const today = Math.floor(now / DAY) * DAY;
  const windowStart = today - (params.days - 1) * DAY;
  const currentHour = Math.floor(now / HOUR) * HOUR;
  const inWindowOf = (list) => list.filter((tx) => tx.time >= windowStart && tx.time < today + DAY);
  const inWindow = inWindowOf(txs);
  // Availability and silence count from the node's first hearing, not from the window start.
  const heardFrom = Math.min(Math.max(windowStart, node.firstSeen), now);
  const firstHour = Math.floor(heardFrom / HOUR) * HOUR;
  const hours = new Map();
  for (const tx of inWindow) {
    const hour = Math.floor(tx.time / HOUR) * HOUR;
    if (!hours.has(hour)) hours.set(hour, []);
    hours.get(hour).push(tx);
  }
  const hourList = Array.from(hours.keys()).sort((a, b) => a - b);
  const packetTypes = {};
  for (const tx of inWindow) {
    const name = PAYLOAD_TYPES[tx.payloadType] || `TYPE_${tx.payloadType}`;
    packetTypes[name] = (packetTypes[name] || 0) + 1;
  }
  const coverage = new Map();
  for (const o of observationsOf(inWindow)) coverage.set(o.observer.id, (coverage.get(o.observer.id) || 0) + 1);
  const hopDistribution = { 0: 0, 1: 0, 2: 0, 3: 0, '4+': 0 };
  for (const tx of inWindow) hopDistribution[tx.hopCount >= 4 ? '4+' : String(tx.hopCount)]++;
  const peers = new Map();
  let relayed = 0;
  for (const [key, list] of keyTxs) {
    for (const tx of inWindowOf(list)) {
      if (tx.observations.some((o) => o.path.includes(key))) relayed++;
      const src = tx.srcHash !== null ? `@${tx.srcHash}` : null;
      const dest = tx.destHash !== null ? `@${tx.destHash}` : null;
      const origin = (tx.advert && tx.advert.pubKey === key) || src === key;
      for (const o of tx.observations) {
        const adjacent = new Set();
        o.path.forEach((hop, i) => {
          if (hop !== key) return;
          if (i > 0) adjacent.add(o.path[i - 1]);
          if (i < o.path.length - 1) adjacent.add(o.path[i + 1]);
        });
        if (origin && o.path.length) adjacent.add(o.path[0]);
        if (src === key && dest) adjacent.add(dest);
        if (dest === key && src) adjacent.add(src);
        adjacent.delete(key);
        for (const peer of adjacent) peers.set(peer, (peers.get(peer) || 0) + 1);
      }
    }
  }
  const heatmap = Array.from({ length: 7 }, () => new Array(24).fill(0));
  for (const tx of inWindow) heatmap[new Date(tx.time).getUTCDay()][new Date(tx.time).getUTCHours()]++;
  const times = inWindowOf(union).map((tx) => tx.time).filter((time) => time >= heardFrom);
  const edges = [heardFrom, ...times, now];
  let longestSilence = { ms: 0, from: heardFrom, to: heardFrom };
  for (let i = 1; i < edges.length; i++) {
    if (edges[i] - edges[i - 1] > longestSilence.ms) longestSilence = { ms: edges[i] - edges[i - 1], from: edges[i - 1], to: edges[i] };
  }
  const windowSnrs = snrs(observationsOf(inWindow));
  const snrMean = average(windowSnrs);
  const snrStdDev = snrMean === null ? null : Math.sqrt(average(windowSnrs.map((x) => (x - snrMean) ** 2)));
  let signalGrade = null;
  if (snrMean !== null) {
    if (snrMean > 15 && snrStdDev < 2) signalGrade = 'A';
    else if (snrMean > 15) signalGrade = 'A-';
    else if (snrMean > 12 && snrStdDev < 3) signalGrade = 'B+';
    else if (snrMean > 8) signalGrade = 'B';
    else if (snrMean > 3) signalGrade = 'C';
    else signalGrade = 'D';
  }
  const analytics = {
    days: params.days,
    windowStart,
    packets: inWindow.length,
    relayed,
    relayPct: inWindow.length ? (100 * relayed) / inWindow.length : null,
    ...bruteActivity(inWindow, params, heardFrom, now, bruteNewest(store), snrs, hours, hourList),
    packetTypes,
    observerCoverage: Array.from(coverage).sort(byCountThenKey).map(([observer, count]) => ({ observer, count })),
    hopDistribution,
    topPeers: Array.from(peers).sort(byCountThenKey).slice(0, 20).map(([peer, count]) => {
      // An address key names any node starting with its hex; a hop key only repeaters (only they relay).
      const address = peer.startsWith('@');
      const candidates = Array.from(store.nodes.values()).filter((n) => (address ? n.pubKey.startsWith(peer.slice(1)) : n.role === 'repeater' && n.pubKey.startsWith(peer)));
      return { peer, count, address, candidates: candidates.length, name: candidates.length === 1 ? candidates[0].name : null, node: candidates.length === 1 ? candidates[0].pubKey : null };
    }),
    heatmap,
    activeHours: hourList.filter((hour) => hour <= currentHour && hour >= firstHour).length,
    heardFrom,
    availabilityPct: (100 * hourList.filter((hour) => hour <= currentHour && hour >= firstHour).length) / ((currentHour - firstHour) / HOUR + 1),
    longestSilence,
    snrMean,
    snrStdDev,
    signalGrade,
  };
  return {
    found: true,
    node: {
      pubKey, name: node.name, role: node.role, lat: node.lat, lon: node.lon, firstSeen: node.firstSeen, lastSeen: node.lastSeen,
      lastAdvert: node.lastAdvert, status: nodeStatus(node, now), advertsStored: advertTxs.length,
    },
    ambiguousPrefix: sharers.length > 0,
    sharesPrefixWith: sharers,
    adverts,
    health,
    analytics,
  };
}

/** Activity and SNR trend in the bucket 'auto' or the caller picks (per-key packets and observations). */
function bruteActivity(inWindow, params, heardFrom, now, lastTime, snrs, hours, hourList) {
  const size = bruteChoose(params.bucket, heardFrom, now, 180, lastTime);
  const bucket = bruteDescribe(size, params.bucket, lastTime);
  if (size === 'hour') {
    return {
      bucket,
      activity: hourList.map((hour) => ({ time: hour, packets: hours.get(hour).length })),
      snrTrend: hourList.filter((hour) => snrs(hours.get(hour).flatMap((tx) => tx.observations)).length)
        .map((hour) => ({ time: hour, meanSnr: average(snrs(hours.get(hour).flatMap((tx) => tx.observations))) })),
    };
  }
  const events = inWindow.map((tx) => ({ time: tx.time, add: (row) => { row[0]++; for (const snr of snrs(tx.observations)) { row[1] += snr; row[2]++; } } }));
  const rows = Array.from(bruteRows(events, size, lastTime, 3));
  return {
    bucket,
    activity: rows.map(([time, row]) => ({ time, packets: row[0] })),
    snrTrend: rows.filter(([, row]) => row[2] > 0).map(([time, row]) => ({ time, meanSnr: row[1] / row[2] })),
  };
}

/** Nodes worth checking: the busiest, one sharing its first byte with another, the first and last learned, an unknown key. */
function interestingParams(store) {
  const nodes = Array.from(store.nodes.values());
  if (nodes.length === 0) return [{ pubKey: 'ab'.repeat(32) }];
  const busiest = nodes.reduce((best, node) => (store.transmissionsOfNode(node.pubKey).length > store.transmissionsOfNode(best.pubKey).length ? node : best));
  const shared = nodes.find((node) => nodes.some((other) => other !== node && other.pubKey.slice(0, 2) === node.pubKey.slice(0, 2)));
  const list = [
    { pubKey: busiest.pubKey }, { pubKey: busiest.pubKey, days: 1 }, { pubKey: busiest.pubKey.toUpperCase(), days: 90 },
    { pubKey: nodes[0].pubKey, days: 2 }, { pubKey: nodes[nodes.length - 1].pubKey },
    { pubKey: '00'.repeat(32) },
  ];
  if (shared) list.push({ pubKey: shared.pubKey, days: 3 });
  return list;
}

test('node equals a brute-force recomputation after random inserts and evictions', () => {
  checkAgainstBruteForce({ view: 'node', bruteForce: bruteNode, paramsList: interestingParams });
});

const BUCKETS = ['auto', 'minute', '5min', '15min', 'hour'];

test('node activity and SNR trend buckets stay exact over days, every size', () => {
  const autoSizes = new Set();
  const paramsList = (store) => interestingParams(store).slice(0, 4).flatMap((p) => BUCKETS.map((bucket) => ({ ...p, bucket })));
  for (const stretch of [2, 10, 30, 150]) {
    const { engine, seen } = checkStretched({ view: 'node', bruteForce: bruteNode, paramsList, stretch, count: 1500, checks: 5 });
    for (const size of seen) autoSizes.add(size);
    if (stretch === 150) {
      while (engine.store.size) engine.store.evictOldest();
      assert.deepEqual(engine.view('node').state.fine.rowCounts(), { minute: 0, '5min': 0 });
    }
  }
  assert.deepEqual([...autoSizes].sort(), ['15min', '5min', 'hour', 'minute']);
});

test('node time rows are charged to the memory account, the same bytes for the same stored packets whatever the history', () => {
  // Times stretched over two days, so minute and 5-minute windows drop rows as time moves on.
  const { reports, channels } = simulatedReports({ seed: 31, count: 2500 });
  const t0 = reports[0].time;
  for (const report of reports) report.time = t0 + Math.round((report.time - t0) * 60);
  const live = createEngine({ channels, views: ['node'] });
  const random = seededRandom(77);
  const reportsOf = new Map(); // hash -> its reports, in arrival order
  for (const report of reports) {
    const result = live.ingest(report);
    if (result.observation) {
      // A hash stored again after its eviction starts over.
      if (result.isNew) reportsOf.set(result.tx.hash, []);
      reportsOf.get(result.tx.hash).push(report);
    }
    if (random() < 0.4) live.store.evictOldest();
  }
  const part = live.store.memory.part('node');
  assert.ok(part.bytes > 0, 'the rows are charged');
  // A store that only ever saw the stored packets (another order of arrivals and evictions).
  const fresh = createEngine({ channels, views: ['node'] });
  const stored = live.store.transmissions();
  const replay = stored.flatMap((tx) => reportsOf.get(tx.hash)).sort((a, b) => a.time - b.time);
  for (const report of replay) fresh.ingest(report);
  assert.equal(fresh.store.size, stored.length);
  assert.deepEqual(fresh.view('node').state.fine.rowCounts(), live.view('node').state.fine.rowCounts());
  assert.equal(fresh.store.memory.part('node').bytes, part.bytes);
  // Every row leaves with its packets, and its bytes with it.
  while (live.store.size > 0) live.store.evictOldest();
  assert.equal(part.bytes, 0);
});

test('node equals the brute force when the tracker keeps almost no transmission\'s earlier keys (each matched again from its observations)', () => {
  // KnownKeys keeps 2,048 transmissions; these meshes never have that many in flight at once.
  checkAgainstBruteForce({
    view: 'node', bruteForce: bruteNode, paramsList: interestingParams, seed: 41, count: 2000, checks: 4,
    prepare: (engine) => { sharedTracker(engine.store).knownKeys = new KnownKeys(2); },
  });
});

test('node equals the brute force for every node, with another seed', () => {
  checkAgainstBruteForce({
    view: 'node', bruteForce: bruteNode, seed: 23, count: 2000, checks: 4,
    paramsList: (store) => Array.from(store.nodes.keys()).map((pubKey, i) => ({ pubKey, days: 1 + (i % 90) })),
  });
});

test('node windows cut through stored traffic: times stretched over ten days', () => {
  const { reports, channels } = simulatedReports({ seed: 13, count: 2400 });
  const start = reports[0].time;
  // Slowed down to span ten days, so 1- and 2-day windows leave packets out and leave silent hours.
  const factor = (10 * DAY) / (reports[reports.length - 1].time - start);
  const stretched = reports.map((report) => ({ ...report, time: Math.round(start + (report.time - start) * factor) }));
  const engine = createEngine({ channels, views: ['node', 'bulkHealth'] });
  let next = 0;
  for (const share of [0.3, 0.6, 1]) {
    while (next < stretched.length * share) engine.ingest(stretched[next++]);
    for (let i = 0; i < engine.store.size * 0.2; i++) engine.store.evictOldest();
    const now = engine.store.lastTime + 5 * HOUR;
    const params = interestingParams(engine.store).flatMap((p) => [p, { pubKey: p.pubKey, days: 1 }, { pubKey: p.pubKey, days: 2 }]);
    for (const raw of params) {
      const normalized = engine.view('node').normalizeParams(raw);
      assertClose(engine.snapshot('node', raw, now), bruteNode(engine.store, normalized, now), `node(${JSON.stringify(raw)})`);
    }
  }
  const busiest = interestingParams(engine.store)[0];
  const analytics = engine.snapshot('node', { pubKey: busiest.pubKey, days: 2 }, engine.store.lastTime).analytics;
  assert.ok(analytics.availabilityPct > 0 && analytics.availabilityPct < 100, 'some hours silent, some not');
  assert.ok(analytics.longestSilence.ms > HOUR, 'a silence longer than an hour');
});

for (const views of [['node'], ['nodes', 'node', 'bulkHealth']]) {
  test(`node tells subscribers only about the nodes a packet involves (views ${views.join(', ')})`, () => {
    const { reports, channels } = simulatedReports({ seed: 5, count: 1500 });
    const engine = createEngine({ channels, views });
    const view = engine.view('node');
    reports.forEach((report, i) => {
      if (i < 1000) {
        engine.ingest(report);
        return;
      }
      const versions = new Map(Array.from(engine.store.nodes.keys(), (pubKey) => [pubKey, view.versionFor({ pubKey })]));
      const { tx, observation } = engine.ingest(report);
      for (const [pubKey, version] of versions) {
        // A report changes the figures of the keys it names itself (node-tracker.js): any key
        // the node could sum (its role can change with its next advert).
        const keys = [pubKey, pubKey.slice(0, 2), pubKey.slice(0, 4), pubKey.slice(0, 6), `@${pubKey.slice(0, 2)}`];
        const involved = Boolean(observation) && keys.some((key) => observationsNaming(tx, key).includes(observation) && namesKey(tx, key));
        if (!involved) assert.equal(view.versionFor({ pubKey }), version, `${pubKey} was not involved`);
        else assert.ok(view.versionFor({ pubKey }) > version, `${pubKey} was involved`);
      }
      if (i % 7 === 0) {
        const oldest = engine.store.fifo.first();
        const before = new Map(Array.from(engine.store.nodes.keys(), (pubKey) => [pubKey, [view.versionFor({ pubKey }), engine.store.transmissionsOfNode(pubKey).includes(oldest)]]));
        engine.store.evictOldest();
        for (const [pubKey, [version, involved]] of before) assert.equal(view.versionFor({ pubKey }) > version, involved, `${pubKey} after eviction`);
      }
    });
  });
}

test('node, nodes and bulkHealth: views added to a filled store equal views fed live, and eviction undoes everything', () => {
  const { reports, channels } = simulatedReports({ seed: 9, count: 2500 });
  const names = ['nodes', 'node', 'bulkHealth'];
  const live = createEngine({ channels, views: names });
  const late = createEngine({ channels, views: [] });
  for (const engine of [live, late]) {
    reports.forEach((report, i) => {
      engine.ingest(report);
      if (i % 5 === 0) engine.store.evictOldest();
    });
  }
  const added = names.map((name) => late.store.addView(VIEWS_BY_NAME.get(name).create(late.store)));
  const now = live.store.lastTime + 1000;
  for (const pubKey of live.store.nodes.keys()) assertClose(added[1].snapshot({ pubKey, days: 30 }, now), live.snapshot('node', { pubKey, days: 30 }, now), pubKey);
  assertClose(added[0].snapshot({ limit: 500 }, now), live.snapshot('nodes', { limit: 500 }, now), 'nodes');
  assertClose(added[2].snapshot({ limit: 200 }, now), live.snapshot('bulkHealth', { limit: 200 }, now), 'bulkHealth');
  // A view registered after the others shares their aggregates and ignores its catch-up replay.
  const another = live.store.addView(VIEWS_BY_NAME.get('bulkHealth').create(live.store));
  assertClose(another.snapshot({ limit: 200 }, now), live.snapshot('bulkHealth', { limit: 200 }, now), 'bulkHealth added late');

  for (const engine of [live, late]) {
    const tracker = engine.store.views.find((view) => view.name === 'node').state.tracker;
    assert.ok(engine.store.views.every((view) => !names.includes(view.name) || view.state.tracker === tracker), 'one tracker per store');
    while (engine.store.size > 0) engine.store.evictOldest();
    for (const aggregate of tracker.aggregates.values()) {
      assert.deepEqual([aggregate.packets, aggregate.relayed, aggregate.hopsSum, aggregate.snrCount, aggregate.rssiCount], [0, 0, 0, 0, 0]);
      assert.equal(aggregate.snrSum, 0);
      assert.equal(aggregate.days.size + aggregate.hours.size, 0, 'buckets left behind');
    }
  }
});

test('node answers { found: false } for an unknown key and rejects a malformed one', () => {
  const engine = createEngine({ views: ['node'] });
  assert.deepEqual(engine.snapshot('node', { pubKey: 'ab'.repeat(32) }), { found: false });
  assert.throws(() => engine.snapshot('node', { pubKey: 'abc' }), /must match/);
  assert.throws(() => engine.snapshot('node', {}), /is required/);
  assert.throws(() => engine.snapshot('node', { pubKey: 'ab'.repeat(32), days: 91 }), /at most 90/);
});

test('node keeps re-read hours only while their buckets are unchanged: exact against the brute force and against a view that keeps none', () => {
  // Times stretched to two hours so that a busy node's hours hold gaps as long as those between
  // hours: then the snapshot must re-read shared hours, and the kept reads get used.
  const { reports, channels } = simulatedReports({ seed: 41, count: 3000 });
  const t0 = reports[0].time;
  const factor = (2 * HOUR) / (reports[reports.length - 1].time - t0);
  const stretched = reports.map((report) => ({ ...report, time: Math.round(t0 + (report.time - t0) * factor) }));
  const keeping = createEngine({ channels, views: ['node'] });
  const fresh = createEngine({ channels, views: ['node'] });
  fresh.view('node').state.hourReads.limit = 0; // reads every time, keeps nothing
  const tight = createEngine({ channels, views: ['node'] });
  tight.view('node').state.hourReads.limit = 1; // keeps one: the least recently used out all the time
  const engines = [keeping, fresh, tight]; // fed and evicted alike
  const random = seededRandom(5);
  let next = 0;
  let compared = 0;
  while (next < stretched.length) {
    const step = 1 + Math.floor(random() * 40);
    for (let i = 0; i < step && next < stretched.length; i++, next++) for (const engine of engines) engine.ingest(stretched[next]);
    if (random() < 0.3) for (const engine of engines) engine.store.evictOldest();
    if (next < 600) continue;
    const now = keeping.store.lastTime + Math.floor(random() * HOUR);
    for (const params of interestingParams(keeping.store).slice(0, 3)) {
      const normalized = keeping.view('node').normalizeParams(params);
      const kept = keeping.snapshot('node', params, now);
      assert.deepEqual(kept, fresh.snapshot('node', params, now), `node(${JSON.stringify(params)}) at report ${next}`);
      assert.deepEqual(tight.snapshot('node', params, now), kept, `node(${JSON.stringify(params)}) at report ${next}, one read kept`);
      if (compared++ % 10 === 0) assertClose(kept, bruteNode(keeping.store, normalized, now), `node(${JSON.stringify(params)}) at report ${next}`);
    }
  }
  const { hits, reads, kept } = keeping.view('node').state.hourReads;
  assert.ok(hits > 50 && reads > 20, `hours were re-read (${reads}) and kept reads used (${hits})`);
  assert.ok(hits > reads, `most re-reads were answered from what was kept (${hits} hits, ${reads} reads)`);
  assert.ok(kept.size <= keeping.view('node').state.hourReads.limit);
  assert.equal(fresh.view('node').state.hourReads.hits, 0);
  assert.ok(tight.view('node').state.hourReads.kept.size <= 1);
  // Keeping one, it forgot reads the other kept, and read those hours again.
  assert.ok(tight.view('node').state.hourReads.reads > reads, `${tight.view('node').state.hourReads.reads} reads keeping one, ${reads} keeping ${keeping.view('node').state.hourReads.limit}`);
});
