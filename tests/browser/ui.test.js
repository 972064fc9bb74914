'use strict';
/**
 * Browser tests of the dashboard against the real app (tests/helpers/meteor-app.js), with
 * playwright-core driving Debian's Chromium:
 *   - every page loads and shows live data, in both data modes (reactive and method), with no
 *     clipped text lacking a title (tooltip) and no `undefined`/`NaN` on screen (page-checks.js);
 *     the map labels named nodes; Perf shows the data path in use, charts over time and input
 *     health; the Observers table is sorted and one line per row; the favicon is served;
 *   - a packet POSTed to /api/packets appears on the Live page;
 *   - a 1280x800 screenshot of each page goes to tests/browser/screenshots/<page>.png (ignored;
 *     `npm run shots:publish` copies them into docs/screenshots/, which the README shows).
 * Skipped, with the reason, when Meteor, Chromium or playwright-core is missing.
 *
 *   CHROMIUM_PATH=/usr/bin/chromium METEOR_BIN=... node --test tests/browser/
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const { decodePacket } = require('../../imports/core/decode');
const { clippedWithoutTitle, badWords } = require('./page-checks');

const ROOT = path.resolve(__dirname, '../..');
const SCREENSHOT_DIR = path.join(ROOT, 'tests/browser/screenshots');
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const VIEWPORT = { width: 1280, height: 800 };
const WAIT_MS = 20000;

/** Each page, what proves it shows data, and its screenshot name. */
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
  { name: 'analytics-observers', path: '/analytics/observers', ready: 'table tbody tr' },
  { name: 'perf', path: '/perf', ready: '[data-testid="perf-stats"] .stat-value' },
];

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

/** A GRP_TXT packet on an unknown channel with random ciphertext: valid, and new every time. */
function freshPacket() {
  const header = (5 << 2) | 1; // payload type GRP_TXT, route FLOOD, version 0
  const raw = Buffer.concat([Buffer.from([header, 0x00, 0xee]), crypto.randomBytes(2 + 32)]).toString('hex');
  const { packet, error } = decodePacket(raw);
  assert.equal(error, undefined, `test packet does not decode: ${error && error.message}`);
  return { raw, hash: packet.hash };
}

/** The ticking data-age figure in the header, in ms, once it shows one (it ticks every 500 ms). */
async function dataAgeMs(page) {
  const pattern = '^([\\d.]+) (ms|s|min|h)$';
  await page.waitForFunction((source) => {
    const element = document.querySelector('[data-testid="data-age-value"]');
    return element && new RegExp(source).test(element.textContent.trim());
  }, pattern, { timeout: WAIT_MS });
  const text = (await page.locator('[data-testid="data-age-value"]').textContent()).trim();
  const match = new RegExp(pattern).exec(text);
  return Number(match[1]) * { ms: 1, s: 1000, min: 60000, h: 3600000 }[match[2]];
}

async function openPage(browser, baseUrl, mode) {
  const context = await browser.newContext({ viewport: VIEWPORT });
  // The mode is read from localStorage at start-up, as if the user had chosen it before.
  await context.addInitScript((chosen) => window.localStorage.setItem('meshpulse.dataMode', chosen), mode);
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (err) => errors.push(err.message));
  await page.goto(baseUrl, { waitUntil: 'domcontentloaded' });
  return { context, page, errors };
}

/** Wait until the simulator has put a few placed nodes and a channel message in the store. */
async function warmUp(url, deadlineMs = 90000) {
  const deadline = Date.now() + deadlineMs;
  while (Date.now() < deadline) {
    try {
      const nodes = await (await fetch(`${url}/api/views/nodes?limit=500`)).json();
      const channels = await (await fetch(`${url}/api/views/channels`)).json();
      const placed = nodes.nodes.filter((node) => Number.isFinite(node.lat) && (node.lat || node.lon)).length;
      if (placed >= 3 && channels.channels.some((channel) => channel.decrypted > 0)) return;
    } catch (err) {
      // not answering yet
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  throw new Error('the simulator did not fill the store within 90 s');
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

/** Perf: the path in use is marked, charts of the figures over time, input health, no "— ms / 0 calls". */
async function checkPerf(page, mode) {
  await go(page, '/perf');
  await page.locator(`[data-testid="perf-path"] .tag.on`, { hasText: mode }).waitFor({ timeout: WAIT_MS });
  // Two samples make a line: the charts need two health documents.
  await page.locator('[data-testid="perf-charts"] svg path').first().waitFor({ timeout: WAIT_MS });
  await page.locator('[data-testid="input-health"]').getByText('adverts with a bad signature').waitFor({ timeout: WAIT_MS });
  const text = await page.locator('main, body').first().innerText();
  assert.doesNotMatch(text, /cpu\.user|memory\.rssMB/, 'Perf shows human figures, not raw keys');
  if (mode === 'reactive') {
    assert.doesNotMatch(text, /Method (p95|latency)/i, 'reactive mode shows no method figures as if they were its own');
    assert.match(text, /Publish p95/i);
  } else {
    assert.match(text, /Method p95/i);
  }
  await assertReadable(page, `/perf (${mode}, charts)`);
}

/** Observers: sorted by last-hour packets (busiest first), one line per row. */
async function checkObservers(page) {
  await go(page, '/analytics/observers');
  const table = page.locator('[data-testid="observers-table"]');
  await table.locator('tbody tr').first().waitFor({ timeout: WAIT_MS });
  const { lastHour, heights } = await table.evaluate((element) => ({
    lastHour: Array.from(element.querySelectorAll('tbody tr td:last-child'), (cell) => Number(cell.textContent.replace(/,/g, ''))),
    heights: Array.from(element.querySelectorAll('tbody tr'), (row) => row.getBoundingClientRect().height),
  }));
  for (let i = 1; i < lastHour.length; i++) assert.ok(lastHour[i - 1] >= lastHour[i], `observers sorted by last hour: ${lastHour.join(', ')}`);
  const single = Math.min(...heights);
  assert.ok(heights.every((height) => height <= single + 1), `every observer row is one line (${heights.join(', ')} px)`);
}

test('dashboard in a browser', { timeout: 15 * 60 * 1000 }, async (t) => {
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
    await warmUp(app.url);
    for (const mode of ['reactive', 'method']) {
      await t.test(`every page loads and shows live data (${mode} mode)`, async () => {
        const { context, page, errors } = await openPage(browser, app.url, mode);
        try {
          await page.locator(`.mode-switch button[data-mode="${mode}"][aria-pressed="true"]`).waitFor({ timeout: WAIT_MS });
          for (const spec of PAGES) {
            await go(page, spec.path);
            await page.locator(spec.ready).first().waitFor({ timeout: WAIT_MS });
            assert.equal(await page.locator('.state-error').count(), 0, `${spec.path}: error state shown`);
            const age = await dataAgeMs(page);
            assert.ok(age !== null && age < 15000, `${spec.path}: data age ${age} ms`);
            await assertReadable(page, `${spec.path} (${mode})`);
          }
          await checkPerf(page, mode);
          await checkObservers(page);
          // Drill-downs reached from the lists.
          await go(page, '/packets');
          const hash = await page.locator('.packets-table tbody tr').first().getAttribute('data-hash');
          await go(page, `/packets/${hash}`);
          await page.locator('[data-testid="hexdump"] .byte').first().waitFor({ timeout: WAIT_MS });
          await go(page, '/nodes');
          const nodeHref = await page.locator('table tbody tr .node-link').first().getAttribute('href');
          await go(page, nodeHref);
          await page.getByText('Signal grade').waitFor({ timeout: WAIT_MS });
          await page.getByText('since first heard').first().waitFor({ timeout: WAIT_MS });
          await assertReadable(page, `node page (${mode})`);
          await go(page, `/packets/${hash}`);
          await page.locator('[data-testid="hexdump"] .byte').first().waitFor({ timeout: WAIT_MS });
          await assertReadable(page, `packet page (${mode})`);
          // Live data: the newest row of the Live page changes while we watch.
          await go(page, '/live');
          const first = page.locator('.packets-table tbody tr').first();
          await first.waitFor({ timeout: WAIT_MS });
          const before = await first.getAttribute('data-hash');
          await page.waitForFunction((old) => {
            const row = document.querySelector('.packets-table tbody tr');
            return row && row.getAttribute('data-hash') !== old;
          }, before, { timeout: WAIT_MS });
          assert.deepEqual(errors, [], 'no uncaught page errors');
        } finally {
          await context.close();
        }
      });
    }

    await t.test('map labels named nodes, on hover too', async () => {
      const { context, page } = await openPage(browser, `${app.url}/map`, 'reactive');
      try {
        await page.locator('[data-testid="mesh-map"] text.map-label').first().waitFor({ timeout: WAIT_MS });
        const labels = await page.locator('[data-testid="mesh-map"] text.map-label').count();
        // Zoomed in, the nodes spread apart: a label hidden for lack of room may now fit.
        await page.getByRole('button', { name: 'Zoom in' }).click();
        await page.locator('[data-testid="mesh-map"] text.map-label').first().waitFor({ timeout: WAIT_MS });
        // Hovering a node names it, whether or not it had room for a label.
        await page.getByRole('button', { name: 'Fit' }).click();
        await page.locator('[data-testid="mesh-map"] circle.map-node').first().hover({ force: true });
        await page.locator('.map-tip b').waitFor({ timeout: WAIT_MS });
        assert.ok(labels > 0, 'named nodes have labels at the fit view');
      } finally {
        await context.close();
      }
    });

    await t.test('the favicon is linked and served', async () => {
      const response = await fetch(`${app.url}/favicon.svg`);
      assert.equal(response.status, 200);
      assert.match(await response.text(), /<svg/);
      const { context, page } = await openPage(browser, app.url, 'reactive');
      try {
        assert.equal(await page.locator('link[rel="icon"]').getAttribute('href'), '/favicon.svg');
      } finally {
        await context.close();
      }
    });

    await t.test('a packet posted over HTTP appears on the Live page', async () => {
      const { context, page } = await openPage(browser, `${app.url}/live`, 'reactive');
      try {
        await page.locator('.packets-table tbody tr').first().waitFor({ timeout: WAIT_MS });
        const { raw, hash } = freshPacket();
        const response = await fetch(`${app.url}/api/packets`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': app.settings.apiKey },
          body: JSON.stringify({ raw, observer: 'BROWSER-TEST-OBSERVER', region: 'TST', SNR: 7.5, RSSI: -88 }),
        });
        assert.equal(response.status, 202, await response.text());
        await page.locator(`.packets-table tr[data-hash="${hash}"]`).waitFor({ timeout: WAIT_MS });
        // Filter to the test observer's region (only our packets), then Pause freezes the list:
        // a second packet does not show until Resume.
        await page.locator('select[name="region"] option[value="TST"]').waitFor({ state: 'attached', timeout: WAIT_MS });
        await page.selectOption('select[name="region"]', 'TST');
        await page.waitForFunction(() => document.querySelectorAll('.packets-table tbody tr[data-hash]').length === 1, null, { timeout: WAIT_MS });
        await page.locator(`.packets-table tr[data-hash="${hash}"]`).waitFor({ timeout: WAIT_MS });
        await page.getByTestId('pause').click();
        const second = freshPacket();
        await fetch(`${app.url}/api/packets`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': app.settings.apiKey },
          body: JSON.stringify({ raw: second.raw, observer: 'BROWSER-TEST-OBSERVER', region: 'TST', SNR: 7.5, RSSI: -88 }),
        });
        await page.waitForTimeout(1500);
        assert.equal(await page.locator(`.packets-table tr[data-hash="${second.hash}"]`).count(), 0, 'paused list stays frozen');
        await page.getByTestId('pause').click();
        await page.locator(`.packets-table tr[data-hash="${second.hash}"]`).waitFor({ timeout: WAIT_MS });
      } finally {
        await context.close();
      }
    });

    await t.test('screenshots of every page (tests/browser/screenshots)', async () => {
      fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
      const { context, page } = await openPage(browser, app.url, 'reactive');
      try {
        // Let the simulator fill the store a little so charts have shape.
        await page.waitForTimeout(5000);
        const shots = [...PAGES];
        await go(page, '/packets');
        await page.locator('.packets-table tbody tr').first().waitFor({ timeout: WAIT_MS });
        const advert = page.locator('.packets-table tbody tr', { hasText: 'advert' }).first();
        const hash = (await advert.count()) ? await advert.getAttribute('data-hash') : await page.locator('.packets-table tbody tr').first().getAttribute('data-hash');
        shots.push({ name: 'packet', path: `/packets/${hash}`, ready: '[data-testid="hexdump"] .byte' });
        await go(page, '/nodes');
        await page.locator('table tbody tr .node-link').first().waitFor({ timeout: WAIT_MS });
        shots.push({ name: 'node', path: await page.locator('table tbody tr .node-link').first().getAttribute('href'), ready: '.card svg' });
        for (const shot of shots) {
          await go(page, shot.path);
          await page.locator(shot.ready).first().waitFor({ timeout: WAIT_MS });
          await page.waitForTimeout(600); // one throttled render after the first data
          if (shot.name === 'perf') {
            // Perf's charts fill from when the tab opened it: wait for a few samples to show a line.
            await page.waitForFunction(() => document.querySelectorAll('[data-testid="perf-charts"] .card:first-child svg circle').length >= 12, null, { timeout: WAIT_MS });
          }
          const file = path.join(SCREENSHOT_DIR, `${shot.name}.png`);
          await page.screenshot({ path: file });
          assert.ok(fs.statSync(file).size > 10000, `${shot.name}.png looks empty`);
        }
      } finally {
        await context.close();
      }
    });
  } finally {
    await browser.close();
    await app.stop();
  }
});
