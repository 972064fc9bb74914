'use strict';
/**
 * The store's content-hash lookup (hash -> stored transmission) as an open-addressing table of
 * 4-byte seq offsets instead of a Map: a Map entry with its share of the table cost ~37 heap
 * bytes per transmission (heap snapshot, default mesh), this about 9. The transmission itself is
 * found through the FIFO (seqs there are contiguous, see SeqIndex in deque.js) and its `hash`
 * compared, so a 32-bit slot key collision only costs a probe.
 *
 * Linear probing with backward-shift deletion (no tombstones); load kept between 1/8 and 5/8.
 * Reads like the Map it replaces: get, has, size, values(), keys(), iteration (oldest first).
 */
const { hexInt32 } = require('./stored-records');

const MIN_CAPACITY = 1024;
// A slot holds the transmission's seq offset (seq - base + 1) in its low `offsetBits` and, above,
// a tag: the low bits of the hash's second half (independent of the slot, picked by the first).
// A probe compares the tag before it resolves the transmission: a miss (every new transmission)
// used to resolve each entry of its probe run, two dependent reads into the FIFO and the record,
// and the lookup was 3% of default-mesh ingest; with a 7-bit tag one entry in 128 is resolved in vain.
// Offsets get 24 bits (the base moves forward at a rehash once the newest seq outgrows them,
// every 16M transmissions); a store spanning more seqs than that takes bits from the tag.
const MIN_OFFSET_BITS = 24;
const SLOT_BITS = 31; // slots stay non-negative

class HashIndex {
  /**
   * `fifo`: the store's SeqDeque of every stored transmission. `minOffsetBits` (tests) makes
   * the offsets narrow, so that rebasing and wider offsets happen within a few transmissions.
   */
  constructor(fifo, { minOffsetBits = MIN_OFFSET_BITS } = {}) {
    this.minOffsetBits = minOffsetBits;
    this.fifo = fifo;
    this.slots = new Int32Array(MIN_CAPACITY); // 0 = empty, else (seq - base + 1) | tag << offsetBits
    this.base = 0;
    this.setOffsetBits(minOffsetBits);
    this.size = 0;
    // The store looks each report's hash up twice (decode's isKnown, then insertDecoded) with
    // the same string: the last answer is kept until the table changes.
    this.lastHash = null;
    this.lastAnswer = undefined;
  }

  setOffsetBits(bits) {
    this.offsetBits = bits;
    this.offsetMask = bits >= SLOT_BITS ? 0x7fffffff : 2 ** bits - 1;
    this.tagMask = bits >= SLOT_BITS ? 0 : 2 ** (SLOT_BITS - bits) - 1;
  }

  /** The slot value of `tx` under the current base and offset bits. */
  slotOf(tx) {
    return (tx.seq - this.base + 1) | ((tx.hashLow & this.tagMask) << this.offsetBits);
  }

  /** The transmission a slot value names. */
  resolve(entry) {
    const fifo = this.fifo;
    const items = fifo.items;
    return items[fifo.head + (this.base + (entry & this.offsetMask) - 1 - items[fifo.head].seq)];
  }

  /** The transmission with content hash `hash` (16 lower-case hex digits), or undefined. */
  get(hash) {
    if (hash === this.lastHash) return this.lastAnswer;
    const answer = this.find(hash);
    this.lastHash = hash;
    this.lastAnswer = answer;
    return answer;
  }

  find(hash) {
    if (this.size === 0 || typeof hash !== 'string' || hash.length !== 16) return undefined;
    const high = hexInt32(hash, 0);
    const low = hexInt32(hash, 8);
    if (high === null || low === null) return undefined;
    const slots = this.slots;
    const mask = slots.length - 1;
    const bits = this.offsetBits;
    const tag = low & this.tagMask;
    // The high half is SHA-256 bits: uniform enough to pick the slot.
    for (let i = high & mask; ; i = (i + 1) & mask) {
      const entry = slots[i];
      if (entry === 0) return undefined;
      if (entry >>> bits !== tag) continue;
      const tx = this.resolve(entry);
      if (tx.hashHigh === high && tx.hashLow === low) return tx;
    }
  }

  has(hash) {
    return this.get(hash) !== undefined;
  }

  /** Index `tx` (newest in the FIFO, not yet indexed) under its own content hash (`hash`, unread). */
  set(hash, tx) {
    if ((this.size + 1) * 8 > this.slots.length * 5 || tx.seq - this.base + 1 > this.offsetMask) this.rehash(this.size + 1, tx);
    this.place(tx);
    this.size++;
    this.lastHash = null;
    return this;
  }

  place(tx) {
    const slots = this.slots;
    const mask = slots.length - 1;
    let i = tx.hashHigh & mask;
    while (slots[i] !== 0) i = (i + 1) & mask;
    slots[i] = this.slotOf(tx);
  }

  /** Remove `tx` (still in the FIFO: the store deletes here before the FIFO lets it go). */
  deleteTransmission(tx) {
    const slots = this.slots;
    const mask = slots.length - 1;
    const wanted = this.slotOf(tx);
    let i = tx.hashHigh & mask;
    for (;;) {
      const entry = slots[i];
      if (entry === 0) return false;
      if (entry === wanted) break;
      i = (i + 1) & mask;
    }
    // Backward shift: move later entries of the probe run into the hole when their home allows.
    let hole = i;
    for (let j = (i + 1) & mask; slots[j] !== 0; j = (j + 1) & mask) {
      const home = this.resolve(slots[j]).hashHigh & mask;
      const homeBeforeHole = hole <= j ? home <= hole || home > j : home <= hole && home > j;
      if (homeBeforeHole) {
        slots[hole] = slots[j];
        hole = j;
      }
    }
    slots[hole] = 0;
    this.size--;
    this.lastHash = null;
    if (this.size * 8 < slots.length && slots.length > MIN_CAPACITY) this.rehash(this.size);
    return true;
  }

  delete(hash) {
    const tx = this.get(hash);
    return tx !== undefined && this.deleteTransmission(tx);
  }

  /**
   * Rebuild for `count` entries (load about 1/4 .. 5/8), offsets rebased on the oldest stored seq
   * and sized for twice the span up to `newest` (the transmission about to be placed, when any).
   */
  rehash(count, newest = null) {
    const old = this.slots;
    const oldBase = this.base;
    let capacity = MIN_CAPACITY;
    while (capacity * 5 < count * 8 * 2) capacity *= 2;
    const live = [];
    for (let i = 0; i < old.length; i++) if (old[i] !== 0) live.push(this.resolve(old[i]));
    this.slots = new Int32Array(capacity);
    const first = this.fifo.first();
    this.base = first ? first.seq : oldBase;
    const last = newest !== null ? newest : this.fifo.last();
    const span = last ? last.seq - this.base + 1 : 0;
    let bits = this.minOffsetBits;
    while (bits < SLOT_BITS && 2 ** bits - 1 < 2 * span) bits++;
    this.setOffsetBits(bits);
    for (const tx of live) this.place(tx);
  }

  clear() {
    this.slots = new Int32Array(MIN_CAPACITY);
    this.size = 0;
    this.lastHash = null;
  }

  /** Stored transmissions, oldest first (a Map's insertion order). */
  * values() {
    yield* this.fifo.toArray();
  }

  * keys() {
    for (const tx of this.values()) yield tx.hash;
  }

  * entries() {
    for (const tx of this.values()) yield [tx.hash, tx];
  }

  [Symbol.iterator]() {
    return this.entries();
  }
}

module.exports = { HashIndex };
