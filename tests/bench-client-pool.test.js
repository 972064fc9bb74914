'use strict';
// The fan-out, compression and knobs studies' load clients (benchmarks/lib/client-pool.js + client-worker.js)
// against a tiny fake DDP server: no Meteor needed. The pool talks to its worker processes over
// IPC, whose JSON turns an unbounded connect budget into null; a worker that read null as a
// deadline in the past once failed every client of every plain fan-out step.
const test = require('node:test');
const assert = require('node:assert/strict');
const { createClientPool } = require('../benchmarks/lib/client-pool');
const { fakeDdpServer } = require('./helpers/fake-ddp-server');

const subscriptions = [{ name: 'view.stats', params: {} }, { name: 'view.rf', params: {} }];

for (const light of [false, true]) {
  test(`client pool (${light ? 'light' : 'full'} clients): every subscriber connects with no connect budget, and a spent budget fails the rest`, async (t) => {
    const server = await fakeDdpServer();
    const pool = createClientPool({ url: server.url, subscriptions, perProcess: 2, perMessageDeflate: false, light });
    t.after(async () => { await pool.close(); await server.close(); });
    const grown = await pool.grow(3);
    assert.equal(grown.failures, 0, `no failure: ${JSON.stringify(grown.errors)}`);
    assert.equal(pool.size(), 3);
    assert.equal(server.seen.connects, 3);
    assert.equal(server.seen.subs.length, 6);
    await pool.measure();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const report = await pool.report();
    assert.equal(report.clients, 3);
    assert.ok(report.updates > 0, 'updates arrived while measuring');
    // A budget already spent: the clients not started count as failures, none is opened.
    const late = await pool.grow(5, { connectBudgetS: -1 });
    assert.equal(late.failures, 2);
    assert.equal(server.seen.connects, 3);
  });
}
