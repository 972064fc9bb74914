'use strict';
/**
 * Browser tests of the operator pages against the real app (tests/helpers/meteor-app.js), with
 * playwright-core driving Debian's Chromium, in both data modes (reactive and method):
 *   - the `observer` and `routes` views answer over REST (served like every view);
 *   - Map: live, new transmissions travel their resolved paths (a moving route is drawn);
 *     Replay shows a slider over the stored traffic and the routes of the window under it,
 *     and moving the slider asks for another window;
 *   - Observer page (/observers/:id): identity, the simulator's status figures (battery,
 *     noise floor), reports per hour and the SNR chart; its packet links open packets; the
 *     Observers table links to it, and so do the observers listed on packet and node pages;
 *   - Analytics · Distances: both histograms (8 bins each), mean and median, the longest links
 *     longest first and bounded by the chosen limit, linked to their nodes, scoped by region;
 *   - no clipped text without a title, no `undefined`/`NaN` on screen, no page errors;
 *   - screenshots map-routes.png, map-replay.png and observer.png in tests/browser/screenshots/
 *     (ui.test.js takes analytics-distances.png with the other pages).
 * Skipped, with the reason, when Meteor, Chromium or playwright-core is missing.
 *
 *   CHROMIUM_PATH=/usr/bin/chromium METEOR_BIN=... node --test tests/browser/operator-pages.test.js
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { withAppAndBrowser, openPage, go, assertReadable, getJson, pollUntil, SCREENSHOT_DIR, WAIT_MS } = require('./browser-session');

/**
 * Wait until the simulator has placed nodes, drawable routes and an observer with a status.
 * Returns that observer's id.
 */
function warmUp(url, deadlineMs = 120000) {
  return pollUntil(async () => {
    const routes = await getJson(`${url}/api/views/routes?limit=200`);
    const drawable = routes.routes.filter((route) => route.hops.some((hop) => hop.lat !== null) || (route.source && route.source.lat !== null && route.observer.lat !== null));
    const { observers } = await getJson(`${url}/api/views/observers`);
    let withStatus = null;
    for (const observer of observers.slice(0, 10)) {
      const detail = await getJson(`${url}/api/views/observer?id=${encodeURIComponent(observer.id)}`);
      if (detail.status && detail.reports > 0) {
        withStatus = observer.id;
        break;
      }
    }
    return { done: drawable.length >= 3 && withStatus !== null, value: withStatus, state: `${drawable.length} drawable routes, observer with status: ${withStatus}` };
  }, { timeoutMs: deadlineMs, what: 'the simulator did not fill the store' });
}

async function screenshot(page, name) {
  // The header's data age ticks twice a second: shoot once it shows a figure.
  await page.waitForFunction(() => /\d/.test((document.querySelector('[data-testid="data-age-value"]') || {}).textContent || ''), null, { timeout: WAIT_MS });
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, name) });
}

test('operator pages in a browser: map routes and replay, observer detail, distances', { timeout: 15 * 60 * 1000 }, async (t) => {
  await withAppAndBrowser(t, async ({ app, browser }) => {
    const observerId = await warmUp(app.url);

    await t.test('the observer and routes views answer over REST, bad params refused', async () => {
      const detail = await getJson(`${app.url}/api/views/observer?id=${encodeURIComponent(observerId)}`);
      assert.equal(detail.found, true);
      assert.ok(Number.isFinite(detail.status.batteryMv) || detail.status.online === false, 'the simulator\'s status carries a battery figure');
      assert.equal(detail.perHour.length, 24);
      const routes = await getJson(`${app.url}/api/views/routes?limit=5`);
      assert.ok(routes.routes.length <= 5 && routes.inRange >= routes.routes.length);
      const bad = await fetch(`${app.url}/api/views/routes?limit=99999`);
      assert.equal(bad.status, 400);
    });

    for (const mode of ['reactive', 'method']) {
      await t.test(`map: live routes move, replay walks the stored traffic (${mode} mode)`, async () => {
        const { context, page, errors } = await openPage(browser, `${app.url}/map`, mode);
        try {
          await page.locator('[data-testid="route-controls"]').waitFor({ timeout: WAIT_MS });
          await page.locator('[data-testid="mesh-map"] circle.map-node').first().waitFor({ timeout: WAIT_MS });
          // Live: a route travelling along its path (its pulse is drawn for a few seconds).
          await page.locator('[data-testid="map-routes"] path.route-pulse').first().waitFor({ state: 'attached', timeout: WAIT_MS * 2 });
          assert.ok(await page.locator('[data-testid="map-legend"]').getByText(/routes \(/).count() > 0, 'the legend names routes');
          if (mode === 'reactive') await screenshot(page, 'map-routes.png');
          await assertReadable(page, `/map live (${mode})`);

          // Replay: the slider covers the stored traffic; the window's routes are drawn.
          await page.getByRole('button', { name: 'Replay' }).click();
          const slider = page.getByTestId('route-slider');
          await slider.waitFor({ timeout: WAIT_MS });
          const { min, max } = await slider.evaluate((input) => ({ min: Number(input.min), max: Number(input.max) }));
          assert.ok(max > min, `the slider spans stored time (${min}..${max})`);
          await page.locator('[data-testid="map-routes"] path.route-faint').first().waitFor({ state: 'attached', timeout: WAIT_MS });
          await page.getByTestId('route-count').getByText(/transmissions in the window/).waitFor({ timeout: WAIT_MS });
          // To the newest end: the window moves and its routes come in.
          await slider.fill(String(max));
          await page.waitForFunction(() => /[1-9][\d,]* transmissions in the window/.test(document.querySelector('[data-testid="route-count"]').textContent), null, { timeout: WAIT_MS });
          if (mode === 'reactive') await screenshot(page, 'map-replay.png');
          await assertReadable(page, `/map replay (${mode})`);
          assert.deepEqual(errors, [], 'no uncaught page errors');
        } finally {
          await context.close();
        }
      });

      await t.test(`observer page shows identity, health and charts (${mode} mode)`, async () => {
        const { context, page, errors } = await openPage(browser, `${app.url}/observers/${encodeURIComponent(observerId)}`, mode);
        try {
          await page.locator('[data-testid="observer-page"]').waitFor({ timeout: WAIT_MS });
          await page.locator('[data-testid="observer-health"]').getByText('Battery').waitFor({ timeout: WAIT_MS });
          await page.locator('[data-testid="observer-health"]').getByText(/ V$/).first().waitFor({ timeout: WAIT_MS });
          await page.getByText('Reports per hour').waitFor({ timeout: WAIT_MS });
          await page.getByText('SNR distribution').waitFor({ timeout: WAIT_MS });
          assert.ok(await page.locator('.card svg rect').count() > 0, 'the charts are drawn');
          if (mode === 'reactive') await screenshot(page, 'observer.png');
          await assertReadable(page, `/observers/:id (${mode})`);
          // A transmission only it heard opens its packet page.
          const unique = page.locator('[data-testid="observer-unique"] tbody tr a');
          if (await unique.count() > 0) {
            const href = await unique.first().getAttribute('href');
            await go(page, href);
            await page.locator('[data-testid="hexdump"] .byte').first().waitFor({ timeout: WAIT_MS });
          }
          assert.deepEqual(errors, [], 'no uncaught page errors');
        } finally {
          await context.close();
        }
      });
    }

    await t.test('the Observers table links each observer to its page, by name as by id', async () => {
      const { context, page } = await openPage(browser, `${app.url}/analytics/observers`, 'reactive');
      try {
        await page.locator('[data-testid="observers-table"] tbody tr').first().waitFor({ timeout: WAIT_MS });
        // The name (first column) links like a node's name does elsewhere, to the same page as the id.
        const firstRow = page.locator('[data-testid="observers-table"] tbody tr').first();
        const nameLink = firstRow.locator('td').nth(0).locator('a[href^="/observers/"]');
        const idHref = await firstRow.locator('td').nth(1).locator('a').getAttribute('href');
        assert.equal(await nameLink.getAttribute('href'), idHref);
        await nameLink.click();
        await page.locator('[data-testid="observer-page"]').waitFor({ timeout: WAIT_MS });
      } finally {
        await context.close();
      }
    });

    await t.test('the packet and node pages link each observer they list to its page', async () => {
      const { context, page } = await openPage(browser, app.url, 'reactive');
      try {
        const { packets } = await getJson(`${app.url}/api/views/packets?limit=1`);
        await go(page, `/packets/${packets[0].hash}`);
        const reportLink = page.locator('.observer .observer-link').first();
        await reportLink.waitFor({ timeout: WAIT_MS });
        const reported = await reportLink.getAttribute('href');
        assert.match(reported, /^\/observers\/[^/?]+/);
        await reportLink.click();
        await page.locator('[data-testid="observer-page"]').waitFor({ timeout: WAIT_MS });
        const { nodes } = await getJson(`${app.url}/api/views/nodes?sort=packets&limit=1`);
        await go(page, `/nodes/${nodes[0].pubKey}`);
        const hearingLink = page.locator('.observer .observer-link').first();
        await hearingLink.waitFor({ timeout: WAIT_MS });
        assert.match(await hearingLink.getAttribute('href'), /^\/observers\/[^/?]+/);
        await hearingLink.click();
        await page.locator('[data-testid="observer-page"]').waitFor({ timeout: WAIT_MS });
      } finally {
        await context.close();
      }
    });

    await t.test('a region no observer reports is called unknown, with the known ones to pick, not shown as an empty mesh', async () => {
      const { context, page } = await openPage(browser, `${app.url}/live?region=NO-SUCH-REGION`, 'reactive');
      try {
        const notice = page.locator('[data-testid="unknown-region"]');
        await notice.waitFor({ timeout: WAIT_MS });
        assert.match(await notice.textContent(), /Region “NO-SUCH-REGION” is unknown: no observer reports from it/);
        const { observers } = await getJson(`${app.url}/api/views/observers`);
        const known = Array.from(new Set(observers.map((o) => o.region).filter(Boolean))).sort();
        assert.ok(known.length > 0);
        await notice.getByRole('button', { name: known[0], exact: true }).click();
        await page.waitForFunction((region) => new URL(window.location.href).searchParams.get('region') === region, known[0], { timeout: WAIT_MS });
        await notice.waitFor({ state: 'detached', timeout: WAIT_MS });
      } finally {
        await context.close();
      }
    });

    for (const mode of ['reactive', 'method']) {
      await t.test(`distances: histogram, mean and median, longest links, region-scoped (${mode} mode)`, async () => {
        const rest = await getJson(`${app.url}/api/views/distances?limit=20`);
        assert.ok(rest.links > 0 && rest.sightings > 0, `the simulator's placed repeaters make links (${rest.links} links)`);
        const { context, page, errors } = await openPage(browser, `${app.url}/analytics/distances`, mode);
        try {
          const tab = page.getByTestId('distances-tab');
          await tab.locator('[data-testid="distances-longest"] tbody tr').first().waitFor({ timeout: WAIT_MS });
          // Eight bins in each of the two histograms (links, sightings), bars drawn.
          assert.equal(await tab.locator('.card svg rect').count(), 16, 'two histograms of 8 bins');
          for (const label of ['0-1', '80+']) assert.ok(await tab.locator('.card svg text', { hasText: label }).count() > 0, `bin ${label} is labelled`);
          const stats = await tab.getByTestId('distances-stats').innerText();
          assert.match(stats, /Mean length\s+[\d.,]+ (k?m)/i);
          assert.match(stats, /Median length\s+[\d.,]+ (k?m)/i);
          // Longest first, at most the limit; a smaller limit shows fewer.
          const lengths = async () => tab.locator('[data-testid="distances-longest"] tbody tr').evaluateAll((rows) => rows.map((row) => {
            const text = row.cells[2].textContent.trim();
            const value = Number(text.replace(/[^\d.]/g, ''));
            return text.endsWith(' m') ? value / 1000 : value;
          }));
          const shown = await lengths();
          assert.ok(shown.length > 0 && shown.length <= 20, `${shown.length} rows for limit 20`);
          for (let i = 1; i < shown.length; i++) assert.ok(shown[i - 1] >= shown[i] - 0.01, `longest first: ${shown.join(', ')}`);
          if (rest.links > 10) {
            await tab.locator('select[name="limit"]').selectOption('10');
            await page.waitForFunction(() => document.querySelectorAll('[data-testid="distances-longest"] tbody tr').length === 10, null, { timeout: WAIT_MS });
          }
          // Each end links to its node page.
          assert.match(await tab.locator('[data-testid="distances-longest"] tbody tr a.node-link').first().getAttribute('href'), /^\/nodes\/[0-9a-f]{64}/);
          await assertReadable(page, `/analytics/distances (${mode})`);
          // Scoped to one region (the header's picker), the view answers for that region.
          const regions = await page.getByTestId('region-picker').locator('option').evaluateAll((options) => options.map((option) => option.value).filter(Boolean));
          assert.ok(regions.length > 0, 'the picker lists regions');
          const region = regions[0];
          await page.getByTestId('region-picker').selectOption(region);
          await page.waitForURL((url) => url.searchParams.get('region') === region, { timeout: WAIT_MS });
          // The page's sightings are the region's (as REST answers for it), not the whole mesh's:
          // both move with live traffic, so "the region's" is the nearer figure, within 10%.
          const tile = tab.locator('[data-testid="distances-stats"] .stat', { has: page.locator('.stat-label', { hasText: /^Sightings$/ }) }).locator('.stat-value');
          const deadline = Date.now() + WAIT_MS;
          for (;;) {
            const scoped = await getJson(`${app.url}/api/views/distances?limit=10&region=${encodeURIComponent(region)}`);
            const all = await getJson(`${app.url}/api/views/distances?limit=10`);
            const empty = await tab.locator('.state-empty').count() > 0;
            const shown = empty ? 0 : Number(((await tile.count()) ? await tile.innerText() : 'NaN').replace(/,/g, ''));
            const off = Math.abs(shown - scoped.sightings);
            if (off <= Math.abs(shown - all.sightings) && off <= 0.1 * scoped.sightings + 5) break;
            assert.ok(Date.now() < deadline, `the page shows the region's sightings: page ${shown}, region ${scoped.sightings}, all ${all.sightings}`);
            await page.waitForTimeout(250);
          }
          // A region nobody reports under: the view's empty answer, not an error.
          await go(page, '/analytics/distances?region=NOWHERE');
          await tab.locator('.state-empty').waitFor({ timeout: WAIT_MS });
          assert.equal(await page.locator('.state-error').count(), 0, 'the view takes the region');
          await assertReadable(page, `/analytics/distances?region=${region} (${mode})`);
          assert.deepEqual(errors, [], 'no uncaught page errors');
        } finally {
          await context.close();
        }
      });
    }
  });
});
