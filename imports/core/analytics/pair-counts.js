'use strict';
/**
 * Sums keyed by a pair of small integers (owner, item), in typed arrays: one open-addressing
 * hash table for the whole collection instead of one Map per owner. On a large mesh the node
 * aggregates held a Map of observers and a Map of peers per key and day; looking one up per key
 * of every report missed the cache several times (the Map object, its table, its entry) and the
 * Maps themselves were millions of small heap objects for the GC. Here a lookup is a probe of
 * one Int32Array and a read of two columns.
 *
 * An owner's entries are kept in a doubly linked list through the entries, so an owner's items
 * can be listed without a pass over the table; the caller keeps each owner's list head (see
 * `head`), passing an object with a numeric `head` field (-1: empty).
 *
 * Entries are exact sums: count, and `width - 1` more values. An entry is freed (and its bytes
 * refunded to `part`) when its count returns to zero, so what is charged is a function of the
 * live entries alone. The arrays keep their capacity after a burst (charged while their entries
 * lived) and are reset when the collection empties.
 */
const { BYTES } = require('../memory-account');

const EMPTY = 0; // index slot value for "no entry" (entries are stored as id + 1)

class PairCounts {
  /** `width`: values per entry, the first being the count; `part`: memory-account part (or null). */
  constructor(width, part = null) {
    this.width = width;
    this.part = part;
    // Per entry: its owner and item ids, an owner's list links, and `width` values. The index
    // is kept at most half full: 8 bytes of it per entry.
    this.entryBytes = 4 * 4 + width * 8 + 8 + BYTES.field;
    this.size = 0;
    this.reset(64);
  }

  reset(capacity) {
    this.capacity = capacity;
    this.owners = new Int32Array(capacity);
    this.items = new Int32Array(capacity);
    this.next = new Int32Array(capacity);
    this.previous = new Int32Array(capacity);
    this.values = new Float64Array(capacity * this.width);
    this.freeHead = -1;
    this.used = 0; // entries ever handed out since the last reset (ids below it)
    this.index = new Int32Array(capacity * 2);
    this.mask = capacity * 2 - 1;
  }

  static slotOf(owner, item, mask) {
    return (Math.imul(owner, 0x9e3779b1) ^ Math.imul(item + 0x7f4a7c15, 0x85ebca77)) >>> 7 & mask;
  }

  /** The entry of (owner, item), or -1. */
  find(owner, item) {
    const index = this.index;
    const mask = this.mask;
    let slot = PairCounts.slotOf(owner, item, mask);
    for (;;) {
      const stored = index[slot];
      if (stored === EMPTY) return -1;
      const entry = stored - 1;
      if (this.owners[entry] === owner && this.items[entry] === item) return entry;
      slot = (slot + 1) & mask;
    }
  }

  /**
   * The entry of (owner, item), created (values zero, linked first in `list`, charged) when
   * missing. `list`: the owner's holder of `head`.
   */
  entry(owner, item, list) {
    const index = this.index;
    const mask = this.mask;
    let slot = PairCounts.slotOf(owner, item, mask);
    for (;;) {
      const stored = index[slot];
      if (stored === EMPTY) break;
      const entry = stored - 1;
      if (this.owners[entry] === owner && this.items[entry] === item) return entry;
      slot = (slot + 1) & mask;
    }
    if (this.size + 1 > this.capacity) {
      this.grow();
      return this.entry(owner, item, list);
    }
    let entry;
    if (this.freeHead >= 0) {
      entry = this.freeHead;
      this.freeHead = this.next[entry];
    } else {
      entry = this.used++;
    }
    this.owners[entry] = owner;
    this.items[entry] = item;
    const base = entry * this.width;
    for (let v = 0; v < this.width; v++) this.values[base + v] = 0;
    this.previous[entry] = -1;
    this.next[entry] = list.head;
    if (list.head >= 0) this.previous[list.head] = entry;
    list.head = entry;
    index[slot] = entry + 1;
    this.size++;
    if (this.part !== null) this.part.add(this.entryBytes);
    return entry;
  }

  /** Free an entry (its count went to zero): unlink it from `list`, drop it from the index. */
  remove(entry, list) {
    const previous = this.previous[entry];
    const next = this.next[entry];
    if (previous >= 0) this.next[previous] = next;
    else list.head = next;
    if (next >= 0) this.previous[next] = previous;
    this.unindex(entry);
    this.next[entry] = this.freeHead;
    this.freeHead = entry;
    this.size--;
    if (this.part !== null) this.part.add(-this.entryBytes);
    if (this.size === 0 && this.capacity > 64) this.reset(64);
  }

  /** Delete an entry's index slot, shifting later slots of its probe run back (no tombstones). */
  unindex(entry) {
    const index = this.index;
    const mask = this.mask;
    let hole = PairCounts.slotOf(this.owners[entry], this.items[entry], mask);
    while (index[hole] !== entry + 1) hole = (hole + 1) & mask;
    let slot = hole;
    for (;;) {
      slot = (slot + 1) & mask;
      const stored = index[slot];
      if (stored === EMPTY) break;
      const home = PairCounts.slotOf(this.owners[stored - 1], this.items[stored - 1], mask);
      // Move it into the hole unless its home lies cyclically in (hole, slot].
      const inRun = hole <= slot ? home > hole && home <= slot : home > hole || home <= slot;
      if (!inRun) {
        index[hole] = stored;
        hole = slot;
      }
    }
    index[hole] = EMPTY;
  }

  grow() {
    const old = this;
    const capacity = this.capacity * 2;
    const owners = new Int32Array(capacity);
    owners.set(old.owners);
    const items = new Int32Array(capacity);
    items.set(old.items);
    const next = new Int32Array(capacity);
    next.set(old.next);
    const previous = new Int32Array(capacity);
    previous.set(old.previous);
    const values = new Float64Array(capacity * this.width);
    values.set(old.values);
    const index = new Int32Array(capacity * 2);
    const mask = capacity * 2 - 1;
    // Re-index the live entries (those present in the old index).
    const oldIndex = this.index;
    for (let s = 0; s < oldIndex.length; s++) {
      const stored = oldIndex[s];
      if (stored === EMPTY) continue;
      let slot = PairCounts.slotOf(owners[stored - 1], items[stored - 1], mask);
      while (index[slot] !== EMPTY) slot = (slot + 1) & mask;
      index[slot] = stored;
    }
    this.capacity = capacity;
    this.owners = owners;
    this.items = items;
    this.next = next;
    this.previous = previous;
    this.values = values;
    this.index = index;
    this.mask = mask;
  }

  /** Visit an owner's entries (most recently created first): visit(entry, item). */
  forEachOf(list, visit) {
    for (let entry = list.head; entry >= 0; entry = this.next[entry]) visit(entry, this.items[entry]);
  }
}

module.exports = { PairCounts };
