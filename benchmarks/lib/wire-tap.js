'use strict';
/**
 * Bytes on the wire, per message, seen from a `ws` client: taps the TCP socket under a
 * WebSocket, parses the server's frame headers (unmasked, RFC 6455 §5.2) and pairs each data
 * message with its `message` event, so every DDP message gets:
 *   payload   bytes after decompression (what JSON.parse sees)
 *   wire      bytes of its frames on the socket, headers included
 *   deflated  whether its first frame had RSV1 set (permessage-deflate compressed it)
 *
 *   const tap = tapWebSocket(ws, (m) => stats.add(m));   // after 'open'
 */

/** Accumulates tapped messages into small (< thresholdBytes of payload) and large buckets. */
function createWireStats(thresholdBytes = 1024) {
  const empty = () => ({ messages: 0, payload_bytes: 0, wire_bytes: 0, deflated: 0 });
  const buckets = { small: empty(), large: empty() };
  return {
    thresholdBytes,
    add({ payload, wire, deflated }) {
      const bucket = payload < thresholdBytes ? buckets.small : buckets.large;
      bucket.messages++;
      bucket.payload_bytes += payload;
      bucket.wire_bytes += wire;
      if (deflated) bucket.deflated++;
    },
    merge(other) {
      for (const name of Object.keys(buckets)) for (const key of Object.keys(buckets[name])) buckets[name][key] += other[name][key];
    },
    snapshot: () => JSON.parse(JSON.stringify(buckets)),
  };
}

function tapWebSocket(ws, onMessage) {
  const socket = ws._socket;
  if (!socket) throw new Error('tapWebSocket: call it after the socket is open');
  let buffer = Buffer.alloc(0);
  // Data messages whose frames are complete, waiting for their `message` event (same order).
  const complete = [];
  let current = null; // the message being assembled from continuation frames
  // First in line: ws parses (and emits uncompressed messages) synchronously in its own
  // 'data' listener, so ours must have seen the frame before that message event fires.
  socket.prependListener('data', (chunk) => {
    buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
    for (;;) {
      if (buffer.length < 2) break;
      const first = buffer[0];
      const second = buffer[1];
      let length = second & 0x7f;
      let header = 2;
      if (length === 126) {
        if (buffer.length < 4) break;
        length = buffer.readUInt16BE(2);
        header = 4;
      } else if (length === 127) {
        if (buffer.length < 10) break;
        length = Number(buffer.readBigUInt64BE(2));
        header = 10;
      }
      if (second & 0x80) header += 4; // masked (never from a server, but be exact)
      if (buffer.length < header + length) break;
      const opcode = first & 0x0f;
      const fin = (first & 0x80) !== 0;
      if (opcode < 8) {
        // 1 text, 2 binary start a message; 0 continues it. Control frames (8+) are not messages.
        if (opcode !== 0 || !current) current = { wire: 0, deflated: (first & 0x40) !== 0 };
        current.wire += header + length;
        if (fin) { complete.push(current); current = null; }
      }
      buffer = buffer.subarray(header + length);
    }
  });
  ws.on('message', (data) => {
    const frames = complete.shift();
    if (!frames) return; // tapped mid-message: nothing to pair with
    onMessage({ payload: data.length, wire: frames.wire, deflated: frames.deflated });
  });
}

module.exports = { tapWebSocket, createWireStats };
