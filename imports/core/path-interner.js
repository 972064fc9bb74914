'use strict';
/**
 * Shares one array among every stored packet that carries the same hop list. A mesh repeats
 * its routes: 200k reports of the default simulated mesh carry 1,620 distinct paths, so without
 * this each transmission kept its own ~70-byte copy. Hop strings are already interned by
 * decode.js; this interns the arrays.
 *
 * Bounded by two generations of `capacity` entries each: when the current generation fills, it
 * becomes the previous one and the older one is dropped (paths still used by stored packets stay
 * alive through them; only future sharing is lost). A hit in the previous generation moves the
 * path forward, so routes in use survive the turnover. Keys are a 32-bit hash of the hops; on a
 * collision the newer path is simply not shared.
 */
const { BYTES } = require('./memory-account');

// A remembered path: its Map entry plus the array's headers; each hop adds `hopBytes`.
const ENTRY_BYTES = BYTES.mapEntry + 2 * BYTES.object;
// Largest remembered paths per generation: a path of a few hops costs about 150 bytes here.
const PATH_ENTRY_TYPICAL_BYTES = 150;

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
  constructor({ capacity = 65536, part = null, hopBytes = BYTES.arraySlot } = {}) {
    this.capacity = Math.max(16, capacity);
    this.part = part;
    this.hopBytes = hopBytes;
    this.current = new Map();
    this.previous = new Map();
    this.currentBytes = 0;
    this.previousBytes = 0;
  }

  /** The shared array equal to `path` (remembering `path` itself when it is new). */
  intern(path) {
    if (path.length === 0) return path;
    const key = hashOfHops(path);
    const known = this.current.get(key);
    if (known !== undefined) return samePath(known, path) ? known : path;
    const older = this.previous.get(key);
    if (older !== undefined && samePath(older, path)) {
      this.remember(key, older);
      return older;
    }
    this.remember(key, path);
    return path;
  }

  remember(key, path) {
    if (this.current.size >= this.capacity) {
      if (this.part) this.part.add(-this.previousBytes);
      this.previous = this.current;
      this.previousBytes = this.currentBytes;
      this.current = new Map();
      this.currentBytes = 0;
    }
    this.current.set(key, path);
    const bytes = ENTRY_BYTES + path.length * this.hopBytes;
    this.currentBytes += bytes;
    if (this.part) this.part.add(bytes);
  }

  /** Forget every path (the store calls this when its last packet leaves). */
  clear() {
    if (this.part) this.part.add(-(this.currentBytes + this.previousBytes));
    this.current = new Map();
    this.previous = new Map();
    this.currentBytes = 0;
    this.previousBytes = 0;
  }

  get size() {
    return this.current.size + this.previous.size;
  }
}

/** Paths per generation for a store budget: both generations together stay within 1/16 of it. */
function internerCapacityFor(memoryBudgetBytes) {
  return Math.min(65536, Math.floor(memoryBudgetBytes / 16 / 2 / PATH_ENTRY_TYPICAL_BYTES));
}

module.exports = { PathInterner, samePath, hashOfHops, internerCapacityFor };
