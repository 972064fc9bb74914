'use strict';
/**
 * One memory account for the whole engine. Every structure that grows with input charges what
 * it adds and refunds what it frees, under a named part (`store`, `index`, `topology`, ...), so
 * that the store's budget bounds the engine, not just its packets: the store evicts its oldest
 * transmissions while the total is over budget, and each view frees its entries as their
 * counts return to zero.
 *
 * Figures are estimates of V8 heap bytes (calibrated by `npm run bench:core`, which compares
 * them with the heap measured after GC), cheap enough to keep on every update.
 */

// Approximate V8 costs, measured on Node 20 x64 with 200k of each after GC (heapUsed delta):
// Map entry with a Smi key 37, with a 13-character string key 81; an empty Map 190; an
// Int32Array(5) 230 and a Float64Array(17) 190 (typed arrays carry a large header); a
// 5-field object 74; a 4-character string 35. bench:core reports the account against the heap.
const BYTES = Object.freeze({
  mapEntry: 40, // one Map entry: its share of the hash table, key and value slots
  map: 190, // an empty Map (its object and initial table)
  typedArray: 180, // a typed array's header and its ArrayBuffer, before the elements
  string: 16, // string header; plus one byte per character (one-byte strings)
  heapNumber: 16, // a boxed double (hour starts, times)
  object: 24, // object header; plus 8 per in-object field
  field: 8,
  arraySlot: 8,
});

/** Heap bytes a Map key adds: strings are their own allocation, small integers are not. */
function keyBytes(key) {
  if (typeof key === 'string') return BYTES.string + key.length;
  if (typeof key === 'number') return Number.isInteger(key) && key <= 0x3fffffff && key >= -0x40000000 ? 0 : BYTES.heapNumber;
  return 0; // objects are charged where they are created
}

/** Bytes of a Map entry for `key` with a small value. */
function entryBytes(key) {
  return BYTES.mapEntry + keyBytes(key);
}

class MemoryAccount {
  constructor() {
    this.total = 0;
    this.parts = new Map(); // name -> part
  }

  /** The part `name` (created on first use): { bytes, add(delta) }. */
  part(name) {
    let part = this.parts.get(name);
    if (!part) {
      const account = this;
      part = {
        name,
        bytes: 0,
        add(delta) {
          this.bytes += delta;
          account.total += delta;
        },
      };
      this.parts.set(name, part);
    }
    return part;
  }

  /** { total, parts: { name: bytes } } for stats and the Perf page. */
  summary() {
    const parts = {};
    for (const [name, part] of this.parts) parts[name] = Math.round(part.bytes);
    return { total: Math.round(this.total), parts };
  }
}

/**
 * Count `key` up (delta +1) or down (-1) in a Map of counts, deleting at zero, charging the
 * entry to `part` when it is created and refunding it when it goes. Returns the new count.
 */
function countIn(map, key, delta, part) {
  const previous = map.get(key);
  if (previous === undefined) {
    if (delta === 0) return 0;
    map.set(key, delta);
    if (part) part.add(entryBytes(key));
    return delta;
  }
  const next = previous + delta;
  if (next === 0) {
    map.delete(key);
    if (part) part.add(-entryBytes(key));
  } else {
    map.set(key, next);
  }
  return next;
}

module.exports = { MemoryAccount, countIn, entryBytes, keyBytes, BYTES };
