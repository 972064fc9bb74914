'use strict';
/**
 * Artillery processor: the DDP half of every scenario in this folder.
 *
 * Artillery's `ws` engine opens the websocket (so connection errors and timings are
 * Artillery's own), then the flow calls these `function` steps, which speak DDP on that
 * socket through tests/helpers/ddp-client.js: connect, subscribe until `ready`, call until
 * `result` and `updated`, answer `ping`. Every step is an `async function (context, events)`:
 * Artillery awaits those; a plain function returning a promise would hang the virtual user.
 *
 * Custom metrics (all milliseconds unless named otherwise):
 *   ddp.connect_ms          DDP `connect` -> `connected`
 *   ddp.dashboard_ready_ms  first subscribe (or first call) -> every view of the dashboard on hand
 *   ddp.update_delay_ms     reactive: newestPacketAt of a view update (server ingest time of the
 *                           newest packet it includes) -> arrival at the client
 *   ddp.row_delay_ms        reactive live feed: a row's own ingest time -> arrival of its `added`
 *                           (includes the wait for the next publish tick, 0..publish.intervalMs)
 *   ddp.method_latency_ms   method: call sent -> `result` and `updated` received
 *   ddp.data_age_ms         method: newestPacketAt of the result -> arrival
 *   ddp.delivery_delay_ms   either path: ingest of the newest packet -> its arrival (update delay
 *                           or data age), so one threshold serves both
 *   ddp.displayed_age_ms    either path: how old the data on the user's screen is at any moment,
 *                           sampled every DISPLAYED_AGE_SAMPLE_MS: now - newestPacketAt of the
 *                           `stats` document the user holds (stats changes with every packet, so
 *                           its newest packet is the newest the server had when it was sent).
 *                           Arrival delays are measured only when something arrives: a method
 *                           answer is computed at the call, so its age on arrival is about the
 *                           call's latency, and then it ages on screen until the next answer
 *                           (refreshMs later); a reactive document ages only until the next tick.
 *   ddp.client_lag_ms       either path: how late that 250 ms sampling timer fired, i.e. how long
 *                           this load process's event loop was busy with other work (other users'
 *                           messages): an arrival is timed when the loop reaches it, so a lag near
 *                           the delays means the client, not the server, made them
 *   ddp.updates             counter: view updates delivered (DDP added/changed/removed, or results)
 *   ddp.bytes_payload       counter: bytes of DDP messages received, after decompression
 *   ddp.bytes_wire          counter: bytes read from the TCP socket (compressed frames + headers)
 *
 * Variables (config.variables, or `artillery run --variables '{"holdSeconds": 30}'`):
 *   holdSeconds     how long a virtual user keeps its dashboard open (default 30)
 *   refreshMs       method path: pause after each answer before asking again (default 2000, the UI's)
 *   liveLimit       rows of the live feed (default 16, as on the overview page)
 *   warmupSeconds   updates in the first N seconds after ready are not recorded (default 0)
 */
const { DdpClient } = require('../helpers/ddp-client');
const { viewDocumentId } = require('../../imports/core/view-key');

/** The dashboard both paths load: same views, same params. */
const DASHBOARD_VIEWS = ['stats', 'nodes', 'rf', 'topology', 'channels'];
// The view whose age on screen is sampled: it changes with every ingested packet.
const AGED_VIEW = 'stats';
const DISPLAYED_AGE_SAMPLE_MS = 250;

/**
 * Samples the age of the data a user holds: `seen(newestPacketAt)` whenever a newer `stats`
 * document arrives; from `start(recordFrom)` on, every `intervalMs` it emits now - the newest
 * packet time held (nothing before the first document, nor before recordFrom). `stop()` ends it
 * (ddpClose); it also ends by itself at `until`, so a user whose flow failed leaves no timer.
 * Each tick also emits how late it fired (ddp.client_lag_ms): the process's event loop was busy.
 */
function createDisplayedAgeSampler(events, { intervalMs = DISPLAYED_AGE_SAMPLE_MS, now = Date.now } = {}) {
  let newest = null;
  let timer = null;
  const sampler = {
    seen(newestPacketAt) {
      if (typeof newestPacketAt === 'number' && (newest === null || newestPacketAt > newest)) newest = newestPacketAt;
    },
    start(recordFrom, until) {
      if (timer !== null) return;
      let due = now() + intervalMs;
      timer = setInterval(() => {
        const at = now();
        if (at >= until) return sampler.stop();
        if (at >= recordFrom) {
          events.emit('histogram', 'ddp.client_lag_ms', Math.max(0, at - due));
          if (newest !== null) events.emit('histogram', 'ddp.displayed_age_ms', at - newest);
        }
        due = at + intervalMs;
      }, intervalMs);
      if (timer.unref) timer.unref();
    },
    stop() {
      if (timer !== null) clearInterval(timer);
      timer = null;
    },
  };
  return sampler;
}

function numberVar(context, name, fallback) {
  const value = Number(context.vars && context.vars[name]);
  return Number.isFinite(value) && value >= 0 ? value : fallback;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Wrap the socket Artillery opened (ws engine), or open one (other engines, plain Node). */
async function ddpConnect(context, events) {
  const started = Date.now();
  let client;
  if (context.ws) {
    client = new DdpClient(context.ws);
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('DDP connect timed out after 15000 ms')), 15000);
      client.once('connected', (msg) => { clearTimeout(timer); client.session = msg.session; resolve(); });
      client.once('failed', (msg) => { clearTimeout(timer); reject(new Error(`DDP version refused: ${JSON.stringify(msg)}`)); });
      client.once('close', () => { clearTimeout(timer); reject(new Error('socket closed before DDP connected')); });
      client.send({ msg: 'connect', version: '1', support: ['1', 'pre2', 'pre1'] });
    });
  } else {
    client = await DdpClient.connect(context.vars.ddpUrl || context.vars.target);
  }
  // A socket error after this point fails the user at its next step instead of crashing the worker.
  client.on('error', (err) => { context.ddpError = err; });
  context.ddp = client;
  events.emit('histogram', 'ddp.connect_ms', Date.now() - started);
}

function dashboardSubscriptions(context) {
  const liveLimit = numberVar(context, 'liveLimit', 16);
  return [
    ...DASHBOARD_VIEWS.map((view) => ({ name: `view.${view}`, params: {} })),
    { name: 'packets.live', params: { limit: liveLimit } },
  ];
}

function dashboardCalls(context) {
  const liveLimit = numberVar(context, 'liveLimit', 16);
  return [
    ...DASHBOARD_VIEWS.map((view) => ({ method: `view.${view}`, params: {} })),
    { method: 'view.packets', params: { limit: liveLimit } },
  ];
}

/**
 * Reactive path: subscribe to every dashboard view at once, wait for all `ready`s, then
 * record the ingest -> arrival delay of every update until ddpClose.
 */
async function subscribeDashboard(context, events) {
  const client = context.ddp;
  const started = Date.now();
  const warmupMs = numberVar(context, 'warmupSeconds', 0) * 1000;
  let recordFrom = Infinity; // nothing before ready: the initial `added`s are not updates
  const sampler = createDisplayedAgeSampler(events);
  context.displayedAge = sampler;
  const agedDocument = viewDocumentId(AGED_VIEW, {}); // the id the publication gives its document
  const onData = (msg, receivedAt) => {
    if (msg.collection === 'meshpulse.views' && msg.id === agedDocument && msg.fields) sampler.seen(msg.fields.newestPacketAt);
    if (receivedAt < recordFrom) return;
    events.emit('counter', 'ddp.updates', 1);
    const fields = msg.fields;
    if (!fields) return;
    if (msg.collection === 'meshpulse.views' && fields.newestPacketAt) {
      events.emit('histogram', 'ddp.update_delay_ms', receivedAt - fields.newestPacketAt);
      events.emit('histogram', 'ddp.delivery_delay_ms', receivedAt - fields.newestPacketAt);
    } else if (msg.collection === 'meshpulse.live' && msg.msg === 'added' && fields.time) {
      events.emit('histogram', 'ddp.row_delay_ms', receivedAt - fields.time);
    }
  };
  client.on('added', onData);
  client.on('changed', onData);
  client.on('removed', onData);
  await Promise.all(dashboardSubscriptions(context).map(({ name, params }) => client.subscribe(name, [params])));
  events.emit('histogram', 'ddp.dashboard_ready_ms', Date.now() - started);
  recordFrom = Date.now() + warmupMs;
  sampler.start(recordFrom, Date.now() + numberVar(context, 'holdSeconds', 30) * 1000 + 5000);
}

/** Reactive path: keep the dashboard open for holdSeconds, failing early if the socket dies. */
async function holdDashboard(context) {
  const until = Date.now() + numberVar(context, 'holdSeconds', 30) * 1000;
  while (Date.now() < until) {
    if (context.ddpError) throw context.ddpError;
    if (context.ddp.socket.readyState !== 1) throw new Error('socket closed while holding the dashboard');
    await sleep(Math.min(1000, until - Date.now()));
  }
}

async function callView(context, events, { method, params }, first) {
  const sentAt = Date.now();
  const result = await context.ddp.call(method, [params]);
  const receivedAt = Date.now();
  if (method === `view.${AGED_VIEW}` && result && context.displayedAge) context.displayedAge.seen(result.newestPacketAt);
  events.emit('histogram', 'ddp.method_latency_ms', receivedAt - sentAt);
  events.emit('counter', 'ddp.updates', 1);
  if (!first && result && result.newestPacketAt) {
    events.emit('histogram', 'ddp.data_age_ms', receivedAt - result.newestPacketAt);
    events.emit('histogram', 'ddp.delivery_delay_ms', receivedAt - result.newestPacketAt);
  }
}

/**
 * Method path: the dashboard as the UI's method mode runs it: each view is called at once,
 * then again refreshMs after its previous answer (never overlapping), for holdSeconds.
 */
async function refreshDashboard(context, events) {
  const refreshMs = numberVar(context, 'refreshMs', 2000);
  const holdMs = numberVar(context, 'holdSeconds', 30) * 1000;
  const warmupMs = numberVar(context, 'warmupSeconds', 0) * 1000;
  const started = Date.now();
  const calls = dashboardCalls(context);
  const sampler = createDisplayedAgeSampler(events);
  context.displayedAge = sampler;
  // The first round is the page load, measured like the reactive path's subscribe.
  await Promise.all(calls.map((call) => callView(context, events, call, true)));
  events.emit('histogram', 'ddp.dashboard_ready_ms', Date.now() - started);
  const recordFrom = Date.now() + warmupMs;
  const until = started + holdMs;
  sampler.start(recordFrom, until);
  const quietEvents = { emit: (type, name, value) => { if (Date.now() >= recordFrom) events.emit(type, name, value); } };
  await Promise.all(calls.map(async (call) => {
    for (;;) {
      await sleep(refreshMs);
      if (Date.now() >= until) return;
      if (context.ddpError) throw context.ddpError;
      await callView(context, quietEvents, call, false);
    }
  }));
  sampler.stop();
}

/** Record the bytes this user received, then close the DDP session. */
async function ddpClose(context, events) {
  if (context.displayedAge) context.displayedAge.stop();
  const client = context.ddp;
  if (!client) return;
  const tcp = client.socket && client.socket._socket;
  events.emit('counter', 'ddp.bytes_payload', client.bytesReceived);
  if (tcp) events.emit('counter', 'ddp.bytes_wire', tcp.bytesRead);
  client.close();
  context.ddp = null;
}

/**
 * Browser scenario (Playwright engine): open the real UI in one data mode (stored where the
 * UI reads it, localStorage `meshpulse.dataMode`), wait until the overview and the live feed
 * show data, stay, and record the page's own data-age figure once a second.
 */
async function openDashboardInBrowser(mode, page, vuContext, events, test) {
  const holdMs = numberVar(vuContext, 'holdSeconds', 20) * 1000;
  await page.addInitScript((chosen) => window.localStorage.setItem('meshpulse.dataMode', chosen), mode);
  await test.step(`overview_${mode}`, async () => {
    await page.goto('/'); // relative to config.target (the engine's baseURL)
    await page.waitForSelector('[data-testid="overview-stats"] .stat-value', { timeout: 30000 });
  });
  await test.step(`live_${mode}`, async () => {
    await page.goto('/live');
    await page.waitForSelector('.packets-table tbody tr', { timeout: 30000 });
  });
  const until = Date.now() + holdMs;
  while (Date.now() < until) {
    const text = await page.locator('[data-testid="data-age-value"]').textContent().catch(() => null);
    const match = /^([\d.]+) (ms|s|min|h)$/.exec((text || '').trim());
    if (match) events.emit('histogram', `browser.data_age_ms.${mode}`, Number(match[1]) * { ms: 1, s: 1000, min: 60000, h: 3600000 }[match[2]]);
    await sleep(1000);
  }
  const stored = await page.evaluate(() => window.localStorage.getItem('meshpulse.dataMode'));
  if (stored !== mode) throw new Error(`data mode in localStorage is ${stored}, expected ${mode}`);
}

async function openReactiveDashboard(page, vuContext, events, test) {
  await openDashboardInBrowser('reactive', page, vuContext, events, test);
}

async function openMethodDashboard(page, vuContext, events, test) {
  await openDashboardInBrowser('method', page, vuContext, events, test);
}

module.exports = {
  DASHBOARD_VIEWS,
  createDisplayedAgeSampler,
  dashboardSubscriptions,
  dashboardCalls,
  ddpConnect,
  subscribeDashboard,
  holdDashboard,
  refreshDashboard,
  ddpClose,
  openReactiveDashboard,
  openMethodDashboard,
};
