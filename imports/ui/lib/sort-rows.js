'use strict';
/** Sorting table rows by a column: numbers (nulls last), then strings, ties by `tieKey`. */

function compareValues(a, b) {
  const aMissing = a === null || a === undefined || a === '';
  const bMissing = b === null || b === undefined || b === '';
  if (aMissing || bMissing) return aMissing === bMissing ? 0 : aMissing ? 1 : -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b), 'en', { sensitivity: 'base' });
}

/** rows sorted by `value(row)`; `descending` flips the order but keeps missing values last. */
function sortRows(rows, value, descending = false, tieKey = (row) => row.id) {
  return rows.slice().sort((a, b) => {
    const va = value(a);
    const vb = value(b);
    const aMissing = va === null || va === undefined || va === '';
    const bMissing = vb === null || vb === undefined || vb === '';
    if (aMissing !== bMissing) return aMissing ? 1 : -1;
    const order = compareValues(va, vb) * (descending ? -1 : 1);
    return order || compareValues(tieKey(a), tieKey(b));
  });
}

module.exports = { sortRows, compareValues };
