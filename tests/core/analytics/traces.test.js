'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const traces = require('../../../imports/core/analytics/traces');
const { checkAgainstBruteForce, assertClose } = require('../../helpers/mesh');

const withoutUnits = ({ units, ...figures }) => figures;
const compatible = (a, b) => (a.length <= b.length ? b.startsWith(a) : a.startsWith(b));

function bruteKnown(store, hop) {
  const matches = Array.from(store.nodes.values()).filter((node) => node.pubKey.startsWith(hop));
  return { matchCount: matches.length, node: matches.length === 1 ? { pubKey: matches[0].pubKey, name: matches[0].name, role: matches[0].role } : null };
}

function bruteTraces(store, params) {
  const all = store.transmissions().filter((tx) => tx.payloadType === 9);
  const wanted = (hop) => params.node === null || compatible(hop, params.node);
  const rows = all.slice().reverse().filter((tx) => tx.trace.hashes.some(wanted)).slice(0, params.limit).map((tx) => {
    const { hashes, snrs } = tx.trace;
    return {
      hash: tx.hash,
      time: tx.time,
      tag: tx.trace.tag,
      authCode: tx.trace.authCode,
      flags: tx.trace.flags,
      hashSize: [1, 2, 4, 8][tx.trace.flags & 3],
      routeLength: hashes.length,
      reached: Math.min(snrs.length, hashes.length),
      complete: snrs.length >= hashes.length,
      hops: hashes.map((hash, i) => ({ hash, snr: snrs[i] === undefined ? null : snrs[i], known: bruteKnown(store, hash) })),
      observers: tx.observations.map((o) => ({ id: o.observer.id, name: o.observer.name, region: o.observer.region, snr: o.snr, rssi: o.rssi, time: o.time })),
    };
  });
  // Journeys: same tag, auth code, flags and route; the copy that got furthest (then the newest) counts.
  const journeys = new Map();
  for (const tx of all) {
    const key = JSON.stringify([tx.trace.tag, tx.trace.authCode, tx.trace.flags, tx.trace.hashes]);
    if (!journeys.has(key)) journeys.set(key, []);
    journeys.get(key).push(tx);
  }
  const links = new Map();
  for (const copies of journeys.values()) {
    const reach = (tx) => Math.min(tx.trace.snrs.length, tx.trace.hashes.length);
    const best = copies.slice().sort((a, b) => reach(b) - reach(a) || b.seq - a.seq)[0];
    for (let i = 1; i < reach(best); i++) {
      const key = `${best.trace.hashes[i - 1]}>${best.trace.hashes[i]}`;
      if (!links.has(key)) links.set(key, { from: best.trace.hashes[i - 1], to: best.trace.hashes[i], snrs: [], lastSeen: 0 });
      const link = links.get(key);
      link.snrs.push(best.trace.snrs[i]);
      link.lastSeen = Math.max(link.lastSeen, best.time);
    }
  }
  const linkRows = Array.from(links.values()).filter((link) => wanted(link.from) || wanted(link.to))
    .map((link) => ({ from: link.from, to: link.to, count: link.snrs.length, meanSnr: link.snrs.reduce((s, v) => s + v, 0) / link.snrs.length, lastSeen: link.lastSeen }))
    .sort((a, b) => b.count - a.count || (a.from < b.from ? -1 : a.from > b.from ? 1 : a.to < b.to ? -1 : 1))
    .slice(0, params.limit);
  return { stored: all.length, journeys: journeys.size, traces: rows, truncated: false, links: linkRows };
}

function paramsFor(store) {
  const list = [{}, { limit: 1 }, { limit: 200 }];
  const last = store.byType.get(9);
  if (last && last.length) {
    let hop = null;
    last.forEachNewest((tx) => { hop = tx.trace.hashes[1] || tx.trace.hashes[0] || null; return false; });
    if (hop) list.push({ node: hop }, { node: hop.slice(0, 2), limit: 3 });
  }
  list.push({ node: 'abcdef0123' });
  return list;
}

test('traces equals a brute-force recomputation after random inserts and evictions', () => {
  checkAgainstBruteForce({ view: 'traces', bruteForce: bruteTraces, paramsList: paramsFor, project: withoutUnits });
});

test('traces stays exact on other seeds with more traffic', () => {
  for (const seed of [5, 23]) checkAgainstBruteForce({ view: 'traces', bruteForce: bruteTraces, paramsList: paramsFor, seed, count: 6000, checks: 5, project: withoutUnits, largeProfile: false });
});

test('traces shows per-hop SNRs, and frees every journey, link and byte once all is evicted', () => {
  const engine = checkAgainstBruteForce({ view: 'traces', bruteForce: bruteTraces, paramsList: [{}], count: 6000, checks: 2, project: withoutUnits, largeProfile: false });
  const view = engine.view('traces');
  const snapshot = view.snapshot({});
  assert.ok(snapshot.traces.length > 0 && snapshot.links.length > 0, 'the simulator sends traces');
  assert.ok(snapshot.traces.some((row) => row.hops.some((hop) => typeof hop.snr === 'number')));
  const late = engine.store.addView(traces.create(engine.store));
  assertClose(late.snapshot({}), snapshot);
  while (engine.store.size) engine.store.evictOldest();
  assert.equal(view.state.journeys.size, 0);
  assert.equal(view.state.links.size, 0);
  assert.equal(view.state.part.bytes, 0);
});
