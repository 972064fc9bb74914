'use strict';
/**
 * Map labels that never overlap: candidates (already in screen pixels) are taken in priority
 * order and each keeps its label only if the label's box is free. Zooming in spreads the nodes
 * apart, so more labels fit; a crowded fit view shows the most important names only.
 */

const CHAR_WIDTH = 6.4; // px per character at the map label's 11px font, a safe over-estimate
const LABEL_HEIGHT = 13;

function overlaps(a, b) {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

/**
 * items: [{ key, x, y, text, priority }] (higher priority placed first; ties by text).
 * Returns [{ key, x, y, text, anchor }] for the labels that fit inside width x height, each
 * placed right of its point (or left when it would leave the map).
 */
function placeLabels(items, width, height, { maxLabels = 80, radius = 7 } = {}) {
  const sorted = items.filter((item) => item.text).slice()
    .sort((a, b) => (b.priority || 0) - (a.priority || 0) || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
  const boxes = [];
  const placed = [];
  // Node dots are obstacles too: a label must not cover another node.
  const dots = items.map((item) => ({ x: item.x - 4, y: item.y - 4, w: 8, h: 8, key: item.key }));
  for (const item of sorted) {
    if (placed.length >= maxLabels) break;
    const w = Math.ceil(item.text.length * CHAR_WIDTH) + 4;
    const y = item.y - LABEL_HEIGHT / 2;
    for (const side of ['right', 'left']) {
      const x = side === 'right' ? item.x + radius : item.x - radius - w;
      if (x < 0 || x + w > width || y < 0 || y + LABEL_HEIGHT > height) continue;
      const box = { x, y, w, h: LABEL_HEIGHT };
      if (boxes.some((other) => overlaps(box, other))) continue;
      if (dots.some((dot) => dot.key !== item.key && overlaps(box, dot))) continue;
      boxes.push(box);
      placed.push({ key: item.key, x: side === 'right' ? x + 2 : x + w - 2, y: item.y, text: item.text, anchor: side === 'right' ? 'start' : 'end' });
      break;
    }
  }
  return placed;
}

module.exports = { placeLabels, CHAR_WIDTH, LABEL_HEIGHT };
