'use strict';
/**
 * The byte-by-byte view of a raw packet: which field (from the packets view's `detail.fields`,
 * inclusive byte ranges) each byte belongs to, and a colour family per kind of field.
 */

const CATEGORY_OF_FIELD = {
  header: 'header',
  transportCodes: 'transport',
  pathLength: 'path',
  path: 'path',
  pathSnr: 'path',
};

function fieldCategory(name) {
  return CATEGORY_OF_FIELD[name] || 'payload';
}

/** [{ index, hex, field }] for every byte; field = index into `fields`, or -1 if none covers it. */
function byteCells(rawHex, fields) {
  const raw = typeof rawHex === 'string' ? rawHex : '';
  const cells = [];
  for (let i = 0; i * 2 + 1 < raw.length; i++) cells.push({ index: i, hex: raw.slice(i * 2, i * 2 + 2).toLowerCase(), field: -1 });
  (fields || []).forEach((field, fieldIndex) => {
    for (let i = Math.max(0, field.start); i <= field.end && i < cells.length; i++) cells[i].field = fieldIndex;
  });
  return cells;
}

/** Split cells into rows of `width` bytes (a hex dump's lines). */
function rowsOf(cells, width = 16) {
  const rows = [];
  for (let i = 0; i < cells.length; i += width) rows.push(cells.slice(i, i + width));
  return rows;
}

module.exports = { fieldCategory, byteCells, rowsOf };
