'use strict';
/**
 * The `distances` view's histogram as bar-chart rows: one bar per length bin (0-1 … 80+ km),
 * counting distinct links or their sightings, each with a tooltip naming both figures and the
 * bin's share of the total.
 */

const { formatNumber } = require('./format');

const MEASURES = Object.freeze({
  links: { field: 'links', noun: 'links' },
  sightings: { field: 'sightings', noun: 'sightings' },
});

function share(part, total) {
  return total > 0 ? `${((100 * part) / total).toFixed(1)}%` : '0.0%';
}

/** [{ label, value, title }] for BarChart; `measure` is 'links' or 'sightings'. */
function distanceBars(histogram, measure) {
  const { field, noun } = MEASURES[measure] || MEASURES.links;
  const bins = Array.isArray(histogram) ? histogram : [];
  const total = bins.reduce((sum, bin) => sum + (Number(bin[field]) || 0), 0);
  return bins.map((bin) => {
    const value = Number(bin[field]) || 0;
    return {
      label: String(bin.bin),
      value,
      title: `${bin.bin} km: ${formatNumber(value)} ${noun} (${share(value, total)}); ${formatNumber(bin.links)} links, ${formatNumber(bin.sightings)} sightings`,
    };
  });
}

module.exports = { distanceBars };
