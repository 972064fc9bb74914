'use strict';
/**
 * Browser test of the Perf page's MQTT table (imports/ui/pages/PerfPage.jsx, `Sources`) against
 * the real app fed over MQTT only: a mosquitto broker started here (tests/helpers/mosquitto.js),
 * the app subscribed to it (settings `sources.mqtt`, simulator off), and a publisher sending the
 * simulator's observer reports to it at 20/s, as meshcoretomqtt would. In both data modes
 * (reactive and method), the table shows the broker:
 *   - one row, for the broker's URL; connected ("yes, <when>"), a clean session at QoS 0;
 *   - messages counted and growing while we watch, never more than were published; a rate
 *     above zero; nothing redelivered, no reconnect, no error;
 *   - the broker's drops as read from mosquitto's $SYS: its counter, or "none seen" when
 *     mosquitto did not send it (never "—" or "waiting" once $SYS answered);
 *   - the reports reached the store (the views count transmissions; the simulator is off);
 *   - no clipped text without a title, no `undefined`/`NaN` on screen, no page errors.
 * Then the broker stops: the row says "no, retry in ..."; it starts again on the same port: the
 * row is connected again with one reconnect, and messages flow again.
 * Skipped, with the reason, when mosquitto, Meteor, Chromium or playwright-core is missing.
 *
 *   CHROMIUM_PATH=/usr/bin/chromium METEOR_BIN=... node --test tests/browser/perf-mqtt.test.js
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const mqtt = require('mqtt');
const { createSimulator } = require('../../imports/core/simulate');
const { startMosquitto, mosquittoMissing } = require('../helpers/mosquitto');
const { withAppAndBrowser, missingPrerequisite, openPage, go, assertReadable, getJson, WAIT_MS } = require('./browser-session');

const PUBLISH_PER_SECOND = 20;
const TABLE = '[data-testid="mqtt-sources"]';
// The table's columns, in order (PerfPage.jsx `Sources`).
const COLUMNS = ['broker', 'connected', 'session', 'rate', 'messages', 'redelivered', 'drops', 'reconnects', 'lastError'];

/**
 * Publish the simulator's reports to `url` at PUBLISH_PER_SECOND, stamped with the wall clock
 * (the store keeps what is recent). Returns { published(), stop() }; publishing pauses by
 * itself while the broker is away (QoS 0: what is sent then is lost, as from a real observer).
 */
async function startPublisher(url) {
  const client = await mqtt.connectAsync(url, { clientId: `perf-mqtt-test-${process.pid}`, reconnectPeriod: 250 });
  const simulator = createSimulator({ seed: 4242 });
  let published = 0;
  const stopSimulator = simulator.run({
    ratePerSecond: PUBLISH_PER_SECOND,
    wallClock: true,
    onMessage: (message) => {
      if (!client.connected) return;
      published++;
      client.publish(message.topic, JSON.stringify(message.payload), { qos: 0 });
    },
  });
  return {
    published: () => published,
    async stop() {
      stopSimulator();
      await client.endAsync(true);
    },
  };
}

/** The table's single row as { column: text }, or null while it is not drawn. */
async function readRow(page) {
  const rows = await page.locator(`${TABLE} tbody tr`).evaluateAll((trs) => trs.map((tr) => Array.from(tr.cells, (td) => td.textContent.trim())));
  if (rows.length === 0) return null;
  assert.equal(rows.length, 1, `one broker configured, one row: ${JSON.stringify(rows)}`);
  return Object.fromEntries(COLUMNS.map((name, i) => [name, rows[0][i]]));
}

const figure = (text) => Number(String(text).replace(/,/g, ''));

/** What the server says of the broker (GET /api/health), to tell a page slip from a server one. */
async function serverSide(url) {
  try {
    const { sources } = await getJson(`${url}/api/health`);
    const { connected, messages, reconnects, broker, lastError } = sources.mqtt[0] || {};
    return JSON.stringify({ connected, messages, reconnects, broker, lastError });
  } catch (err) {
    return `unknown (${err.message})`;
  }
}

/**
 * Poll the row until `check(row)` is true; fails with `what`, the last row seen and what the
 * server said at that moment.
 */
async function waitForRow(page, appUrl, what, check, timeoutMs = WAIT_MS) {
  const deadline = Date.now() + timeoutMs;
  let row = null;
  for (;;) {
    row = await readRow(page);
    if (row && check(row)) return row;
    if (Date.now() >= deadline) assert.fail(`${what}; last row: ${JSON.stringify(row)}; server: ${await serverSide(appUrl)}`);
    await page.waitForTimeout(250);
  }
}

test('Perf page: the MQTT table shows the broker feeding the app', { timeout: 15 * 60 * 1000 }, async (t) => {
  // Checked before starting a broker: nothing is started for a test that cannot run.
  const missing = (await mosquittoMissing()) || missingPrerequisite();
  if (missing) {
    t.skip(missing);
    return;
  }
  const broker = await startMosquitto({ sysInterval: 1 });
  const publisher = await startPublisher(broker.url);
  const brokerHost = `127.0.0.1:${broker.port}`;
  const settings = {
    sources: { simulator: { enabled: false }, mqtt: [{ url: broker.url }] },
    persistence: { enabled: false },
  };
  try {
    await withAppAndBrowser(t, async ({ app, browser }) => {
      // The app's only source is the broker: once transmissions are counted, MQTT brought them.
      const deadline = Date.now() + 60000;
      for (;;) {
        const stats = await getJson(`${app.url}/api/views/stats`);
        if (stats.transmissions > 0) break;
        assert.ok(Date.now() < deadline, `no transmission reached the store over MQTT within 60 s (${publisher.published()} published)`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }

      for (const mode of ['reactive', 'method']) {
        await t.test(`the MQTT table shows the connected broker and its traffic (${mode} mode)`, async () => {
          const { context, page, errors } = await openPage(browser, `${app.url}/perf`, mode);
          try {
            await page.locator(`${TABLE} tbody tr`).first().waitFor({ timeout: WAIT_MS });
            assert.ok(await page.getByText('Simulator: off').count() > 0, 'the simulator is off: MQTT is the only source');
            const first = await waitForRow(page, app.url, 'the broker row shows a connected broker with traffic and what $SYS said of drops',
              (row) => /^yes, /.test(row.connected) && figure(row.messages) > 0 && figure(row.rate) > 0 && /^(\d[\d,]*|none seen)$/.test(row.drops));
            // Drops: the counter when mosquitto sent it, else "none seen" (it sends it when it
            // changes, and a counter unchanged for minutes is not sent to a late subscriber:
            // a cold Meteor build makes the app one). Either way, what the server holds.
            const { broker: sys } = (await getJson(`${app.url}/api/health`)).sources.mqtt[0];
            assert.equal(sys.sys, 'available', 'mosquitto answered on $SYS');
            assert.equal(Number.isFinite(sys.droppedSinceStart) ? figure(first.drops) : first.drops, Number.isFinite(sys.droppedSinceStart) ? sys.droppedSinceStart : 'none seen', `drops as the server has them: ${JSON.stringify(sys)}`);
            assert.ok(first.broker.includes(brokerHost), `the row names the broker (${first.broker}, expected ${brokerHost})`);
            assert.equal(first.session, 'clean, QoS 0');
            assert.equal(first.redelivered, '0', 'QoS 0 is never redelivered');
            assert.equal(first.reconnects, '0');
            assert.equal(first.lastError, '—');
            assert.ok(figure(first.messages) <= publisher.published(), `the app counts no more messages than were published (${first.messages} of ${publisher.published()})`);
            // Live: the count grows while we watch.
            await waitForRow(page, app.url, 'the message count grows', (row) => figure(row.messages) > figure(first.messages));
            await assertReadable(page, `/perf with an MQTT broker (${mode})`);
            // The Live page shows what came over MQTT.
            await go(page, '/live');
            await page.locator('.packets-table tbody tr[data-hash]').first().waitFor({ timeout: WAIT_MS });
            assert.deepEqual(errors, [], 'no uncaught page errors');
          } finally {
            await context.close();
          }
        });
      }

      await t.test('the MQTT table follows the broker going away and coming back', async () => {
        const { context, page, errors } = await openPage(browser, `${app.url}/perf`, 'reactive');
        try {
          await waitForRow(page, app.url, 'the broker row shows a connected broker', (row) => /^yes, /.test(row.connected));
          await broker.halt();
          const away = await waitForRow(page, app.url, 'the row says the broker is away and when it is tried again', (row) => /^no, retry in /.test(row.connected));
          await assertReadable(page, '/perf with the broker away');
          await broker.start();
          // Backoff from 1 s (doubling, ±20%): a few seconds at most after the broker is back.
          const back = await waitForRow(page, app.url, 'the row is connected again with one reconnect', (row) => /^yes, /.test(row.connected) && figure(row.reconnects) >= 1, WAIT_MS * 2);
          await waitForRow(page, app.url, 'messages flow again after the reconnect', (row) => figure(row.messages) > figure(back.messages), WAIT_MS * 2);
          assert.ok(figure(back.messages) >= figure(away.messages), 'the count is kept across the reconnect');
          await assertReadable(page, '/perf after the broker came back');
          assert.deepEqual(errors, [], 'no uncaught page errors');
        } finally {
          await context.close();
        }
      });
    }, { settings });
  } finally {
    await publisher.stop();
    await broker.stop();
  }
});
