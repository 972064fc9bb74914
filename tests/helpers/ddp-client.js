'use strict';
/**
 * A small DDP client over `ws` for tests, benchmarks and the Artillery processor: connect,
 * subscribe until `ready`, call a method until both `result` and `updated`, answer `ping`,
 * and keep a local copy of every published collection (added/changed/removed applied).
 *
 *   const client = await DdpClient.connect('ws://127.0.0.1:3000/websocket');
 *   await client.subscribe('view.stats', [{}]);
 *   const result = await client.call('view.stats', [{}]);
 *   client.on('changed', (msg) => ...);  client.close();
 *
 * `{ sockjs: true }` speaks SockJS's websocket framing, as a browser's Meteor client does:
 * connect to `/sockjs/<server>/<session>/websocket`; the server sends `o`, `h` and `a[...]`
 * frames (an array of DDP messages each), and the client sends `["<DDP message>"]`.
 */
const EventEmitter = require('events');
const WebSocket = require('ws');

class DdpError extends Error {
  constructor(error) {
    super(error && (error.reason || error.message) ? `${error.error}: ${error.reason || error.message}` : JSON.stringify(error));
    this.name = 'DdpError';
    this.error = error && error.error;
    this.reason = error && error.reason;
  }
}

class DdpClient extends EventEmitter {
  constructor(socket, { sockjs = false } = {}) {
    super();
    this.socket = socket;
    this.sockjs = sockjs;
    this.nextId = 1;
    this.pending = new Map();
    this.collections = new Map();
    this.bytesReceived = 0;
    this.messagesReceived = 0;
    socket.on('message', (data) => this.onMessage(data));
    socket.on('close', () => {
      for (const entry of this.pending.values()) entry.reject(new Error('connection closed'));
      this.pending.clear();
      this.emit('close');
    });
    socket.on('error', (err) => this.emit('error', err));
  }

  /** `url`: ws://host:port/websocket, or with `sockjs: true` ws://host:port (a SockJS path is added). */
  static connect(url, { timeoutMs = 15000, perMessageDeflate = true, sockjs = false } = {}) {
    return new Promise((resolve, reject) => {
      const target = sockjs ? `${url.replace(/\/(websocket)?$/, '')}/sockjs/${Math.floor(Math.random() * 1000)}/${Math.random().toString(36).slice(2, 10)}/websocket` : url;
      const socket = new WebSocket(target, { perMessageDeflate });
      const client = new DdpClient(socket, { sockjs });
      const timer = setTimeout(() => { socket.terminate(); reject(new Error(`DDP connect timed out after ${timeoutMs} ms`)); }, timeoutMs);
      const hello = () => client.send({ msg: 'connect', version: '1', support: ['1', 'pre2', 'pre1'] });
      if (sockjs) client.once('sockjs-open', hello);
      else socket.once('open', hello);
      socket.once('error', (err) => { clearTimeout(timer); reject(err); });
      client.once('connected', (msg) => {
        clearTimeout(timer);
        client.session = msg.session;
        resolve(client);
      });
      client.once('failed', (msg) => { clearTimeout(timer); reject(new Error(`DDP version refused: ${JSON.stringify(msg)}`)); });
    });
  }

  send(message) {
    const text = JSON.stringify(message);
    this.socket.send(this.sockjs ? JSON.stringify([text]) : text);
  }

  onMessage(data) {
    this.bytesReceived += data.length;
    if (!this.sockjs) {
      this.onDdpText(data.toString());
      return;
    }
    const frame = data.toString();
    if (frame === 'o') this.emit('sockjs-open');
    else if (frame[0] === 'a') for (const text of JSON.parse(frame.slice(1))) this.onDdpText(text);
    // 'h' (heartbeat) and 'c[code,reason]' (close, followed by the socket's close) need nothing.
  }

  onDdpText(text) {
    this.messagesReceived++;
    let msg;
    try {
      msg = JSON.parse(text);
    } catch (err) {
      return;
    }
    const receivedAt = Date.now();
    switch (msg.msg) {
      case 'ping':
        this.send(msg.id ? { msg: 'pong', id: msg.id } : { msg: 'pong' });
        break;
      case 'added': {
        const docs = this.collection(msg.collection);
        docs.set(msg.id, { ...(msg.fields || {}) });
        break;
      }
      case 'changed': {
        const docs = this.collection(msg.collection);
        const doc = docs.get(msg.id) || {};
        Object.assign(doc, msg.fields || {});
        for (const field of msg.cleared || []) delete doc[field];
        docs.set(msg.id, doc);
        break;
      }
      case 'removed':
        this.collection(msg.collection).delete(msg.id);
        break;
      case 'ready':
        for (const id of msg.subs) this.settle(id, 'ready', null);
        break;
      case 'nosub':
        this.settle(msg.id, 'ready', msg.error ? new DdpError(msg.error) : new Error('subscription stopped'));
        break;
      case 'result':
        this.settle(msg.id, 'result', msg.error ? new DdpError(msg.error) : null, msg.result);
        break;
      case 'updated':
        for (const id of msg.methods) this.settle(id, 'updated', null);
        break;
      default:
        break;
    }
    this.emit(msg.msg || 'message', msg, receivedAt);
  }

  collection(name) {
    if (!this.collections.has(name)) this.collections.set(name, new Map());
    return this.collections.get(name);
  }

  settle(id, event, error, value) {
    const entry = this.pending.get(id);
    if (!entry) return;
    if (error) {
      this.pending.delete(id);
      entry.reject(error);
      return;
    }
    entry.seen.add(event);
    if (event === 'result') entry.value = value;
    if (entry.needs.every((need) => entry.seen.has(need))) {
      this.pending.delete(id);
      entry.resolve(entry.value);
    }
  }

  request(message, needs, timeoutMs) {
    const id = String(this.nextId++);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${message.msg} ${message.name || message.method} timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, {
        needs,
        seen: new Set(),
        resolve: (value) => { clearTimeout(timer); resolve(value); },
        reject: (err) => { clearTimeout(timer); reject(err); },
      });
      this.send({ ...message, id });
    }).then((value) => ({ id, value }));
  }

  /** Subscribe and wait for `ready`; resolves to the subscription id. */
  async subscribe(name, params = [], { timeoutMs = 15000 } = {}) {
    const { id } = await this.request({ msg: 'sub', name, params }, ['ready'], timeoutMs);
    return id;
  }

  unsubscribe(id) {
    this.send({ msg: 'unsub', id });
  }

  /** Call a method and wait for both its `result` and `updated`; resolves to the result. */
  async call(method, params = [], { timeoutMs = 15000 } = {}) {
    const { value } = await this.request({ msg: 'method', method, params }, ['result', 'updated'], timeoutMs);
    return value;
  }

  close() {
    try { this.socket.close(); } catch (err) { /* already closed */ }
  }
}

module.exports = { DdpClient, DdpError };
