'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { checkAgainstBruteForce } = require('../../helpers/mesh');

/** Brute force: filter every stored transmission, newest first, and take `limit`. */
function brutePackets(store, params) {
  const nodeMatches = (tx) => {
    if (params.node === null) return true;
    const n = params.node;
    const prefixes = n.length >= 8 ? [n.slice(0, 2), n.slice(0, 4), n.slice(0, 6)] : [n];
    const refs = [tx.srcHash, tx.destHash, ...tx.observations.flatMap((o) => o.path)];
    return (tx.advert && tx.advert.pubKey === n) || refs.some((r) => r && prefixes.includes(r));
  };
  const rows = store.transmissions().reverse().filter((tx) =>
    (params.hash === null || tx.hash === params.hash)
    && (params.type === null || tx.payloadType === params.type)
    && (params.route === null || tx.routeType === params.route)
    && (params.since === null || tx.time >= params.since)
    && (params.until === null || tx.time <= params.until)
    && (params.observer === null || tx.observations.some((o) => o.observer.id === params.observer))
    && (params.region === null || tx.observations.some((o) => o.observer.region === params.region))
    && (params.text === null || [tx.hash.startsWith(params.text) ? params.text : '', tx.advert?.name, tx.message?.sender, tx.message?.text]
      .some((field) => typeof field === 'string' && field !== '' && field.toLowerCase().includes(params.text)))
    && nodeMatches(tx));
  return rows.slice(0, params.limit).map((tx) => tx.hash);
}

test('packets list equals a brute-force filter after random inserts and evictions', () => {
  const view = 'packets';
  checkAgainstBruteForce({
    view,
    // Compare the hashes listed (row contents are a pure function of the transmission).
    bruteForce: (store, params) => ({ packets: brutePackets(store, params) }),
    project: (snapshot) => ({ packets: snapshot.packets.map((row) => row.hash) }),
    paramsList: (store) => {
      const last = store.fifo.last();
      const someNode = store.nodes.size ? Array.from(store.nodes.keys())[0] : null;
      return [{}, { type: 4 }, { type: 5, limit: 7 }, { route: 1 }, { region: 'SFO', limit: 20 }, { observer: last ? last.observations[0].observer.id : 'x' },
        { since: last ? last.time - 600e3 : 0 }, { text: 'a' }, { text: 'peak', limit: 5 }, { text: last ? last.hash.slice(0, 4) : 'ff' }, { hash: last ? last.hash : '00' }, ...(someNode ? [{ node: someNode }, { node: someNode.slice(0, 2) }] : [])];
    },
    store: {},
  });
});

test('one packet carries its byte layout, covering every byte once', () => {
  const engine = checkAgainstBruteForce({ view: 'packets', bruteForce: () => null, paramsList: [], checks: 1 });
  for (const tx of engine.store.transmissions().slice(-50)) {
    const row = engine.view('packets').snapshot({ hash: tx.hash }).packets[0];
    assert.equal(row.hash, tx.hash);
    let expectedStart = 0;
    for (const field of row.detail.fields) {
      assert.equal(field.start, expectedStart, `${field.name} starts where the previous field ended`);
      expectedStart = field.end + 1;
    }
    assert.equal(expectedStart, tx.size, 'fields cover the whole packet');
  }
});
