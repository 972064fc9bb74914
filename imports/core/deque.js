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

module.exports = { SeqDeque, forEachNewestMerged };
