'use strict';

const { keepBest } = require('./aggregates');
/**
 * The busiest entries of a counted collection, kept so that a snapshot's "top N" costs about
 * its own size rather than a pass over every entry (a large mesh has hundreds of thousands of
 * subpaths and links; the top list is 20 to 500 of them).
 *
 * Entries are the view's own objects with a numeric count (read through `countOf`); the tracker
 * only adds a `ranked` flag to them. It keeps a ranked set (every entry that ranked within the
 * best `capacity` at the last full pass) and `outsideMax`, an upper bound on the count of every
 * other entry: exact at the full pass, raised when an outside entry's count goes above it
 * (the view calls raised() after every increment: one property test). Counts going down need
 * nothing: a bound stays a bound, and a ranked entry's own count is read when ranking.
 *
 * top(limit) sorts the ranked set (by `compare`, the view's order: count, then a tie-break) and
 * answers from it when its `limit`-th entry's count is above `outsideMax`: nothing outside can
 * be ahead of any of them, so the answer equals a full ranking. Otherwise (an outsider caught up,
 * or ties at the boundary) it makes the full pass again (the cost the view had before) and keeps
 * the best 2 x limit + 16, so that the next snapshots have room before an outsider catches up.
 * Exact in every case; tested against brute force with evictions and small budgets.
 */
class TopTracker {
  /**
   * @param {object} options
   * @param {(entry) => number} options.countOf
   * @param {(a, b) => number} options.compare  best first; a total order (ties broken by key)
   * @param {(visit) => void} options.forEach   visits every live entry (count > 0)
   * @param {(entry) => void} [options.prepare] called on an entry before it is compared (e.g. to
   *   join its key); `release` undoes it on every prepared entry that ends up not ranked
   * @param {(entry) => void} [options.release]
   */
  constructor({ countOf, compare, forEach, prepare = null, release = null }) {
    this.countOf = countOf;
    this.compare = compare;
    this.forEach = forEach;
    this.prepare = prepare;
    this.release = release;
    this.ranked = [];
    this.capacity = 0;
    this.outsideMax = Infinity; // nothing ranked yet: every entry may be ahead
    this.fullPasses = 0;
  }

  /** After an entry's count went up: an outside entry may now be ahead of the bound. */
  raised(entry, count) {
    if (entry.ranked !== true && count > this.outsideMax) this.outsideMax = count;
  }

  /** The best `limit` live entries, best first (a new array). */
  top(limit) {
    if (limit <= this.capacity) {
      const live = [];
      for (const entry of this.ranked) if (this.countOf(entry) > 0) live.push(entry);
      live.sort(this.compare);
      if (live.length >= limit ? this.countOf(live[limit - 1]) > this.outsideMax : this.outsideMax <= 0) return live.slice(0, limit);
    }
    return this.rebuild(limit).slice(0, limit);
  }

  /** A full pass: rank the best 2 x limit + 16, bound the rest by the best of them. */
  rebuild(limit) {
    this.fullPasses++;
    const prepared = this.prepare !== null ? this.ranked.slice() : null;
    for (const entry of this.ranked) entry.ranked = false;
    const capacity = Math.max(this.capacity, 2 * limit + 16);
    // The best capacity + 1: the extra one is the best outsider, whose count bounds the rest.
    const best = [];
    const countOf = this.countOf;
    const compare = this.compare;
    const prepare = this.prepare;
    this.forEach((entry) => {
      if (countOf(entry) <= 0) return;
      if (best.length === capacity + 1 && countOf(entry) < countOf(best[capacity])) return; // cannot enter: skip before preparing it
      if (prepare !== null && entry.ranked !== true) {
        prepare(entry);
        prepared.push(entry);
      }
      keepBest(best, entry, capacity + 1, compare);
    });
    const outside = best.length > capacity ? best.pop() : null;
    for (const entry of best) entry.ranked = true;
    if (this.release !== null) for (const entry of prepared) if (entry.ranked !== true) this.release(entry);
    this.ranked = best;
    this.capacity = capacity;
    this.outsideMax = outside === null ? 0 : countOf(outside);
    return best;
  }
}

module.exports = { TopTracker };
