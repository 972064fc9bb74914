/** "1–100 of 355" with previous / next buttons over an offset and a page size. */
import React from 'react';
import { formatNumber } from '../lib/format';

export function Pager({ offset, limit, total, onChange }) {
  if (!total) return null;
  const last = Math.min(total, offset + limit);
  return (
    <div className="pager">
      <button type="button" disabled={offset === 0} onClick={() => onChange(Math.max(0, offset - limit))}>‹ Prev</button>
      <span className="num">{formatNumber(offset + 1)}–{formatNumber(last)} of {formatNumber(total)}</span>
      <button type="button" disabled={last >= total} onClick={() => onChange(offset + limit)}>Next ›</button>
    </div>
  );
}
