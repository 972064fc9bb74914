'use strict';
// A tiny fake DDP server on `ws` for the load generators' tests (tests/bench-storm.test.js,
// tests/bench-client-pool.test.js): no Meteor needed.
const { WebSocketServer } = require('ws');

const bigFields = (newestPacketAt) => ({ newestPacketAt, generatedAt: newestPacketAt + 3, nodes: Array.from({ length: 40 }, (_, i) => ({ key: `node-${i}`, name: `Node "${i}"`, snr: i / 4 })) });

/**
 * A DDP server that answers like MeshPulse's (Meteor's key order: msg, collection, id, fields),
 * sending a view update every `tickMs`. `behaviour` bends it: nosub, closeAfterMs, silent
 * (never `ready`), ping (sends a ping and records the pong).
 */
async function fakeDdpServer(behaviour = {}) {
  // threshold 0: every message compressed, so the storm socket's inflate is exercised too.
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: { threshold: 0, ...behaviour.deflate } });
  const seen = { connects: 0, subs: [], calls: [], pongs: 0, sockets: 0 };
  wss.on('connection', (socket) => {
    seen.sockets++;
    const send = (message) => socket.readyState === 1 && socket.send(JSON.stringify(message));
    const timers = [];
    socket.on('close', () => timers.forEach(clearInterval));
    if (behaviour.closeAfterMs) timers.push(setTimeout(() => socket.terminate(), behaviour.closeAfterMs));
    socket.on('message', (data) => {
      const msg = JSON.parse(data.toString());
      if (msg.msg === 'connect') {
        seen.connects++;
        send({ msg: 'connected', session: `s${seen.connects}` });
        if (behaviour.ping) send({ msg: 'ping', id: 'p1' });
      } else if (msg.msg === 'pong') {
        seen.pongs++;
      } else if (msg.msg === 'sub') {
        seen.subs.push({ name: msg.name, params: msg.params });
        if (behaviour.nosub && msg.name === behaviour.nosub) return send({ msg: 'nosub', id: msg.id, error: { error: 'bad-params', reason: 'refused' } });
        if (behaviour.silent) return;
        const id = `${msg.name}:${JSON.stringify(msg.params)}`;
        const collection = msg.name === 'packets.live' ? 'meshpulse.live' : 'meshpulse.views';
        send({ msg: 'added', collection, id, fields: bigFields(Date.now() - 50) });
        send({ msg: 'ready', subs: [msg.id] });
        if (collection === 'meshpulse.views') timers.push(setInterval(() => send({ msg: 'changed', collection, id, fields: bigFields(Date.now() - 20) }), behaviour.tickMs || 50));
      } else if (msg.msg === 'method') {
        seen.calls.push({ method: msg.method, params: msg.params });
        send({ msg: 'result', id: msg.id, result: bigFields(Date.now() - 30) });
        send({ msg: 'updated', methods: [msg.id] });
      }
    });
  });
  await new Promise((resolve) => wss.once('listening', resolve));
  return { url: `ws://127.0.0.1:${wss.address().port}/websocket`, seen, close: () => new Promise((resolve) => { for (const c of wss.clients) c.terminate(); wss.close(resolve); }) };
}

module.exports = { fakeDdpServer, bigFields };
