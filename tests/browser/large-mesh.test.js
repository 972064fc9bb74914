'use strict';
/**
 * The dashboard on the large simulated mesh (issue 8's profile: 600 repeaters, 3,000 companions,
 * rooms and sensors, 64 observers in 4 regions), in a browser. The other browser suites run on
 * the default mesh (176 nodes), where what breaks at scale cannot show: the map once drew the
 * 500 most recently heard nodes of 5,000, and companions were credited with the relays of every
 * repeater sharing their first key byte; both were found by hand on this profile.
 *
 * The app runs the large simulator at 1,000 reports/s until at least 1,000 nodes and 40
 * observers are known (about two minutes), then, in reactive mode:
 *   - every page (PAGES) shows its data with no error state, nothing unreadable and no page
 *     errors; the time each took to show it is printed as a diagnostic, not asserted (this
 *     machine is noisy: speed is measured by the benchmarks);
 *   - the Map draws every placed node: its "N of M nodes have a position" is at least the
 *     `places` view's placed count read before (and more than 500, the old cut); and it draws
 *     links between the busiest hop pairs, whose shared 1-byte hashes the prefix alone cannot
 *     resolve (none was drawn before the pairs were resolved by radio range), likely ones dashed;
 *   - Nodes gives the directory's total and pages with Next;
 *   - the node pages of the busiest repeater and of a companion load, and the companion's relay
 *     count is its own (none: a companion does not relay);
 *   - screenshots large-map.png, large-nodes.png, large-repeater.png and large-companion.png in
 *     tests/browser/screenshots/ (`npm run shots:publish` copies them with the others).
 * Skipped, with the reason, when Meteor, Chromium or playwright-core is missing.
 *
 *   METEOR_BIN=... node --test tests/browser/large-mesh.test.js
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { withAppAndBrowser, openPage, go, assertReadable, getJson, pollUntil, PAGES, WAIT_MS, SCREENSHOT_DIR } = require('./browser-session');

const LARGE_MESH_SETTINGS = {
  sources: { simulator: { enabled: true, ratePerSecond: 1000, profile: 'large' } },
  persistence: { enabled: false },
};
const MIN_NODES = 1000;
const MIN_OBSERVERS = 40;

/** Wait until the large mesh has MIN_NODES nodes and MIN_OBSERVERS observers; returns the counts. */
function warmUp(url, deadlineMs = 300000) {
  return pollUntil(async () => {
    const nodes = await getJson(`${url}/api/views/nodes?limit=1`);
    const { observers } = await getJson(`${url}/api/views/observers`);
    return {
      done: nodes.total >= MIN_NODES && observers.length >= MIN_OBSERVERS,
      value: { nodes: nodes.total, observers: observers.length },
      state: `${nodes.total} nodes, ${observers.length} observers`,
    };
  }, { timeoutMs: deadlineMs, everyMs: 2000, what: `the large mesh did not reach ${MIN_NODES} nodes and ${MIN_OBSERVERS} observers` });
}

/** Navigate and wait for `ready`; returns the milliseconds it took. */
async function timedVisit(page, to, ready) {
  const started = Date.now();
  await go(page, to);
  await page.locator(ready).first().waitFor({ timeout: WAIT_MS });
  return Date.now() - started;
}

test('dashboard on the large mesh', { timeout: 15 * 60 * 1000 }, async (t) => {
  await withAppAndBrowser(t, async ({ app, browser }) => {
    const size = await warmUp(app.url);
    t.diagnostic(`large mesh at the start: ${size.nodes} nodes, ${size.observers} observers`);
    fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
    const { context, page, errors } = await openPage(browser, app.url, 'reactive');
    try {
      await t.test('every page shows its data, readable, without errors', async () => {
        const took = [];
        for (const spec of PAGES) {
          took.push(`${spec.path} ${await timedVisit(page, spec.path, spec.ready)} ms`);
          assert.equal(await page.locator('.state-error').count(), 0, `${spec.path}: error state shown`);
          await assertReadable(page, `${spec.path} (large mesh)`);
        }
        t.diagnostic(`time to data: ${took.join(', ')}`);
        assert.deepEqual(errors, [], 'no uncaught page errors');
      });

      await t.test('the map draws every placed node (not the most recent 500) and links between the busiest hop pairs', async () => {
        const before = await getJson(`${app.url}/api/views/places`);
        await go(page, '/map');
        const subtitle = page.getByText(/nodes have a position/).first();
        await subtitle.waitFor({ timeout: WAIT_MS });
        // Wait for the reactive places document to reach the page (at least what REST had).
        await page.waitForFunction((placed) => {
          const match = /([\d,]+) of ([\d,]+) nodes have a position/.exec(document.body.innerText);
          return match !== null && Number(match[1].replace(/,/g, '')) >= placed;
        }, before.placed, { timeout: WAIT_MS });
        const text = await page.locator('body').innerText();
        const [, drawn, total] = /([\d,]+) of ([\d,]+) nodes have a position/.exec(text).map((part) => Number(String(part).replace(/,/g, '')));
        // Only a lower bound from REST: its answers may be a few seconds old (settings.cache.ttlMs),
        // the page's reactive document newer, and the mesh keeps growing in between.
        assert.ok(drawn >= before.placed, `map: ${drawn} placed nodes drawn; the places view had ${before.placed} before`);
        assert.ok(drawn > 500, `the map draws more than the old cut of 500 (${drawn})`);
        assert.ok(total >= drawn && total >= MIN_NODES, `map total ${total}`);
        await assertReadable(page, '/map (large mesh)');
        // Links between the busiest hop pairs: on this mesh their 1-byte hashes are shared, and
        // by prefix alone none was drawn; resolved by radio range (or as the nearest fit), they are.
        const linksCard = page.locator('.card', { hasText: 'Links drawn' });
        await linksCard.locator('tbody tr').first().waitFor({ timeout: WAIT_MS });
        // The table and the drawing read in one go: the reactive document may change the page
        // between two separate reads (links come and go with every update).
        const { kinds, dashed } = await linksCard.evaluate((card) => ({
          kinds: Array.from(card.querySelectorAll('tbody tr td:nth-child(3)'), (cell) => cell.innerText),
          dashed: document.querySelectorAll('[data-testid="mesh-map"] line.map-link.likely').length,
        }));
        assert.ok(kinds.every((kind) => /^(by hash|by radio range|likely \(nearest\))$/.test(kind)), `how each link resolved: ${kinds.join(', ')}`);
        assert.equal(dashed, kinds.filter((kind) => kind.startsWith('likely')).length, 'likely links are the dashed ones');
        t.diagnostic(`links drawn: ${kinds.length} (${kinds.filter((kind) => kind.startsWith('likely')).length} likely)`);
        await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'large-map.png') });
      });

      await t.test('Nodes: the directory total, and Next pages', async () => {
        const before = (await getJson(`${app.url}/api/views/nodes?limit=1`)).total;
        await go(page, '/nodes');
        const pager = page.locator('.pager span').first();
        await pager.waitFor({ timeout: WAIT_MS });
        const shown = Number(/of ([\d,]+)/.exec(await pager.innerText())[1].replace(/,/g, ''));
        // The page's document may be a publish tick behind the REST answer read before it (and the
        // REST answer a few seconds old): a lower bound with a margin of a few ticks of growth.
        assert.ok(shown >= MIN_NODES && shown >= before - 50, `Nodes shows ${shown}; the directory had ${before} before`);
        await page.locator('.pager button', { hasText: 'Next' }).click();
        await page.locator('.pager span', { hasText: /^101–/ }).waitFor({ timeout: WAIT_MS });
        await page.locator('table tbody tr .node-link').first().waitFor({ timeout: WAIT_MS });
        await assertReadable(page, '/nodes page 2 (large mesh)');
        await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'large-nodes.png') });
      });

      await t.test('node pages of the busiest repeater and of a companion', async () => {
        const repeaters = await getJson(`${app.url}/api/views/nodes?role=repeater&sort=packets&limit=1`);
        const companions = await getJson(`${app.url}/api/views/nodes?role=companion&sort=packets&limit=1`);
        assert.equal(repeaters.nodes.length, 1, 'a repeater is known');
        assert.equal(companions.nodes.length, 1, 'a companion is known');
        const took = [];
        for (const node of [repeaters.nodes[0], companions.nodes[0]]) {
          took.push(`${node.role} ${await timedVisit(page, `/nodes/${node.pubKey}`, 'text=Signal grade')} ms`);
          await page.getByText('since first heard').first().waitFor({ timeout: WAIT_MS });
          assert.equal(await page.locator('.state-error').count(), 0, `${node.role} page: error state shown`);
          await assertReadable(page, `${node.role} node page (large mesh)`);
          // On this mesh about 20 nodes share each first key byte: the banner saying which matter shows.
          await page.screenshot({ path: path.join(SCREENSHOT_DIR, `large-${node.role}.png`) });
        }
        t.diagnostic(`node pages: ${took.join(', ')}`);
        // A companion relays nothing: its figures are its own, not those of the repeaters
        // that share its first key byte (the defect fixed in 8653e69).
        const companion = await getJson(`${app.url}/api/views/node?pubKey=${companions.nodes[0].pubKey}`);
        assert.equal(companion.analytics.relayed, 0, `companion ${companions.nodes[0].pubKey.slice(0, 8)} relayed ${companion.analytics.relayed} of ${companion.analytics.packets}`);
        assert.deepEqual(errors, [], 'no uncaught page errors');
      });
    } finally {
      await context.close();
    }
  }, { settings: LARGE_MESH_SETTINGS });
});
