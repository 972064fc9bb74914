'use strict';
/**
 * Browser tests of the dashboard against the real app (tests/helpers/meteor-app.js), with
 * playwright-core driving Debian's Chromium:
 *   - every page (Analytics · Distances included) loads and shows live data, in both data modes
 *     (reactive and method), the header on one row at 1280 px and the Live page not scrolling, with no
 *     clipped text lacking a title (tooltip) and no `undefined`/`NaN` on screen (page-checks.js);
 *     the map labels named nodes; Perf shows the data path in use, charts over time and input
 *     health; the Observers table is sorted and one line per row; the favicon is served;
 *   - a packet POSTed to /api/packets appears on the Live page, scoped by the header's region;
 *   - the header's region picker lists the observers' regions, changes the data of a page, is
 *     kept in the URL (`?region=`) and carried by links; a deep link opens scoped;
 *   - Ctrl+K opens the search palette, which finds a node by name and by key prefix and a packet
 *     by hash, moves with the arrow keys, opens with Enter and closes with Esc;
 *   - the theme toggle switches dark/light (every colour changes with it) and is remembered;
 *   - a starred node shows under the Nodes page's favourites filter and on the Overview; the
 *     favourites are asked for by key (the nodes view's `keys`), so the least recently heard
 *     node shows and an unknown key is named as missing; a bad key list is a 400 naming it;
 *   - the Live page's filter expression is evaluated by the server (only matching rows; a bad
 *     one shows its position), and `packets.live` over DDP takes it as its second argument;
 *   - at 375 px wide no page scrolls sideways, in both themes, and the menu collapses;
 *   - found by an exploratory review on the large mesh:
 *     live charts draw the bucket still filling as "so far" (dashed, tooltip, legend);
 *     a malformed or unheard channel hash is named, not an empty panel;
 *     a 300-character id in the URL wraps instead of scrolling the page sideways (1280 and 375 px);
 *     the Nodes list's Next shows the new page from its first row;
 *     a Subpaths row clicked far down brings its detail (opened above the table) into view;
 *   - screenshots go to tests/browser/screenshots/ (ignored; `npm run shots:publish` copies
 *     them into docs/screenshots/, which the README shows): <page>.png at 1280x800 (dark),
 *     phone-dark-<page>.png and phone-light-<page>.png at 375x812, light-overview.png.
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
const { horizontalOverflow, headerRows } = require('./page-checks');
const { withAppAndBrowser, openPage, go, assertReadable, pollUntil, SCREENSHOT_DIR, VIEWPORT, PHONE, WAIT_MS, PAGES } = require('./browser-session');

/** Where a block's top is against the sticky header and the viewport (run in the page). */
function topInView(selector) {
  const top = document.querySelector(selector).getBoundingClientRect().top;
  return { top, header: document.querySelector('.topbar').getBoundingClientRect().bottom, height: window.innerHeight, scrollY: window.scrollY };
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

/** Wait until the simulator has put a few placed nodes and a channel message in the store. */
function warmUp(url, deadlineMs = 90000) {
  return pollUntil(async () => {
    const nodes = await (await fetch(`${url}/api/views/nodes?limit=500`)).json();
    const channels = await (await fetch(`${url}/api/views/channels`)).json();
    const placed = nodes.nodes.filter((node) => Number.isFinite(node.lat) && (node.lat || node.lon)).length;
    const decrypted = channels.channels.some((channel) => channel.decrypted > 0);
    return { done: placed >= 3 && decrypted, state: `${placed} placed nodes, a decrypted message: ${decrypted}` };
  }, { timeoutMs: deadlineMs, what: 'the simulator did not fill the store' });
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
  await withAppAndBrowser(t, async ({ app, browser }) => {
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
            // At 1280 px the header is one row (it wrapped once, and the Live table overflowed).
            const header = await page.evaluate(headerRows);
            assert.ok(header.rows === 1 && header.navRows === 1 && header.navCut === 0, `${spec.path}: the header wraps (or cuts its links) at ${VIEWPORT.width} px: ${JSON.stringify(header)}`);
            if (spec.name === 'live') {
              // The Live table fills the window below the header, no more: the page itself does not scroll.
              const scroll = await page.evaluate(() => ({ page: document.scrollingElement.scrollHeight, window: window.innerHeight }));
              assert.ok(scroll.page <= scroll.window, `/live scrolls: ${scroll.page} px of content in a ${scroll.window} px window`);
            }
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
        // Scope to the test observer's region in the header (only our packets), then Pause freezes the list:
        // a second packet does not show until Resume.
        await page.locator('select[name="scope-region"] option[value="TST"]').waitFor({ state: 'attached', timeout: WAIT_MS });
        await page.selectOption('select[name="scope-region"]', 'TST');
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

    await t.test('region picker: lists the regions, scopes the data, lives in the URL and travels with links', async () => {
      const { context, page, errors } = await openPage(browser, `${app.url}/analytics/observers`, 'reactive');
      try {
        const picker = page.getByTestId('region-picker');
        await picker.waitFor({ timeout: WAIT_MS });
        const table = page.locator('[data-testid="observers-table"] tbody tr');
        await table.first().waitFor({ timeout: WAIT_MS });
        const regionCells = () => page.$$eval('[data-testid="observers-table"] tbody tr', (rows) => rows.map((row) => row.cells[2].textContent.trim()));
        const before = await regionCells();
        const choices = await picker.locator('option').evaluateAll((options) => options.map((option) => option.value).filter(Boolean));
        assert.ok(choices.length >= 2, `the picker lists the observers' regions: ${choices.join(', ')}`);
        const region = choices.find((choice) => before.includes(choice));
        assert.ok(region && new Set(before).size >= 2, `unscoped, observers of several regions are listed: ${before.join(', ')}`);
        await picker.selectOption(region);
        await page.waitForFunction((wanted) => {
          const cells = Array.from(document.querySelectorAll('[data-testid="observers-table"] tbody tr'), (row) => row.cells[2].textContent.trim());
          return cells.length > 0 && cells.every((cell) => cell === wanted);
        }, region, { timeout: WAIT_MS });
        assert.ok((await regionCells()).length < before.length, 'scoped to one region, fewer observers are listed');
        assert.equal(new URL(page.url()).searchParams.get('region'), region, 'the region is in the URL');
        // Links carry it; the Live page is scoped too (every row heard in the region).
        await page.locator('.nav a', { hasText: 'Live' }).click();
        await page.waitForURL((url) => url.pathname === '/live' && url.searchParams.get('region') === region, { timeout: WAIT_MS });
        await page.locator('.packets-table tbody tr[data-hash]').first().waitFor({ timeout: WAIT_MS });
        assert.equal(await picker.inputValue(), region);
        // A deep link opens scoped, and "all regions" takes the parameter away.
        await page.goto(`${app.url}/nodes?region=${encodeURIComponent(region)}`, { waitUntil: 'domcontentloaded' });
        await page.locator('table tbody tr .node-link').first().waitFor({ timeout: WAIT_MS });
        assert.equal(await page.getByTestId('region-picker').inputValue(), region);
        assert.match(await page.locator('table tbody tr .node-link').first().getAttribute('href'), new RegExp(`region=${region}`));
        await page.getByTestId('region-picker').selectOption('');
        await page.waitForURL((url) => !url.searchParams.has('region'), { timeout: WAIT_MS });
        assert.equal(await page.locator('.state-error').count(), 0, 'no view refused the region');
        assert.deepEqual(errors, [], 'no uncaught page errors');
      } finally {
        await context.close();
      }
    });

    await t.test('Ctrl+K palette: finds a node by name and key prefix and a packet by hash; arrows, Enter, Esc', async () => {
      const nodes = (await (await fetch(`${app.url}/api/views/nodes?limit=100`)).json()).nodes;
      // A name that starts with plain characters (no emoji to cut in half when typing a prefix of it).
      const named = nodes.find((node) => node.name && /^[A-Za-z0-9][A-Za-z0-9 _-]{3,}/.test(node.name));
      assert.ok(named, 'the simulator has named nodes');
      const packet = (await (await fetch(`${app.url}/api/views/packets?limit=1`)).json()).packets[0];
      const { context, page, errors } = await openPage(browser, `${app.url}/packets`, 'reactive');
      try {
        await page.locator('.packets-table tbody tr').first().waitFor({ timeout: WAIT_MS });
        await page.keyboard.press('Control+k');
        const input = page.getByTestId('palette-input');
        await input.waitFor({ timeout: WAIT_MS });
        assert.ok(await input.evaluate((element) => element === document.activeElement), 'the search box has the focus');
        await page.keyboard.press('Escape');
        await page.getByTestId('palette').waitFor({ state: 'detached', timeout: WAIT_MS });
        await page.keyboard.press('Meta+k');
        await input.waitFor({ timeout: WAIT_MS });
        // By key prefix.
        await input.fill(named.pubKey.slice(0, 6));
        await page.locator(`[data-testid="palette"] li[data-kind="node"]`, { hasText: named.name.slice(0, 4) }).first().waitFor({ timeout: WAIT_MS });
        // By packet hash.
        await input.fill(packet.hash);
        await page.locator(`[data-testid="palette"] li[data-kind="packet"]`, { hasText: packet.hash }).waitFor({ timeout: WAIT_MS });
        // By name, then to it with the arrow keys and Enter.
        const query = named.name.slice(0, 4);
        await input.fill(query);
        const item = page.locator(`[data-testid="palette"] li[data-kind="node"]`, { hasText: named.name.slice(0, 4) }).first();
        await item.waitFor({ timeout: WAIT_MS });
        await page.waitForTimeout(400); // let the results settle (debounced, throttled)
        const index = await page.$$eval('[data-testid="palette"] li[role="option"]', (items, key) => items.findIndex((li) => li.id && li.textContent.includes(key)), named.pubKey.slice(0, 12));
        assert.ok(index >= 0, 'the node is among the results');
        for (let i = 0; i < index; i++) await page.keyboard.press('ArrowDown');
        assert.equal(await page.locator('[data-testid="palette"] li[aria-selected="true"]').getAttribute('id'), `palette-${index}`);
        await page.keyboard.press('Enter');
        await page.waitForURL((url) => url.pathname === `/nodes/${named.pubKey}`, { timeout: WAIT_MS });
        assert.equal(await page.getByTestId('palette').count(), 0, 'opening a result closes the palette');
        assert.deepEqual(errors, [], 'no uncaught page errors');
      } finally {
        await context.close();
      }
    });

    await t.test('theme toggle: switches every colour, is remembered, follows the system on a first visit', async () => {
      const { context, page } = await openPage(browser, app.url, 'reactive');
      try {
        await page.locator('[data-testid="overview-stats"] .stat-value').first().waitFor({ timeout: WAIT_MS });
        const look = () => page.evaluate(() => ({
          theme: document.documentElement.getAttribute('data-theme'),
          background: getComputedStyle(document.body).backgroundColor,
          text: getComputedStyle(document.body).color,
          panel: getComputedStyle(document.querySelector('.stat')).backgroundColor,
        }));
        const first = await look();
        assert.equal(first.theme, 'dark', 'a dark system preference: dark');
        await page.getByTestId('theme-toggle').click();
        const second = await look();
        assert.equal(second.theme, 'light');
        for (const key of ['background', 'text', 'panel']) assert.notEqual(second[key], first[key], `${key} changes with the theme`);
        await assertReadable(page, 'overview (light)');
        fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
        await page.waitForTimeout(600);
        await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'light-overview.png') });
        await page.reload({ waitUntil: 'domcontentloaded' });
        await page.locator('[data-testid="overview-stats"] .stat-value').first().waitFor({ timeout: WAIT_MS });
        assert.equal((await look()).theme, 'light', 'remembered across a reload');
        await page.getByTestId('theme-toggle').click();
        assert.equal((await look()).theme, 'dark');
      } finally {
        await context.close();
      }
      const system = await browser.newContext({ viewport: VIEWPORT, colorScheme: 'light' });
      try {
        const page = await system.newPage();
        await page.goto(app.url, { waitUntil: 'domcontentloaded' });
        await page.getByTestId('theme-toggle').waitFor({ timeout: WAIT_MS });
        assert.equal(await page.evaluate(() => document.documentElement.getAttribute('data-theme')), 'light', 'a first visit follows prefers-color-scheme');
      } finally {
        await system.close();
      }
    });

    await t.test('favourites: a starred node shows under the favourites filter and on the Overview, kept across reloads', async () => {
      const { context, page, errors } = await openPage(browser, `${app.url}/nodes`, 'reactive');
      try {
        const firstRow = page.locator('table tbody tr').filter({ has: page.locator('.node-link') }).first();
        await firstRow.waitFor({ timeout: WAIT_MS });
        const href = await firstRow.locator('.node-link').getAttribute('href');
        const pubKey = href.split('?')[0].split('/').pop();
        await firstRow.getByTestId('favourite-star').click();
        await page.locator(`table tbody tr:has(a[href^="/nodes/${pubKey}"]) [data-testid="favourite-star"][aria-pressed="true"]`).waitFor({ timeout: WAIT_MS });
        await page.getByTestId('favourites-filter').check();
        await page.waitForFunction((key) => {
          const links = Array.from(document.querySelectorAll('table tbody tr .node-link'));
          return links.length === 1 && links[0].getAttribute('href').startsWith(`/nodes/${key}`);
        }, pubKey, { timeout: WAIT_MS });
        await page.goto(app.url, { waitUntil: 'domcontentloaded' });
        await page.locator(`[data-testid="favourites-card"] a[href^="/nodes/${pubKey}"]`).waitFor({ timeout: WAIT_MS });
        await assertReadable(page, 'overview with favourites');
        // Unstar from the Overview: the card goes away.
        await page.locator('[data-testid="favourites-card"] [data-testid="favourite-star"]').first().click();
        await page.getByTestId('favourites-card').waitFor({ state: 'detached', timeout: WAIT_MS });
        // Favourites are asked for by key (the nodes view's `keys`): the least recently heard
        // node shows, and a key the directory does not know is named as missing.
        const all = (await (await fetch(`${app.url}/api/views/nodes?limit=500&sort=lastSeen&order=asc`)).json()).nodes;
        const oldest = all[0].pubKey;
        const unknown = 'ab'.repeat(32) === oldest ? 'cd'.repeat(32) : 'ab'.repeat(32);
        const byKeys = await (await fetch(`${app.url}/api/views/nodes?keys=${oldest},${unknown}`)).json();
        assert.deepEqual(byKeys.nodes.map((node) => node.pubKey), [oldest], 'REST: keys picks exactly the known key');
        const refused = await fetch(`${app.url}/api/views/nodes?keys=${oldest},xyz`);
        assert.equal(refused.status, 400);
        assert.match((await refused.json()).message, /"keys" entry 2 \("xyz"\) is not a public key or prefix/);
        await page.evaluate((keys) => window.localStorage.setItem('meshpulse.favouriteNodes', JSON.stringify(keys)), [oldest, unknown]);
        await page.goto(`${app.url}/nodes`, { waitUntil: 'domcontentloaded' });
        await page.getByTestId('favourites-filter').check();
        await page.locator(`table tbody tr .node-link[href^="/nodes/${oldest}"]`).waitFor({ timeout: WAIT_MS });
        await page.getByTestId('favourites-missing').getByText(/^1 favourite not in the node directory/).waitFor({ timeout: WAIT_MS });
        await assertReadable(page, 'nodes, favourites only');
        assert.deepEqual(errors, [], 'no uncaught page errors');
      } finally {
        await context.close();
      }
    });

    await t.test('Live filter expression: evaluated by the server, a bad one shows its position; packets.live over DDP takes it', async () => {
      for (const mode of ['reactive', 'method']) {
        const { context, page, errors } = await openPage(browser, `${app.url}/live`, mode);
        try {
          await page.locator('.packets-table tbody tr[data-hash]').first().waitFor({ timeout: WAIT_MS });
          await page.getByTestId('filter-input').fill('type == GRP_TXT');
          await page.getByTestId('filter-input').press('Enter');
          await page.waitForFunction(() => {
            const rows = Array.from(document.querySelectorAll('.packets-table tbody tr[data-hash]'));
            return rows.length > 0 && rows.every((row) => row.cells[2].textContent.trim() === 'GRP_TXT');
          }, null, { timeout: WAIT_MS });
          await page.getByTestId('filter-input').fill('hops >=');
          await page.getByTestId('filter-input').press('Enter');
          const problem = page.getByTestId('filter-error');
          await problem.waitFor({ timeout: WAIT_MS });
          assert.match(await problem.textContent(), /^at \d+: /, `${mode}: the position of the mistake is shown`);
          await page.getByTestId('filter-input').fill('');
          await page.getByTestId('filter-error').waitFor({ state: 'detached', timeout: WAIT_MS });
          await page.locator('.packets-table tbody tr[data-hash]').first().waitFor({ timeout: WAIT_MS });
          assert.deepEqual(errors, [], `${mode}: no uncaught page errors`);
        } finally {
          await context.close();
        }
      }
      const { DdpClient } = require('../helpers/ddp-client');
      const client = await DdpClient.connect(app.url.replace(/^http/, 'ws') + '/websocket');
      try {
        await client.subscribe('packets.live', [{ limit: 30 }, 'type == GRP_TXT']);
        const rows = Array.from(client.collection('meshpulse.live').values());
        assert.ok(rows.length > 0 && rows.every((row) => row.payloadType === 5), 'DDP: only GRP_TXT rows are sent');
        await assert.rejects(client.subscribe('packets.live', [{ limit: 30 }, 'snr <']), /bad-params: .*filter" does not parse: at \d+/);
        await assert.rejects(client.subscribe('packets.live', [{ filter: 'hops > 1' }, 'hops > 2']), /given twice/);
      } finally {
        client.close();
      }
    });

    await t.test('phone (375 px): no page scrolls sideways, the menu collapses; screenshots in both themes', async () => {
      fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
      const offenders = [];
      for (const theme of ['dark', 'light']) {
        const { context, page, errors } = await openPage(browser, app.url, 'reactive', { viewport: PHONE, theme });
        try {
          await page.locator('[data-testid="overview-stats"] .stat-value').first().waitFor({ timeout: WAIT_MS });
          assert.equal(await page.evaluate(() => document.documentElement.getAttribute('data-theme')), theme);
          // The menu is collapsed behind its button, and opens.
          assert.equal(await page.locator('#main-nav').isVisible(), false, 'nav collapsed on a phone');
          await page.getByTestId('menu-toggle').click();
          await page.locator('#main-nav').waitFor({ state: 'visible', timeout: WAIT_MS });
          const menu = await page.evaluate(horizontalOverflow);
          if (menu.overflow > 0) offenders.push(`menu (${theme}): ${menu.overflow}px ${menu.offenders.join(' ')}`);
          await page.getByTestId('menu-toggle').click();
          const shots = [...PAGES];
          const hash = (await (await fetch(`${app.url}/api/views/packets?limit=1`)).json()).packets[0].hash;
          shots.push({ name: 'packet', path: `/packets/${hash}`, ready: '[data-testid="hexdump"] .byte' });
          const node = (await (await fetch(`${app.url}/api/views/nodes?limit=1`)).json()).nodes[0];
          shots.push({ name: 'node', path: `/nodes/${node.pubKey}`, ready: '.card svg' });
          for (const shot of shots) {
            await go(page, shot.path);
            await page.locator(shot.ready).first().waitFor({ timeout: WAIT_MS });
            await page.waitForTimeout(600); // one throttled render after the first data
            const found = await page.evaluate(horizontalOverflow);
            if (found.overflow > 0) offenders.push(`${shot.path} (${theme}): ${found.overflow}px ${found.offenders.join(' ')}`);
            const file = path.join(SCREENSHOT_DIR, `phone-${theme}-${shot.name}.png`);
            await page.screenshot({ path: file });
            assert.ok(fs.statSync(file).size > 5000, `${path.basename(file)} looks empty`);
          }
          assert.deepEqual(errors, [], `${theme}: no uncaught page errors`);
        } finally {
          await context.close();
        }
      }
      assert.deepEqual(offenders, [], 'pages that scroll sideways at 375 px');
    });

    await t.test('live charts: the bucket still filling is drawn "so far", not as a full bucket', async () => {
      const { context, page, errors } = await openPage(browser, app.url, 'reactive');
      try {
        for (const tab of ['/analytics/rf', '/analytics/hash-sizes']) {
          await go(page, tab);
          // The views tick every second: some snapshot's generatedAt falls inside its last bucket.
          const partial = page.locator('.card svg circle.partial-bucket title').first();
          await partial.waitFor({ state: 'attached', timeout: WAIT_MS });
          assert.match(await partial.textContent(), /^\d\d:\d\d:\d\d–\d\d:\d\d:\d\d so far \(bucket ends \d\d:\d\d:\d\d\): [\d,]+$/, `${tab}: the partial bucket's tooltip`);
          assert.ok(await page.locator('.card svg path.partial-bucket[stroke-dasharray]').count() > 0, `${tab}: the partial bucket is dashed`);
          await page.locator('.legend-partial', { hasText: 'current bucket, so far' }).first().waitFor({ timeout: WAIT_MS });
        }
        assert.deepEqual(errors, [], 'no uncaught page errors');
      } finally {
        await context.close();
      }
    });

    await t.test('channels: a malformed or unheard channel hash is named, not an empty panel', async () => {
      const { context, page, errors } = await openPage(browser, app.url, 'reactive');
      try {
        for (const [hash, shown] of [['zz', 'zz'], ['ffff', 'ffff'], ['%3Cb%3Ex', '<b>x']]) {
          await go(page, `/channels/${hash}`);
          await page.locator('.chat-panel .state-error', { hasText: `No channel “${shown}”: a channel hash is 2 hex digits` }).waitFor({ timeout: WAIT_MS });
        }
        const heard = new Set((await (await fetch(`${app.url}/api/views/channels`)).json()).channels.map((channel) => channel.hash));
        const unheard = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0')).find((hash) => !heard.has(hash));
        await go(page, `/channels/${unheard}`);
        await page.locator('.chat-panel .state', { hasText: `No stored messages on channel ${unheard}` }).waitFor({ timeout: WAIT_MS });
        assert.equal(await page.locator('.chat-head h2').textContent(), `#${unheard}`);
        assert.deepEqual(errors, [], 'no uncaught page errors');
      } finally {
        await context.close();
      }
    });

    await t.test('a 300-character id in the URL wraps: no page scrolls sideways (1280 and 375 px)', async () => {
      const long = (c) => c.repeat(300);
      const offenders = [];
      for (const viewport of [VIEWPORT, PHONE]) {
        const { context, page, errors } = await openPage(browser, app.url, 'reactive', { viewport });
        try {
          for (const to of [`/packets/${long('a')}`, `/observers/${long('x')}`, `/nodes/${long('x')}`, `/channels/${long('x')}`]) {
            await go(page, to);
            // The answer (an error or "not found"), not the loading state before it.
            await page.locator('.state-error, .state-empty').first().waitFor({ timeout: WAIT_MS });
            await page.waitForTimeout(600); // one throttled render after the answer
            const found = await page.evaluate(horizontalOverflow);
            if (found.overflow > 0) offenders.push(`${to.slice(0, 14)}… at ${viewport.width} px: ${found.overflow}px ${found.offenders.join(' ')}`);
          }
          assert.deepEqual(errors, [], 'no uncaught page errors');
        } finally {
          await context.close();
        }
      }
      assert.deepEqual(offenders, [], 'pages that scroll sideways');
    });

    await t.test('Nodes: "Next" below the list shows the new page from its first row', async () => {
      const { context, page, errors } = await openPage(browser, app.url, 'reactive');
      try {
        await go(page, '/nodes');
        const next = page.locator('.pager button', { hasText: 'Next' });
        await next.waitFor({ timeout: WAIT_MS });
        await next.scrollIntoViewIfNeeded();
        assert.ok(await page.evaluate(() => window.scrollY) > 0, 'the pager is below the fold');
        await next.click();
        await page.locator('.pager span', { hasText: /^101–/ }).waitFor({ timeout: WAIT_MS });
        const list = await page.evaluate(topInView, '[data-testid="node-list"]');
        assert.ok(list.top >= list.header && list.top < list.height / 2, `the next page's first row is in view: ${JSON.stringify(list)}`);
        assert.deepEqual(errors, [], 'no uncaught page errors');
      } finally {
        await context.close();
      }
    });

    await t.test('Subpaths: a row clicked far down brings its detail, opened above the table, into view', async () => {
      const { context, page, errors } = await openPage(browser, app.url, 'reactive');
      try {
        await go(page, '/analytics/subpaths');
        const rows = page.locator('table tbody tr.clickable');
        await rows.first().waitFor({ timeout: WAIT_MS });
        const last = rows.nth((await rows.count()) - 1);
        await last.scrollIntoViewIfNeeded();
        await last.click();
        await page.locator('[data-testid="subpath-detail"] .card').waitFor({ timeout: WAIT_MS });
        const detail = await page.evaluate(topInView, '[data-testid="subpath-detail"] .card');
        assert.ok(detail.top >= detail.header && detail.top < detail.height, `the subpath detail is in view: ${JSON.stringify(detail)}`);
        assert.deepEqual(errors, [], 'no uncaught page errors');
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
  });
});
