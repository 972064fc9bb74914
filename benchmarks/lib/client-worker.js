'use strict';
/**
 * A load-generator process holding many DDP subscribers (fan-out, compression and knobs
 * studies). Started by client-pool.js with `taskset -c 1`, driven over IPC:
 *
 *   { type: 'connect', url, count, subscriptions: [{ name, params }], perMessageDeflate }
 *       -> { type: 'connected', clients, failures, errors }
 *   { type: 'measure' }   start a measurement window (clears histograms and counters)
 *   { type: 'report' }    -> { type: 'report', delay (HDR histogram, base64), updates,
 *                              bytes: { payload, wire }, messages: wire stats, lagP99Ms, failures }
 *   { type: 'close' }     close every client and exit
 *
 * Delay = arrival time - newestPacketAt of each view update (server and clients share a clock).
 */
const { monitorEventLoopDelay } = require('perf_hooks');
const hdr = require('hdr-histogram-js');
const { DdpClient } = require('../../tests/helpers/ddp-client');
const { tapWebSocket, createWireStats } = require('./wire-tap');

const CONNECT_CONCURRENCY = 20;
const clients = [];
let failures = 0;
let lastError = null;
let measuring = false;
let delay = newHistogram();
let updates = 0;
let wire = createWireStats();
let lag = monitorEventLoopDelay({ resolution: 10 });
lag.enable();

function newHistogram() {
  return hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 3600000, numberOfSignificantValueDigits: 3 });
}

function onData(msg, receivedAt) {
  if (!measuring) return;
  updates++;
  if (msg.collection === 'meshpulse.views' && msg.fields && msg.fields.newestPacketAt) {
    delay.recordValue(Math.max(0, receivedAt - msg.fields.newestPacketAt));
  }
}

async function openClient(url, subscriptions, perMessageDeflate) {
  const client = await DdpClient.connect(url, { perMessageDeflate, timeoutMs: 30000 });
  tapWebSocket(client.socket, (message) => { if (measuring) wire.add(message); });
  client.on('changed', onData);
  client.on('added', onData);
  client.on('removed', onData);
  client.on('close', () => { if (!client.closing) { failures++; lastError = 'connection closed by the server'; } });
  client.on('error', (err) => { lastError = err.message; });
  for (const { name, params } of subscriptions) await client.subscribe(name, [params], { timeoutMs: 60000 });
  clients.push(client);
}

async function connect({ url, count, subscriptions, perMessageDeflate = true }) {
  let next = 0;
  let failed = 0;
  const errors = new Set();
  const lane = async () => {
    while (next < count) {
      next++;
      try {
        await openClient(url, subscriptions, perMessageDeflate);
      } catch (err) {
        failed++;
        errors.add(err.message);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONNECT_CONCURRENCY, count) }, lane));
  return { clients: clients.length, failures: failed, errors: Array.from(errors).slice(0, 5) };
}

process.on('message', async (command) => {
  try {
    if (command.type === 'connect') {
      process.send({ type: 'connected', ...(await connect(command)) });
    } else if (command.type === 'measure') {
      delay = newHistogram();
      updates = 0;
      wire = createWireStats();
      lag.disable();
      lag = monitorEventLoopDelay({ resolution: 10 });
      lag.enable();
      measuring = true;
      process.send({ type: 'measuring' });
    } else if (command.type === 'report') {
      measuring = false;
      let payload = 0;
      let wireBytes = 0;
      for (const client of clients) {
        payload += client.bytesReceived;
        wireBytes += client.socket._socket ? client.socket._socket.bytesRead : 0;
      }
      process.send({
        type: 'report',
        delay: hdr.encodeIntoCompressedBase64(delay),
        updates,
        messages: wire.snapshot(),
        totals: { payload, wire: wireBytes },
        lagP99Ms: lag.percentile(99) / 1e6,
        clients: clients.length,
        failures,
        lastError,
      });
    } else if (command.type === 'close') {
      for (const client of clients) { client.closing = true; client.close(); }
      setTimeout(() => process.exit(0), 200);
    }
  } catch (err) {
    process.send({ type: 'error', message: err.message });
  }
});

process.on('disconnect', () => process.exit(0));
