'use strict';
/**
 * A bare WebSocket client for the storm generator (RFC 6455 + permessage-deflate, RFC 7692)
 * that inflates each distinct compressed message ONCE per process, however many of its
 * sockets receive it.
 *
 * Why: a dashboard user receives ~420 KB (inflated) in 5 s. With `ws`, every socket inflates
 * its copy on its own (an async zlib call per message, ~38 µs each): ~20 ms of CPU per user,
 * so one load core topped out near 3,000 new users per minute, the very rate under study. The
 * server's shared deflate (imports/core/shared-deflate.js) sends every session of a group the
 * same self-contained bytes; so here a message whose compressed bytes were seen before is not
 * inflated again. Exact, not a guess: a message is cached only when it inflated on its own
 * (raw inflate, empty window): then its text depends on its bytes alone. One that refers back
 * to earlier messages (a server keeping its deflate context) is inflated with the socket's
 * last 32 KB of output as the window, as a streaming inflate would, and never cached.
 *
 * The server sees what `ws` would send: the same handshake and extension offer
 * (`permessage-deflate; client_max_window_bits`), masked uncompressed text frames, pongs to
 * pings, and a close frame (1000) on close; every byte it sends is read.
 *
 *   const socket = openStormSocket(url);     // events: open, message (Buffer), close, error
 *   socket.send(text); socket.close(); socket.terminate(); socket.bytesRead; socket.readyState
 *
 * Shaped like a `ws` WebSocket as far as storm-ddp.js uses one, so either can carry a user.
 */
const net = require('net');
const crypto = require('crypto');
const zlib = require('zlib');
const { EventEmitter } = require('events');

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const SYNC_FLUSH_TAIL = Buffer.from([0x00, 0x00, 0xff, 0xff]);
const WINDOW_BYTES = 32 * 1024; // the largest deflate window: enough history whatever was negotiated
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
const HANDSHAKE_MAX_BYTES = 16 * 1024;
const CLOSE_WAIT_MS = 2000;
const CONNECTING = 0;
const OPEN = 1;
const CLOSING = 2;
const CLOSED = 3;

/**
 * The per-process cache of inflated self-contained messages (compressed bytes -> text bytes),
 * bounded; stats for the study. Cleared whole when full: a tick's messages come back at once.
 */
const inflateCache = {
  entries: new Map(),
  bytes: 0,
  maxEntries: 4096,
  maxBytes: 64 * 1024 * 1024,
  stats: { hits: 0, inflated: 0, withWindow: 0, stored: 0 },
  get(key) { return this.entries.get(key); },
  set(key, value) {
    if (this.entries.size >= this.maxEntries || this.bytes + value.length > this.maxBytes) {
      this.entries.clear();
      this.bytes = 0;
    }
    this.entries.set(key, value);
    this.bytes += value.length;
  },
};

/**
 * A message that is one final stored (uncompressed) deflate block, as the shared deflate sends
 * those under its threshold: its bytes, or null. No zlib call needed.
 */
function storedBlock(payload) {
  if (payload.length < 5 || (payload[0] & 0x07) !== 0x00) return null; // BFINAL 0, BTYPE 00, then padding
  const length = payload.readUInt16LE(1);
  if ((payload.readUInt16LE(3) ^ 0xffff) !== length) return null;
  // The sync flush after it (an empty stored block, 00 00 00 ff ff) arrives as its first byte 00:
  // the sender strips the last four.
  const exact = payload.length === 5 + length || (payload.length === 6 + length && payload[5 + length] === 0x00);
  return exact ? payload.subarray(5, 5 + length) : null;
}

/** Inflate one permessage-deflate message; `history` (array of Buffers, newest last) is the socket's past output. */
function inflateMessage(payload, history) {
  const stored = storedBlock(payload);
  if (stored) {
    inflateCache.stats.stored++;
    return stored;
  }
  const key = payload.toString('latin1');
  const cached = inflateCache.get(key);
  if (cached) {
    inflateCache.stats.hits++;
    return cached;
  }
  const input = Buffer.concat([payload, SYNC_FLUSH_TAIL]);
  try {
    const text = zlib.inflateRawSync(input, { windowBits: 15, finishFlush: zlib.constants.Z_SYNC_FLUSH });
    // Inflated with an empty window: the text depends on these bytes alone.
    inflateCache.stats.inflated++;
    inflateCache.set(key, text);
    return text;
  } catch (err) {
    // Refers back to earlier messages (context takeover): inflate with the socket's window.
    if (!history.length) throw err;
    const past = Buffer.concat(history);
    const dictionary = past.length > WINDOW_BYTES ? past.subarray(past.length - WINDOW_BYTES) : past;
    inflateCache.stats.withWindow++;
    return zlib.inflateRawSync(input, { windowBits: 15, finishFlush: zlib.constants.Z_SYNC_FLUSH, dictionary });
  }
}

/** A masked client frame (RFC 6455 5.3): FIN set, no RSV bits. */
function clientFrame(opcode, payload) {
  const length = payload.length;
  const headerLength = length < 126 ? 2 : length < 65536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(headerLength + 4 + length);
  frame[0] = 0x80 | opcode;
  if (length < 126) {
    frame[1] = 0x80 | length;
  } else if (length < 65536) {
    frame[1] = 0x80 | 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = 0x80 | 127;
    frame.writeUInt32BE(0, 2);
    frame.writeUInt32BE(length, 6);
  }
  const mask = crypto.randomBytes(4);
  mask.copy(frame, headerLength);
  for (let i = 0; i < length; i++) frame[headerLength + 4 + i] = payload[i] ^ mask[i & 3];
  return frame;
}

class StormSocket extends EventEmitter {
  constructor(url, { perMessageDeflate = true } = {}) {
    super();
    const target = new URL(url);
    this.readyState = CONNECTING;
    this.bytesRead = 0;
    this.deflate = false; // negotiated?
    this.history = []; // recent inflated output, for messages that refer back (context takeover)
    this.historyBytes = 0;
    this.buffered = Buffer.alloc(0);
    this.fragments = null; // { compressed, parts: [] } of a fragmented message
    this.key = crypto.randomBytes(16).toString('base64');
    this.stage = 'TCP connecting'; // for a timeout's message
    this.socket = net.connect({ host: target.hostname, port: Number(target.port) || 80 });
    this.socket.setNoDelay(true);
    this.socket.once('connect', () => {
      this.stage = 'handshake sent, no response';
      const lines = [
        `GET ${target.pathname}${target.search} HTTP/1.1`,
        `Host: ${target.host}`,
        'Upgrade: websocket',
        'Connection: Upgrade',
        `Sec-WebSocket-Key: ${this.key}`,
        'Sec-WebSocket-Version: 13',
      ];
      // The offer `ws` makes by default.
      if (perMessageDeflate) lines.push('Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits');
      this.socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    });
    this.socket.on('data', (chunk) => this.onData(chunk));
    this.socket.on('error', (err) => this.fail(err));
    this.socket.on('close', () => this.onSocketClose());
  }

  fail(err) {
    if (this.readyState === CLOSED) return;
    this.emit('error', err);
    this.terminate();
  }

  onData(chunk) {
    this.bytesRead += chunk.length;
    this.buffered = this.buffered.length ? Buffer.concat([this.buffered, chunk]) : chunk;
    if (this.readyState === CONNECTING) {
      const end = this.buffered.indexOf('\r\n\r\n');
      if (end < 0) {
        if (this.buffered.length > HANDSHAKE_MAX_BYTES) this.fail(new Error('websocket handshake: no end of headers within 16 KB'));
        return;
      }
      const head = this.buffered.toString('latin1', 0, end);
      this.buffered = this.buffered.subarray(end + 4);
      if (!this.acceptHandshake(head)) return;
    }
    this.readFrames();
  }

  acceptHandshake(head) {
    const [status, ...headerLines] = head.split('\r\n');
    if (!/^HTTP\/1\.1 101 /.test(status)) {
      this.fail(new Error(`Unexpected server response: ${status.split(' ')[1] || status}`));
      return false;
    }
    const headers = {};
    for (const line of headerLines) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const expected = crypto.createHash('sha1').update(this.key + GUID).digest('base64');
    if (headers['sec-websocket-accept'] !== expected) {
      this.fail(new Error('Invalid Sec-WebSocket-Accept header'));
      return false;
    }
    this.deflate = /(^|,)\s*permessage-deflate\b/.test(headers['sec-websocket-extensions'] || '');
    this.readyState = OPEN;
    this.stage = null;
    this.emit('open');
    return true;
  }

  readFrames() {
    let buffer = this.buffered;
    let offset = 0;
    while (this.readyState !== CLOSED && buffer.length - offset >= 2) {
      const first = buffer[offset];
      const second = buffer[offset + 1];
      let length = second & 0x7f;
      let header = 2;
      if (length === 126) {
        if (buffer.length - offset < 4) break;
        length = buffer.readUInt16BE(offset + 2);
        header = 4;
      } else if (length === 127) {
        if (buffer.length - offset < 10) break;
        length = buffer.readUInt32BE(offset + 2) * 2 ** 32 + buffer.readUInt32BE(offset + 6);
        header = 10;
      }
      if (second & 0x80) header += 4; // a server must not mask, but read it right if it does
      if (length > MAX_MESSAGE_BYTES) return this.fail(new Error(`frame of ${length} bytes over the ${MAX_MESSAGE_BYTES} limit`));
      if (buffer.length - offset < header + length) break;
      let payload = buffer.subarray(offset + header, offset + header + length);
      if (second & 0x80) {
        const mask = buffer.subarray(offset + header - 4, offset + header);
        payload = Buffer.from(payload);
        for (let i = 0; i < payload.length; i++) payload[i] ^= mask[i & 3];
      }
      offset += header + length;
      this.onFrame(first & 0x80, first & 0x40, first & 0x0f, payload);
    }
    // Keep only the unread tail (copied, so the big chunk it came from can be freed).
    this.buffered = offset === buffer.length ? Buffer.alloc(0) : offset ? Buffer.from(buffer.subarray(offset)) : buffer;
  }

  onFrame(fin, rsv1, opcode, payload) {
    if (opcode === 0x9) { // ping -> pong with the same payload
      if (this.readyState === OPEN) this.socket.write(clientFrame(0xa, payload));
      return;
    }
    if (opcode === 0xa) return;
    if (opcode === 0x8) { // close: answer once, then the server ends the TCP connection
      if (this.readyState === OPEN) this.socket.write(clientFrame(0x8, payload.subarray(0, 2)));
      this.readyState = CLOSING;
      this.socket.end();
      return;
    }
    if (opcode === 0x1 || opcode === 0x2) {
      this.fragments = { compressed: Boolean(rsv1) && this.deflate, parts: [payload] };
    } else if (opcode === 0x0 && this.fragments) {
      this.fragments.parts.push(payload);
    } else {
      return this.fail(new Error(`unexpected websocket opcode ${opcode}`));
    }
    if (!fin) return;
    const { compressed, parts } = this.fragments;
    this.fragments = null;
    const whole = parts.length === 1 ? parts[0] : Buffer.concat(parts);
    let message = whole;
    if (compressed) {
      try {
        message = inflateMessage(whole, this.history);
      } catch (err) {
        return this.fail(new Error(`permessage-deflate: ${err.message}`));
      }
      // Keep ~32 KB of output for a later message that refers back to it.
      this.history.push(message);
      this.historyBytes += message.length;
      while (this.history.length > 1 && this.historyBytes - this.history[0].length >= WINDOW_BYTES) this.historyBytes -= this.history.shift().length;
    }
    this.emit('message', message);
  }

  onSocketClose() {
    const wasOpen = this.readyState !== CLOSED;
    this.readyState = CLOSED;
    if (wasOpen) this.emit('close');
  }

  send(text) {
    if (this.readyState !== OPEN) throw new Error('websocket is not open');
    this.socket.write(clientFrame(0x1, Buffer.from(text)));
  }

  /** Close handshake (1000); the TCP connection is cut if the server has not ended it soon after. */
  close() {
    if (this.readyState === CONNECTING) return this.terminate();
    if (this.readyState !== OPEN) return;
    this.readyState = CLOSING;
    this.socket.write(clientFrame(0x8, Buffer.from([0x03, 0xe8])));
    this.socket.end();
    setTimeout(() => this.socket.destroy(), CLOSE_WAIT_MS).unref();
  }

  terminate() {
    if (this.readyState === CLOSED) return;
    this.socket.destroy();
  }
}

function openStormSocket(url, options) {
  return new StormSocket(url, options);
}

module.exports = { openStormSocket, inflateMessage, storedBlock, inflateCache, clientFrame, OPEN, CLOSED };
