'use strict';
/**
 * What both browser suites (ui.test.js, operator-pages.test.js) need to start: their
 * prerequisites, the real app under Meteor with the simulator (tests/helpers/meteor-app.js),
 * Debian's Chromium through playwright-core, and the few page helpers they share.
 *
 *   await withAppAndBrowser(t, async ({ app, browser }) => { ... });
 *
 * The test is skipped, with the reason, when playwright-core, Chromium or Meteor is missing.
 */
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { clippedWithoutTitle, badWords } = require('./page-checks');

const ROOT = path.resolve(__dirname, '../..');
const SCREENSHOT_DIR = path.join(ROOT, 'tests/browser/screenshots');
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const VIEWPORT = { width: 1280, height: 800 };
const PHONE = { width: 375, height: 812 };
const WAIT_MS = 20000;
// Every page of the dashboard, and an element that shows it has its data (ui.test.js visits
// them in both modes, large-mesh.test.js on the large simulated mesh).
const PAGES = [
  { name: 'overview', path: '/', ready: '[data-testid="overview-stats"] .stat-value' },
  { name: 'live', path: '/live', ready: '.packets-table tbody tr' },
  { name: 'packets', path: '/packets', ready: '.packets-table tbody tr' },
  { name: 'nodes', path: '/nodes', ready: 'table tbody tr .node-link' },
  { name: 'map', path: '/map', ready: '[data-testid="mesh-map"] text.map-label' },
  { name: 'channels', path: '/channels', ready: '[data-testid="chat"] .chat-msg' },
  { name: 'analytics-rf', path: '/analytics/rf', ready: '.card svg rect' },
  { name: 'analytics-topology', path: '/analytics/topology', ready: '.card .hbars li' },
  { name: 'analytics-channels', path: '/analytics/channels', ready: '.card .hbars li' },
  { name: 'analytics-hash-sizes', path: '/analytics/hash-sizes', ready: '.card .hbars li' },
  { name: 'analytics-subpaths', path: '/analytics/subpaths', ready: 'table tbody tr.clickable' },
  { name: 'analytics-distances', path: '/analytics/distances', ready: '[data-testid="distances-longest"] tbody tr' },
  { name: 'analytics-observers', path: '/analytics/observers', ready: 'table tbody tr' },
  { name: 'perf', path: '/perf', ready: '[data-testid="perf-stats"] .stat-value' },
];

// The simulator at 50 reports/s, nothing persisted: every suite sees a filling, in-memory mesh.
const APP_SETTINGS = { sources: { simulator: { enabled: true, ratePerSecond: 50 } }, persistence: { enabled: false } };

function loadOptional(name) {
  try {
    return require(name);
  } catch (err) {
    if (err.code === 'MODULE_NOT_FOUND') return null;
    throw err;
  }
}

/** Why the browser suites cannot run here, or null. */
function missingPrerequisite() {
  if (!loadOptional('playwright-core')) return 'playwright-core is not installed (npm install)';
  if (!fs.existsSync(CHROMIUM)) return `no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH)`;
  if (!loadOptional('../helpers/meteor-app')) return 'tests/helpers/meteor-app.js is missing';
  return null;
}

/**
 * Start the app and Chromium, run `body({ app, browser })`, then close both whatever happened.
 * Skips `t` (and runs nothing) when a prerequisite is missing or Meteor cannot run.
 */
async function withAppAndBrowser(t, body, { settings = APP_SETTINGS } = {}) {
  const missing = missingPrerequisite();
  if (missing) {
    t.skip(missing);
    return;
  }
  const { chromium } = require('playwright-core');
  const { startApp, MeteorUnavailableError } = require('../helpers/meteor-app');
  let app;
  try {
    app = await startApp({ settings });
  } catch (err) {
    if (err instanceof MeteorUnavailableError || err.name === 'MeteorUnavailableError') {
      t.skip(err.message);
      return;
    }
    throw err;
  }
  let browser = null;
  try {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    await body({ app, browser });
  } finally {
    if (browser) await browser.close();
    await app.stop();
  }
}

/**
 * A new browser context on `url` in data mode `mode` ('reactive' or 'method'), read from
 * localStorage at start-up as if the user had chosen it before. Playwright emulates a light
 * system preference unless told otherwise and the dashboard follows it on a first visit, so
 * the system asks for dark (the screenshots' theme); `theme` stores a choice instead.
 * Returns { context, page, errors } (errors: uncaught page errors, to assert empty).
 */
async function openPage(browser, url, mode, { viewport = VIEWPORT, theme = null, colorScheme = 'dark' } = {}) {
  const context = await browser.newContext({ viewport, colorScheme });
  await context.addInitScript(({ chosen, chosenTheme }) => {
    window.localStorage.setItem('meshpulse.dataMode', chosen);
    if (chosenTheme) window.localStorage.setItem('meshpulse.theme', chosenTheme);
  }, { chosen: mode, chosenTheme: theme });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (err) => errors.push(err.message));
  await page.goto(url, { waitUntil: 'domcontentloaded' });
  return { context, page, errors };
}

/** Client-side navigation, as a user clicking a link would (no reload, sources shared). */
async function go(page, to) {
  await page.evaluate((target) => {
    window.history.pushState(null, '', target);
    window.dispatchEvent(new PopStateEvent('popstate'));
  }, to);
}

/**
 * Text on screen reads right: nothing cut without its whole text in a title (tooltip), and no
 * `undefined`/`NaN`/`[object Object]` in text or titles (see page-checks.js).
 */
async function assertReadable(page, where) {
  // One throttled render after the first data: the page may still be filling in.
  await page.waitForTimeout(300);
  assert.deepEqual(await page.evaluate(clippedWithoutTitle), [], `${where}: clipped text without a title`);
  assert.deepEqual(await page.evaluate(badWords), [], `${where}: formatting slips on screen`);
}

async function getJson(url) {
  const response = await fetch(url);
  assert.equal(response.status, 200, `${url}: ${response.status}`);
  return response.json();
}

/**
 * Call `probe` every `everyMs` until it returns { done: true, value } (then `value`), or fail
 * after `timeoutMs` with `what` and the last `state` it described. A probe that throws (the app
 * not answering yet) counts as not done.
 */
async function pollUntil(probe, { timeoutMs, everyMs = 1000, what }) {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    try {
      const { done, value, state } = await probe();
      if (done) return value;
      last = state;
    } catch (err) {
      last = err.message;
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  throw new Error(`${what} within ${timeoutMs / 1000} s (last: ${last})`);
}

module.exports = {
  ROOT, SCREENSHOT_DIR, CHROMIUM, VIEWPORT, PHONE, WAIT_MS, APP_SETTINGS, PAGES,
  missingPrerequisite, withAppAndBrowser, openPage, go, assertReadable, getJson, pollUntil,
};
