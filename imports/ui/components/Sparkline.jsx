/** A tiny trend line for a list of numbers (nulls skipped), fixed size. */
import React from 'react';
import { linearScale, extent } from '../lib/chart-scale';

export function Sparkline({ values, width = 120, height = 28, color = 'var(--accent)' }) {
  const points = values.map((value, i) => [i, value]).filter(([, value]) => Number.isFinite(value));
  if (points.length < 2) return <svg width={width} height={height} className="sparkline" />;
  const [min, max] = extent(points.map(([, value]) => value), 0);
  const x = linearScale(0, values.length - 1, 1, width - 1);
  const y = linearScale(min, max, height - 2, 2);
  const d = points.map(([i, value], n) => `${n ? 'L' : 'M'}${x(i).toFixed(1)},${y(value).toFixed(1)}`).join('');
  return (
    <svg width={width} height={height} className="sparkline" aria-hidden="true">
      <path d={d} fill="none" stroke={color} strokeWidth={1.5} />
    </svg>
  );
}
