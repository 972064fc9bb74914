'use strict';
/**
 * permessage-deflate that pays: a `zlib` stand-in for the permessage-deflate package (its
 * documented `zlib` option) that compresses each distinct message ONCE for every connection.
 *
 * Why: with 200 dashboards, every session deflated the same view document on its own (about 79%
 * of the server's time per delivered message). Here every message is deflated on its own
 * (no back-references to earlier messages: valid whatever context takeover was negotiated,
 * since a deflate stream may always choose not to reference its window), so identical
 * payloads give identical bytes, cached by content for the next session. Messages under
 * `thresholdBytes` (pings, `ready`, live-feed rows) go out as a stored (uncompressed) deflate
 * block: no zlib work at all, 6 bytes of framing, like Meteor 3.1.1's threshold.
 *
 * Output = what a zlib deflate ending in Z_SYNC_FLUSH emits (so permessage-deflate strips the
 * trailing 00 00 ff ff as usual). Inflate (client -> server) is zlib's own.
 * Pure Node; imports/api/ddp/shared-send.js hands it to Meteor's permessage-deflate.
 *
 * Which package: Meteor 3.0.x configures `permessage-deflate` (0.1.7); Meteor 3.1.1+ configures
 * `permessage-deflate2` (0.1.8, a fork that adds `threshold`, default 1024 in Meteor). Both read
 * the `zlib` option when a connection's session is created and drive createDeflateRaw / write /
 * flush(Z_SYNC_FLUSH, cb) / close the same way. permessage-deflate2 sends a message under its own
 * threshold as a plain frame before any zlib call, so this module then only sees messages at or
 * above that threshold (its `stored` path serves only when thresholdBytes is above the
 * package's). installInto(extension) checks all of that on the live extension before using it.
 */
const zlib = require('zlib');
const { EventEmitter } = require('events');

const SHARED_DEFLATE_DEFAULTS = {
  // Below this many bytes a message is sent as a stored block (not compressed): 1 KB as Meteor 3.1.1.
  thresholdBytes: 1024,
  // Compressed messages kept for reuse: a tick's shared messages and the groups' initial documents.
  cacheEntries: 512,
  cacheBytes: 32 * 1024 * 1024,
  // Used when the session asks for zlib's default level (-1): 6, what zlib itself means by it
  // (a level costs once per distinct message here, whatever the number of sessions).
  defaultLevel: 6,
  // A message seen for the first time through a session's own send (a method's answer, a
  // session's own document) is deflated at no more than this level: most such messages go to
  // that one session only, so nothing shares its level-6 cost (1.5-4x level 1's per view
  // document; benchmarks/README.md). When a second session sends the same bytes, it is shared: it
  // is deflated again, once, at the session's level, and every later session gets those bytes.
  // The publish hub's pre-framed messages (compress(..., true)) are shared from the start and get
  // the session's level at once. null: always the session's level.
  firstUseLevel: 1,
};

const MAX_STORED_BLOCK = 65535;
const SYNC_FLUSH_TAIL = Buffer.from([0x00, 0x00, 0x00, 0xff, 0xff]); // empty stored block

/** `data` as non-final stored deflate blocks followed by a sync flush. */
function storedBlocks(data) {
  const blocks = Math.max(1, Math.ceil(data.length / MAX_STORED_BLOCK));
  const out = Buffer.allocUnsafe(data.length + blocks * 5 + SYNC_FLUSH_TAIL.length);
  let at = 0;
  for (let i = 0; i < blocks; i++) {
    const part = data.subarray(i * MAX_STORED_BLOCK, Math.min(data.length, (i + 1) * MAX_STORED_BLOCK));
    out[at++] = 0x00; // BFINAL 0, BTYPE 00 (stored), then byte alignment
    out.writeUInt16LE(part.length, at); at += 2;
    out.writeUInt16LE(~part.length & 0xffff, at); at += 2;
    part.copy(out, at); at += part.length;
  }
  SYNC_FLUSH_TAIL.copy(out, at);
  return out;
}

const crc32 = typeof zlib.crc32 === 'function' ? zlib.crc32 : null;

function createSharedDeflate(options = {}) {
  const settings = { ...SHARED_DEFLATE_DEFAULTS, ...options };
  if (!(settings.thresholdBytes >= 0 && settings.thresholdBytes <= MAX_STORED_BLOCK)) {
    throw new RangeError(`thresholdBytes must be between 0 and ${MAX_STORED_BLOCK}, got ${settings.thresholdBytes}`);
  }
  if (settings.firstUseLevel !== null && !(Number.isInteger(settings.firstUseLevel) && settings.firstUseLevel >= 0 && settings.firstUseLevel <= 9)) {
    throw new RangeError(`firstUseLevel must be a zlib level from 0 to 9, or null (the session's level), got ${JSON.stringify(settings.firstUseLevel)}`);
  }
  const counters = { messages: 0, stored: 0, compressed: 0, compressedFirstUse: 0, promoted: 0, cacheHits: 0, bytesIn: 0, bytesOut: 0, cacheEvictions: 0 };
  const cache = new Map(); // params|length|crc -> { input, output, level it was deflated at }, oldest first
  let cacheBytes = 0;

  // One zlib call per distinct message (zlib's sync API closes its handle after each call).
  function deflateOnce(input, params) {
    return zlib.deflateRawSync(input, { windowBits: params.windowBits, level: params.level, memLevel: params.memLevel, strategy: params.strategy, finishFlush: zlib.constants.Z_SYNC_FLUSH });
  }

  function remember(key, input, output, level) {
    cache.set(key, { input, output, level });
    cacheBytes += input.length + output.length;
    while (cache.size > settings.cacheEntries || cacheBytes > settings.cacheBytes) {
      const [oldest, entry] = cache.entries().next().value;
      cache.delete(oldest);
      cacheBytes -= entry.input.length + entry.output.length;
      counters.cacheEvictions++;
    }
  }

  /**
   * One message's deflate output (ending in 00 00 ff ff). `shared`: the caller sends these bytes
   * to several sessions (shared-send.js's pre-framed messages): deflate at the session's level at
   * once, not at firstUseLevel.
   */
  function compress(input, params, shared = false) {
    counters.messages++;
    counters.bytesIn += input.length;
    let output;
    if (input.length < settings.thresholdBytes) {
      counters.stored++;
      output = storedBlocks(input);
    } else {
      const key = `${params.key}|${input.length}|${crc32 ? crc32(input) : input.toString('latin1')}`;
      const hit = cache.get(key);
      if (hit && hit.input.equals(input)) {
        counters.cacheHits++;
        if (hit.level < params.level) {
          // A second session sends it: shared after all. Every later session gets these bytes.
          counters.promoted++;
          const better = deflateOnce(input, params);
          cacheBytes += better.length - hit.output.length;
          hit.output = better;
          hit.level = params.level;
        }
        output = hit.output;
      } else {
        counters.compressed++;
        const firstUse = !shared && settings.firstUseLevel !== null && settings.firstUseLevel < params.level;
        if (firstUse) counters.compressedFirstUse++;
        const level = firstUse ? settings.firstUseLevel : params.level;
        output = deflateOnce(input, level === params.level ? params : { ...params, level });
        // Copy: the caller may reuse its buffer; the cache must keep what was compressed.
        remember(key, Buffer.from(input), output, level);
      }
    }
    counters.bytesOut += output.length;
    return output;
  }

  /** The stream permessage-deflate drives: write(data) then flush(flag, callback), per message. */
  class MessageDeflate extends EventEmitter {
    constructor(params) {
      super();
      this.sharedParams = params;
      this.chunks = [];
      // permessage-deflate calls flush(Z_SYNC_FLUSH, cb) when `params` exists (as on zlib streams).
      this.params = () => {};
    }

    write(data) {
      this.chunks.push(Buffer.isBuffer(data) ? data : Buffer.from(data));
      return true;
    }

    flush(flag, callback) {
      const done = typeof flag === 'function' ? flag : callback;
      const input = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
      this.chunks = [];
      let output;
      try {
        output = compress(input, this.sharedParams);
      } catch (err) {
        this.emit('error', err);
        return;
      }
      this.emit('data', output);
      if (done) done();
    }

    close() {
      this.chunks = [];
    }
  }

  /** The `zlib` option for permessage-deflate: shared deflate out, zlib's own inflate in. */
  /** The deflate parameters (and cache key) for permessage-deflate's createDeflateRaw options. */
  function paramsFor(opts = {}) {
    const level = opts.level === undefined || opts.level === zlib.constants.Z_DEFAULT_COMPRESSION ? settings.defaultLevel : opts.level;
    const windowBits = opts.windowBits || 15;
    const memLevel = opts.memLevel || zlib.constants.Z_DEFAULT_MEMLEVEL;
    const strategy = opts.strategy === undefined ? zlib.constants.Z_DEFAULT_STRATEGY : opts.strategy;
    return { level, windowBits, memLevel, strategy, key: `${level}/${windowBits}/${memLevel}/${strategy}` };
  }

  const zlibShim = {
    createDeflateRaw: (opts) => new MessageDeflate(paramsFor(opts)),
    createInflateRaw: (opts) => zlib.createInflateRaw(opts),
  };

  // What installInto() learnt about the extension it was handed (null until then).
  let extensionInfo = null;

  /**
   * Check `extension` (a configured permessage-deflate / permessage-deflate2) really drives this
   * zlib as expected, then make it use it for every session created from now on. Returns
   * { installed, reason, package, packageThresholdBytes }; on any surprise nothing is changed,
   * so connections keep the package's own per-session zlib streams.
   */
  function installInto(extension) {
    const probe = probeExtension(extension, settings);
    extensionInfo = { package: probe.package, packageThresholdBytes: probe.packageThresholdBytes };
    if (!probe.ok) return { installed: false, reason: probe.reason, ...extensionInfo };
    extension._options.zlib = zlibShim;
    return { installed: true, reason: null, ...extensionInfo };
  }

  function stats() {
    return { thresholdBytes: settings.thresholdBytes, defaultLevel: settings.defaultLevel, firstUseLevel: settings.firstUseLevel, ...(extensionInfo || {}), ...counters, cacheEntries: cache.size, cacheBytes, savedPct: counters.bytesIn ? Math.round((1 - counters.bytesOut / counters.bytesIn) * 1000) / 10 : null };
  }

  return { zlib: zlibShim, compress, paramsFor, stats, settings, installInto };
}

/**
 * Run one large and one small message through a copy of `extension` wired to a private shared
 * deflate, the way faye-websocket's driver does (createServerSession, generateResponse,
 * processOutgoingMessage), and check the shim was called and the frames decode. The live
 * extension is not touched. Returns { ok, reason, package, packageThresholdBytes }.
 */
function probeExtension(extension, settings = SHARED_DEFLATE_DEFAULTS) {
  const result = { ok: false, reason: null, package: null, packageThresholdBytes: null };
  if (!extension || extension.name !== 'permessage-deflate') { result.reason = 'not a permessage-deflate extension'; return result; }
  const options = extension._options;
  if (!options || typeof options !== 'object' || typeof extension.createServerSession !== 'function') {
    result.reason = 'permessage-deflate has no _options object or createServerSession';
    return result;
  }
  // Only permessage-deflate2 knows `threshold` (0.1.7's configure() throws on it).
  result.package = Object.prototype.hasOwnProperty.call(options, 'threshold') ? 'permessage-deflate2' : 'permessage-deflate';
  result.packageThresholdBytes = result.package === 'permessage-deflate2' ? Number(options.threshold) || 0 : 0;
  try {
    const probe = createSharedDeflate({ ...settings, cacheEntries: 1 });
    const copy = Object.create(extension, { _options: { value: { ...options, zlib: probe.zlib } } });
    const session = copy.createServerSession([{}]);
    if (!session || typeof session.processOutgoingMessage !== 'function') throw new Error('createServerSession returned no session');
    if (typeof session.generateResponse === 'function') session.generateResponse();
    const send = (data) => {
      let out = null;
      // The shim answers synchronously, so the package's callback runs before this returns.
      session.processOutgoingMessage({ rsv1: false, rsv2: false, rsv3: false, opcode: 1, data }, (err, message) => { out = err || message; });
      if (out instanceof Error) throw out;
      if (!out) throw new Error('processOutgoingMessage did not answer synchronously');
      return out.rsv1 ? zlib.inflateRawSync(Buffer.concat([out.data, SYNC_FLUSH_TAIL.subarray(1)]), { finishFlush: zlib.constants.Z_SYNC_FLUSH }) : out.data;
    };
    const large = Buffer.from(JSON.stringify({ msg: 'changed', fields: { rows: Array.from({ length: 80 }, (_, i) => ({ node: `probe-${i}`, snr: i % 13 })) } }));
    const largeEcho = send(Buffer.from(large));
    if (!largeEcho.equals(large)) throw new Error('a large message did not come back as sent');
    if (probe.stats().messages !== 1) throw new Error(`the package did not use the zlib option (${probe.stats().messages} shim calls for one large message)`);
    if (result.packageThresholdBytes > 0) {
      const small = Buffer.from('{"msg":"ping"}');
      if (!send(Buffer.from(small)).equals(small) || probe.stats().messages !== 1) throw new Error('a message under the package threshold reached zlib');
    }
    if (typeof session.close === 'function') session.close();
  } catch (err) {
    result.reason = `${result.package} did not drive the shared deflate as expected: ${err.message}`;
    return result;
  }
  result.ok = true;
  return result;
}

module.exports = { createSharedDeflate, probeExtension, storedBlocks, SHARED_DEFLATE_DEFAULTS };
