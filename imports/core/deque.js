'use strict';
/**
 * An array-backed deque of transmissions kept in store order (ascending `seq`).
 *
 * Every index of the packet store is one of these. Because the store evicts strictly
 * oldest-first, an evicted transmission is always at the front of every deque it is in,
 * so eviction is O(1) per index and symmetric with insertion (tested).
 */
class SeqDeque {
  constructor() {
    this.items = [];
    this.head = 0;
  }

  get length() {
    return this.items.length - this.head;
  }

  /** Insert keeping seq order; observations of older transmissions arrive slightly late, so scan from the back. */
  insert(tx) {
    const items = this.items;
    let at = items.length;
    while (at > this.head && items[at - 1].seq > tx.seq) at--;
    if (at > this.head && items[at - 1] === tx) return false; // already indexed
    if (at === items.length) items.push(tx);
    else items.splice(at, 0, tx);
    return true;
  }

  /** Remove `tx` if it is the oldest entry; returns whether it was. */
  removeOldest(tx) {
    if (this.head < this.items.length && this.items[this.head] === tx) {
      this.items[this.head] = undefined;
      this.head++;
      // Compact once the dead prefix is half the array, so memory stays proportional to length.
      if (this.head > 1024 && this.head * 2 > this.items.length) {
        this.items = this.items.slice(this.head);
        this.head = 0;
      }
      return true;
    }
    return false;
  }

  first() {
    return this.head < this.items.length ? this.items[this.head] : undefined;
  }

  last() {
    return this.head < this.items.length ? this.items[this.items.length - 1] : undefined;
  }

  at(index) {
    return this.items[this.head + index];
  }

  /** Newest first, stopping when `visit` returns false. */
  forEachNewest(visit) {
    for (let i = this.items.length - 1; i >= this.head; i--) {
      if (visit(this.items[i]) === false) return;
    }
  }

  /** Oldest first, stopping when `visit` returns false. */
  forEachOldest(visit) {
    for (let i = this.head; i < this.items.length; i++) {
      if (visit(this.items[i]) === false) return;
    }
  }

  /** Index of the first entry with `time >= t` (entries are time-ordered because seq is). */
  lowerBoundTime(t) {
    let lo = this.head;
    let hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.items[mid].time < t) lo = mid + 1;
      else hi = mid;
    }
    return lo - this.head;
  }

  toArray() {
    return this.items.slice(this.head);
  }
}

/**
 * An index deque: the same interface as SeqDeque, but it keeps each transmission's seq as a
 * 4-byte integer in an Int32Array (offset from `base`) instead of an 8-byte pointer, and finds
 * the transmission through the store's FIFO. That works because seqs in the FIFO are contiguous
 * (every new transmission takes the next seq and eviction is strictly oldest-first), so the
 * transmission of seq s sits at FIFO position s - (first seq). Half the bytes per index entry,
 * and no pointers for the garbage collector to trace.
 *
 * The buffer is linear: entries are appended at `tail`, eviction advances `head`; a full buffer
 * is compacted in place, or reallocated at twice (or half) the live size, which also rebases
 * the offsets.
 */
const INITIAL_CAPACITY = 4;
const MAX_OFFSET = 0x3fffffff;

class SeqIndex {
  /** `fifo`: the store's SeqDeque of every stored transmission. */
  constructor(fifo) {
    this.fifo = fifo;
    this.offsets = new Int32Array(INITIAL_CAPACITY);
    this.head = 0;
    this.tail = 0;
    this.base = 0;
  }

  get length() {
    return this.tail - this.head;
  }

  /** The stored transmission of `seq` (seqs in the FIFO are contiguous). */
  resolve(seq) {
    const fifo = this.fifo;
    const items = fifo.items;
    return items[fifo.head + (seq - items[fifo.head].seq)];
  }

  seqAt(position) {
    return this.base + this.offsets[position];
  }

  /** Insert keeping seq order; observations of older transmissions arrive slightly late, so scan from the back. */
  insert(tx) {
    const seq = tx.seq;
    if (this.head === this.tail) {
      this.head = 0;
      this.tail = 0;
      this.base = seq;
    } else if (seq - this.base > MAX_OFFSET || seq < this.base) {
      this.reallocate(this.offsets.length, seq);
    }
    if (this.tail === this.offsets.length) this.makeRoom();
    const offsets = this.offsets;
    const offset = seq - this.base;
    let at = this.tail;
    while (at > this.head && offsets[at - 1] > offset) at--;
    if (at > this.head && offsets[at - 1] === offset) return false; // already indexed
    if (at < this.tail) offsets.copyWithin(at + 1, at, this.tail);
    offsets[at] = offset;
    this.tail++;
    return true;
  }

  /** Before an append into a full buffer: compact, grow or shrink so there is room. */
  makeRoom() {
    const live = this.tail - this.head;
    const capacity = this.offsets.length;
    if (live * 4 <= capacity && capacity > INITIAL_CAPACITY) this.reallocate(Math.max(INITIAL_CAPACITY, capacity >> 1), this.seqAt(this.head));
    else if (live * 2 <= capacity) {
      this.offsets.copyWithin(0, this.head, this.tail);
      this.head = 0;
      this.tail = live;
    } else this.reallocate(capacity * 2, this.seqAt(this.head));
  }

  /** Copy the live entries into a buffer of `capacity`, offsets rebased to min(first live seq, `seq`). */
  reallocate(capacity, seq) {
    const base = this.head < this.tail ? Math.min(this.seqAt(this.head), seq) : seq;
    const live = this.tail - this.head;
    const next = new Int32Array(Math.max(capacity, live + 1));
    const shift = this.base - base;
    for (let i = 0; i < live; i++) next[i] = this.offsets[this.head + i] + shift;
    this.offsets = next;
    this.base = base;
    this.head = 0;
    this.tail = live;
  }

  /** Remove `tx` if it is the oldest entry; returns whether it was. */
  removeOldest(tx) {
    if (this.head < this.tail && this.seqAt(this.head) === tx.seq) {
      this.head++;
      if (this.head === this.tail) {
        this.head = 0;
        this.tail = 0;
        // An emptied big buffer goes back to the initial size (its key usually goes too).
        if (this.offsets.length > INITIAL_CAPACITY * 4) this.offsets = new Int32Array(INITIAL_CAPACITY);
      }
      return true;
    }
    return false;
  }

  first() {
    return this.head < this.tail ? this.resolve(this.seqAt(this.head)) : undefined;
  }

  last() {
    return this.head < this.tail ? this.resolve(this.seqAt(this.tail - 1)) : undefined;
  }

  at(index) {
    const position = this.head + index;
    return index >= 0 && position < this.tail ? this.resolve(this.seqAt(position)) : undefined;
  }

  /** Newest first, stopping when `visit` returns false. */
  forEachNewest(visit) {
    for (let i = this.tail - 1; i >= this.head; i--) {
      if (visit(this.resolve(this.seqAt(i))) === false) return;
    }
  }

  /** Oldest first, stopping when `visit` returns false. */
  forEachOldest(visit) {
    for (let i = this.head; i < this.tail; i++) {
      if (visit(this.resolve(this.seqAt(i))) === false) return;
    }
  }

  /** Index of the first entry with `time >= t` (entries are time-ordered because seq is). */
  lowerBoundTime(t) {
    let lo = this.head;
    let hi = this.tail;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.resolve(this.seqAt(mid)).time < t) lo = mid + 1;
      else hi = mid;
    }
    return lo - this.head;
  }

  toArray() {
    const out = new Array(this.tail - this.head);
    for (let i = this.head; i < this.tail; i++) out[i - this.head] = this.resolve(this.seqAt(i));
    return out;
  }
}

/**
 * Visit the union of several deques newest first, each transmission once (a k-way merge by
 * seq from the back), stopping when `visit` returns false. O(visited x deques), no copies:
 * what a "newest 50 packets of this node" query needs.
 */
function forEachNewestMerged(deques, visit) {
  const cursors = deques.map((deque) => deque.length - 1);
  for (;;) {
    let next = null;
    for (let d = 0; d < deques.length; d++) {
      if (cursors[d] < 0) continue;
      const tx = deques[d].at(cursors[d]);
      if (next === null || tx.seq > next.seq) next = tx;
    }
    if (next === null) return;
    for (let d = 0; d < deques.length; d++) {
      if (cursors[d] >= 0 && deques[d].at(cursors[d]) === next) cursors[d]--;
    }
    if (visit(next) === false) return;
  }
}

module.exports = { SeqDeque, SeqIndex, forEachNewestMerged };
