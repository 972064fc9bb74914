/** A ranked list with proportional bars: items = [{ key, label (node), value, sub? }]. */
import React from 'react';
import { formatNumber } from '../lib/format';
import { Clip } from './Clip';

/** `wide`: labels take most of the row (long labels such as hop pairs), bars the rest. */
export function HBarList({ items, valueFormat = formatNumber, color = 'var(--accent)', empty = 'No data', wide = false }) {
  if (!items || items.length === 0) return <div className="chart-empty">{empty}</div>;
  const max = Math.max(...items.map((item) => item.value || 0), 1);
  return (
    <ol className={wide ? 'hbars wide' : 'hbars'}>
      {items.map((item) => (
        <li key={item.key}>
          <Clip className="hbar-label" title={item.title}>{item.label}{item.sub && <span className="muted small"> {item.sub}</span>}</Clip>
          <div className="hbar-track"><div className="hbar-fill" style={{ width: `${(100 * (item.value || 0)) / max}%`, background: color }} /></div>
          <div className="hbar-value num">{valueFormat(item.value)}</div>
        </li>
      ))}
    </ol>
  );
}
