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
 *     Observers table links to it. The route (App.jsx) and the link (ObserversTab.jsx) belong
 *     to the UI engineer: while either is missing, its part is skipped with the reason;
 *   - no clipped text without a title, no `undefined`/`NaN` on screen, no page errors;
 *   - screenshots map-routes.png, map-replay.png and observer.png in tests/browser/screenshots/.
 * Skipped, with the reason, when Meteor, Chromium or playwright-core is missing.
 *
 *   CHROMIUM_PATH=/usr/bin/chromium METEOR_BIN=... node --test tests/browser/operator-pages.test.js
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { clippedWithoutTitle, badWords } = require('./page-checks');

const ROOT = path.resolve(__dirname, '../..');
const SCREENSHOT_DIR = path.join(ROOT, 'tests/browser/screenshots');
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const VIEWPORT = { width: 1280, height: 800 };
const WAIT_MS = 20000;

function loadOptional(name) {
  try {
    return require(name);
  } catch (err) {
    if (err.code === 'MODULE_NOT_FOUND') return null;
    throw err;
  }
}

/** Why the suite cannot run here, or null. */
function missingPrerequisite() {
  if (!loadOptional('playwright-core')) return 'playwright-core is not installed (npm install)';
  if (!fs.existsSync(CHROMIUM)) return `no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH)`;
  if (!loadOptional('../helpers/meteor-app')) return 'tests/helpers/meteor-app.js is missing';
  return null;
}

async function getJson(url) {
  const response = await fetch(url);
  assert.equal(response.status, 200, `${url}: ${response.status}`);
  return response.json();
}

/**
 * Wait until the simulator has placed nodes, drawable routes and an observer with a status.
 * Returns that observer's id.
 */
async function warmUp(url, deadlineMs = 120000) {
  const deadline = Date.now() + deadlineMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    try {
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
      last = `${drawable.length} drawable routes, observer with status: ${withStatus}`;
      if (drawable.length >= 3 && withStatus) return withStatus;
    } catch (err) {
      last = err.message;
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  throw new Error(`the simulator did not fill the store within ${deadlineMs / 1000} s (${last})`);
}

async function openPage(browser, url, mode) {
  const context = await browser.newContext({ viewport: VIEWPORT });
  await context.addInitScript((chosen) => window.localStorage.setItem('meshpulse.dataMode', chosen), mode);
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (err) => errors.push(err.message));
  await page.goto(url, { waitUntil: 'domcontentloaded' });
  return { context, page, errors };
}

/** Client-side navigation, as a click on a link does. */
async function go(page, to) {
  await page.evaluate((target) => {
    window.history.pushState(null, '', target);
    window.dispatchEvent(new PopStateEvent('popstate'));
  }, to);
}

async function assertReadable(page, where) {
  await page.waitForTimeout(300);
  assert.deepEqual(await page.evaluate(clippedWithoutTitle), [], `${where}: clipped text without a title`);
  assert.deepEqual(await page.evaluate(badWords), [], `${where}: formatting slips on screen`);
}

async function screenshot(page, name) {
  // The header's data age ticks twice a second: shoot once it shows a figure.
  await page.waitForFunction(() => /\d/.test((document.querySelector('[data-testid="data-age-value"]') || {}).textContent || ''), null, { timeout: WAIT_MS });
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, name) });
}

test('operator pages in a browser: map routes and replay, observer detail', { timeout: 15 * 60 * 1000 }, async (t) => {
  const missing = missingPrerequisite();
  if (missing) {
    t.skip(missing);
    return;
  }
  const { chromium } = require('playwright-core');
  const { startApp, MeteorUnavailableError } = require('../helpers/meteor-app');
  let app;
  try {
    app = await startApp({ settings: { sources: { simulator: { enabled: true, ratePerSecond: 50 } }, persistence: { enabled: false } } });
  } catch (err) {
    if (err instanceof MeteorUnavailableError || err.name === 'MeteorUnavailableError') {
      t.skip(err.message);
      return;
    }
    throw err;
  }
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  try {
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

    // Does the app route /observers/:id yet (App.jsx)? Asked once, in a page.
    let observerRouted = null;

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

      await t.test(`observer page shows identity, health and charts (${mode} mode)`, async (sub) => {
        const { context, page, errors } = await openPage(browser, `${app.url}/observers/${encodeURIComponent(observerId)}`, mode);
        try {
          const shown = page.locator('[data-testid="observer-page"]');
          const notFound = page.getByRole('heading', { name: 'Not found' });
          await Promise.race([shown.waitFor({ timeout: WAIT_MS }), notFound.waitFor({ timeout: WAIT_MS })]);
          observerRouted = await shown.count() > 0;
          if (!observerRouted) {
            sub.skip('/observers/:id is not in the route table yet (imports/ui/App.jsx: see the observer page\'s report)');
            return;
          }
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

    await t.test('the Observers table links each observer to its page', async (sub) => {
      if (!observerRouted) {
        sub.skip('/observers/:id is not routed yet (App.jsx), nor linked from the Observers table (ObserversTab.jsx)');
        return;
      }
      const { context, page } = await openPage(browser, `${app.url}/analytics/observers`, 'reactive');
      try {
        await page.locator('[data-testid="observers-table"] tbody tr').first().waitFor({ timeout: WAIT_MS });
        const link = page.locator('[data-testid="observers-table"] tbody tr a[href^="/observers/"]').first();
        if (await link.count() === 0) {
          sub.skip('the Observers table does not link to /observers/:id yet (imports/ui/pages/analytics/ObserversTab.jsx: see the observer page\'s report)');
          return;
        }
        await link.click();
        await page.locator('[data-testid="observer-page"]').waitFor({ timeout: WAIT_MS });
      } finally {
        await context.close();
      }
    });
  } finally {
    await browser.close();
    await app.stop();
  }
});
