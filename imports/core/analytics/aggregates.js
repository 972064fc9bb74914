'use strict';
/**
 * Counters shared by the rf, topology, hashSizes and subpaths views: an exact value
 * distribution on a fine grid, an exact-ish running mean, a bounded top-K over count Maps, and
 * hop-prefix resolution for display. Everything here is O(1) per update and bounded in memory
 * by the value range or the mesh's distinct keys, never by the number of stored packets.
 */

/**
 * Multiset of numbers that arrive on a grid (SNR in 0.25 dB steps: scale 4; RSSI and sizes in
 * whole units: scale 1). Grid values inside [min, max] are counted in an Int32Array, so min,
 * max, median, mean, standard deviation and histograms are exact and cost O(grid) at snapshot.
 * Values off the grid or outside the range go to an exact Map (value -> count); only once that
 * Map holds `fallbackLimit` distinct values are further new values rounded to the nearest grid
 * point and clamped into range (counted as `approximated`; error at most half a grid step for
 * in-range values, unbounded for values beyond the range, which are not plausible radio data).
 */
class ValueDistribution {
  constructor({ scale, min, max, fallbackLimit = 4096 }) {
    this.scale = scale;
    this.low = Math.round(min * scale);
    this.high = Math.round(max * scale);
    this.grid = new Int32Array(this.high - this.low + 1);
    this.fallback = new Map();
    this.fallbackLimit = fallbackLimit;
    this.count = 0;
    this.approximated = 0;
  }

  /** Grid slot of an exact grid value, or -1. */
  slotOf(value) {
    const scaled = value * this.scale;
    if (!Number.isInteger(scaled) || scaled < this.low || scaled > this.high) return -1;
    return scaled - this.low;
  }

  nearestSlot(value) {
    const scaled = Math.round(value * this.scale);
    const clamped = scaled < this.low ? this.low : scaled > this.high ? this.high : scaled;
    return (Number.isNaN(clamped) ? this.low : clamped) - this.low;
  }

  add(value) {
    this.count++;
    const slot = this.slotOf(value);
    if (slot >= 0) this.grid[slot]++;
    else if (this.fallback.has(value)) this.fallback.set(value, this.fallback.get(value) + 1);
    else if (this.fallback.size < this.fallbackLimit) this.fallback.set(value, 1);
    else {
      this.grid[this.nearestSlot(value)]++;
      this.approximated++;
    }
  }

  /** Undo one add(value). A value kept exactly is removed exactly; see the class comment. */
  remove(value) {
    this.count--;
    const slot = this.slotOf(value);
    if (slot >= 0) this.grid[slot]--;
    else if (this.fallback.has(value)) {
      const next = this.fallback.get(value) - 1;
      if (next === 0) this.fallback.delete(value);
      else this.fallback.set(value, next);
    } else {
      this.grid[this.nearestSlot(value)]--;
      this.approximated--;
    }
  }

  /** Distinct values ascending with their counts: { values, counts, gridSum } (gridSum in grid units). */
  collect() {
    const values = [];
    const counts = [];
    const extra = this.fallback.size ? Array.from(this.fallback.keys()).sort((a, b) => a - b) : [];
    let e = 0;
    let gridSum = 0;
    const { grid, low, scale } = this;
    for (let slot = 0; slot < grid.length; slot++) {
      const count = grid[slot];
      if (count === 0) continue;
      const value = (slot + low) / scale;
      while (e < extra.length && extra[e] < value) {
        values.push(extra[e]);
        counts.push(this.fallback.get(extra[e]));
        e++;
      }
      values.push(value);
      counts.push(count);
      gridSum += (slot + low) * count;
    }
    for (; e < extra.length; e++) {
      values.push(extra[e]);
      counts.push(this.fallback.get(extra[e]));
    }
    return { values, counts, gridSum };
  }

  /**
   * { count, min, max, mean, median, stdDev, histogram, approximated }. Median of an even count
   * is the mean of the two middle values; stdDev is the population standard deviation; the
   * histogram has `bins` equal-width bins from min to max (the max falls in the last bin).
   */
  summary(bins) {
    const n = this.count;
    if (n === 0) return { count: 0, min: null, max: null, mean: null, median: null, stdDev: null, histogram: [], approximated: 0 };
    const { values, counts, gridSum } = this.collect();
    let fallbackSum = 0;
    for (const [value, count] of this.fallback) fallbackSum += value * count;
    const mean = (gridSum / this.scale + fallbackSum) / n;
    let squares = 0;
    for (let i = 0; i < values.length; i++) squares += counts[i] * (values[i] - mean) ** 2;
    const min = values[0];
    const max = values[values.length - 1];
    return {
      count: n,
      min,
      max,
      mean,
      median: medianOfCounts(values, counts, n),
      stdDev: Math.sqrt(squares / n),
      histogram: histogramOfCounts(values, counts, min, max, bins),
      approximated: this.approximated,
    };
  }
}

/** Median of a multiset given as ascending distinct values with counts (total n > 0). */
function medianOfCounts(values, counts, n) {
  const lowRank = Math.floor((n - 1) / 2); // 0-based ranks of the middle value(s)
  const highRank = Math.floor(n / 2);
  let seen = 0;
  let lowValue = null;
  for (let i = 0; i < values.length; i++) {
    seen += counts[i];
    if (lowValue === null && seen > lowRank) lowValue = values[i];
    if (seen > highRank) return (lowValue + values[i]) / 2;
  }
  return lowValue;
}

/** Equal-width bins between min and max: [{ from, to, count }]; a zero-width range puts all in bin 0. */
function histogramOfCounts(values, counts, min, max, bins) {
  const width = (max - min) / bins;
  const histogram = [];
  for (let i = 0; i < bins; i++) histogram.push({ from: min + i * width, to: min + (i + 1) * width, count: 0 });
  for (let i = 0; i < values.length; i++) {
    const bin = width > 0 ? Math.min(bins - 1, Math.floor((values[i] - min) / width)) : 0;
    histogram[bin].count += counts[i];
  }
  return histogram;
}

/**
 * Running mean of values that are mostly on a 1/scale grid: grid values are summed as integers
 * (exact), others as a float (rounding error only, reset when the count returns to zero).
 */
class MeanAccumulator {
  constructor(scale = 4) {
    this.scale = scale;
    this.count = 0;
    this.gridSum = 0;
    this.otherSum = 0;
  }

  add(value, sign = 1) {
    this.count += sign;
    const scaled = value * this.scale;
    if (Number.isInteger(scaled) && Math.abs(scaled) < 2 ** 30) this.gridSum += sign * scaled;
    else this.otherSum += sign * value;
    if (this.count === 0) this.otherSum = 0;
  }

  remove(value) {
    this.add(value, -1);
  }

  get mean() {
    return this.count === 0 ? null : (this.gridSum / this.scale + this.otherSum) / this.count;
  }
}

function byCountThenKey(a, b) {
  return b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
}

/**
 * The `limit` [key, count] entries with the highest counts (ties: smaller key first) over one
 * Map or several, in one pass with a bounded insertion list: O(entries × small) instead of
 * sorting every entry. `countOf` reads the count from a Map value that is not a number.
 */
function topByCount(maps, limit, countOf = null) {
  const best = [];
  for (const map of Array.isArray(maps) ? maps : [maps]) {
    for (const pair of map) keepBest(best, countOf ? [pair[0], countOf(pair[1])] : pair, limit, byCountThenKey);
  }
  return best;
}

/**
 * Keep `item` among `best`, the `limit` first items by `compare` seen so far, in order: a
 * bounded insertion, O(limit) per item, instead of sorting everything. Every view's top list
 * is built with it.
 */
function keepBest(best, item, limit, compare) {
  if (limit <= 0) return;
  if (best.length === limit && compare(item, best[limit - 1]) >= 0) return;
  let at = best.length === limit ? limit - 1 : best.length;
  while (at > 0 && compare(item, best[at - 1]) < 0) {
    best[at] = best[at - 1];
    at--;
  }
  best[at] = item;
}

const { FORWARDING_ROLE } = require('../hop-resolver');

const MAX_CANDIDATES = 10;

function nodeBrief(node) {
  return { pubKey: node.pubKey, name: node.name, role: node.role };
}

/**
 * What a hop hash prefix names. Only repeaters forward, so a hop resolves among the known
 * repeaters carrying the prefix (hop-resolver.js): `node` when exactly one does; otherwise null,
 * with up to 10 `candidates` (by public key) when several do. `otherMatches` counts the known
 * nodes of other roles sharing the prefix (never credited with a relay).
 */
function describePrefix(store, prefix) {
  const all = store.resolvePrefix(prefix);
  const forwarders = all.length === 0 ? all : all.filter((node) => node.role === FORWARDING_ROLE);
  const otherMatches = all.length - forwarders.length;
  if (forwarders.length === 1) return { node: nodeBrief(forwarders[0]), candidates: [], candidateCount: 1, otherMatches };
  const candidates = forwarders.length === 0 ? [] : forwarders.slice().sort((a, b) => (a.pubKey < b.pubKey ? -1 : 1)).slice(0, MAX_CANDIDATES).map(nodeBrief);
  return { node: null, candidates, candidateCount: forwarders.length, otherMatches };
}

module.exports = { ValueDistribution, MeanAccumulator, medianOfCounts, histogramOfCounts, topByCount, keepBest, byCountThenKey, describePrefix, nodeBrief, MAX_CANDIDATES };
