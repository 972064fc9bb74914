'use strict';
/**
 * Shares one array among every stored packet that carries the same hop list. A mesh repeats
 * its routes: 200k reports of the default simulated mesh carry 1,620 distinct paths, so without
 * this each transmission kept its own ~70-byte copy. Hop strings are already interned by
 * decode.js; this interns the arrays.
 *
 * Reference-counted by the store: intern() (or retain() for an array already interned) when a
 * stored observation takes a path, release() when it leaves. A path is remembered, and charged,
 * while at least one stored observation carries it, so what is charged is a function of the
 * stored packets alone, not of the order or the time they arrived: a reload that replays the
 * same packets along another eviction path charges the same bytes, and evicts down to the same
 * window. It needs no cap of its own: it never holds more paths than stored observations.
 * Keys are a 32-bit hash of the hops; a path whose hash is taken by another path is not shared
 * and is charged per observation carrying it (which of the two is shared depends on which came
 * first: the one exception to "a function of the stored packets", and a rare one, as a store
 * holds a few thousand distinct paths).
 */
const { BYTES } = require('./memory-account');

// A remembered path: its Map entry, its { path, refs } record and the array's headers; each hop
// adds `hopBytes`. (An unshared copy after a hash collision is charged the same.)
const ENTRY_BYTES = BYTES.mapEntry + BYTES.object + 2 * BYTES.field + 2 * BYTES.object;

function hashOfHops(path) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < path.length; i++) {
    const hop = path[i];
    for (let c = 0; c < hop.length; c++) hash = Math.imul(hash ^ hop.charCodeAt(c), 16777619);
    hash = Math.imul(hash ^ 0x2c, 16777619); // separator: ['ab','c'] and ['a','bc'] differ
  }
  return hash | 0;
}

function samePath(a, b) {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

class PathInterner {
  /** `part`: the memory-account part charged for remembered paths (optional). */
  constructor({ part = null, hopBytes = BYTES.arraySlot } = {}) {
    this.part = part;
    this.hopBytes = hopBytes;
    this.entries = new Map(); // hash -> { path, refs }
    this.bytes = 0;
  }

  pathBytes(path) {
    return ENTRY_BYTES + path.length * this.hopBytes;
  }

  charge(bytes) {
    this.bytes += bytes;
    if (this.part) this.part.add(bytes);
  }

  /**
   * The shared array equal to `path` (remembering `path` itself when it is new); one reference
   * taken. `hash`: hashOfHops(path) when the caller has it (decode's path memo), else computed.
   */
  intern(path, hash = null) {
    if (path.length === 0) return path;
    const key = typeof hash === 'number' ? hash : hashOfHops(path);
    const entry = this.entries.get(key);
    if (entry === undefined) {
      this.entries.set(key, { path, refs: 1 });
      this.charge(this.pathBytes(path));
      return path;
    }
    if (samePath(entry.path, path)) {
      entry.refs++;
      return entry.path;
    }
    this.charge(this.pathBytes(path)); // a hash collision: this copy is not shared
    return path;
  }

  /** One more reference to `path`, an array intern() returned (`hash`: as for intern). */
  retain(path, hash = null) {
    if (path.length === 0) return path;
    const entry = this.entries.get(typeof hash === 'number' ? hash : hashOfHops(path));
    if (entry !== undefined && entry.path === path) entry.refs++;
    else this.charge(this.pathBytes(path));
    return path;
  }

  /** A stored observation carrying `path` (an array intern() or retain() returned) left. */
  release(path) {
    if (path.length === 0) return;
    const key = hashOfHops(path);
    const entry = this.entries.get(key);
    if (entry !== undefined && entry.path === path) {
      if (--entry.refs > 0) return;
      this.entries.delete(key);
    }
    this.charge(-this.pathBytes(path));
  }

  /** Forget every path. */
  clear() {
    this.charge(-this.bytes);
    this.entries = new Map();
  }

  get size() {
    return this.entries.size;
  }
}

module.exports = { PathInterner, samePath, hashOfHops };
