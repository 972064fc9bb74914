/**
 * A grid of counts: rows = [{ label, values }], columns labelled by colLabels (thinned).
 * Cell colour is the count relative to the largest one; zero stays blank.
 */
import React from 'react';
import { ChartFrame } from './ChartFrame';
import { formatNumber } from '../lib/format';

const LABEL_WIDTH = 84;

function Grid({ width, rows, colLabels, cellHeight, formatTitle }) {
  const columns = colLabels.length;
  const cellWidth = (width - LABEL_WIDTH) / Math.max(1, columns);
  let max = 0;
  for (const row of rows) for (const value of row.values) if (value > max) max = value;
  const labelEvery = Math.max(1, Math.ceil(columns / Math.floor((width - LABEL_WIDTH) / 28)));
  const height = rows.length * cellHeight + 16;
  return (
    <svg width={width} height={height} role="img" aria-label="heatmap">
      {rows.map((row, r) => (
        <g key={row.label} transform={`translate(0,${r * cellHeight})`}>
          <text x={LABEL_WIDTH - 6} y={cellHeight / 2} dy="0.32em" textAnchor="end" className="axis">{row.label}</text>
          {row.values.map((value, c) => (
            <rect key={c} x={LABEL_WIDTH + c * cellWidth + 0.5} y={0.5} width={Math.max(0.5, cellWidth - 1)} height={cellHeight - 1} rx={1.5}
              fill={value > 0 ? 'var(--accent)' : 'var(--cell-empty)'} fillOpacity={value > 0 ? 0.15 + (0.85 * value) / max : 1}>
              <title>{formatTitle(row, c, value)}</title>
            </rect>
          ))}
        </g>
      ))}
      {colLabels.map((label, c) => (c % labelEvery === 0 ? (
        <text key={c} x={LABEL_WIDTH + c * cellWidth + cellWidth / 2} y={rows.length * cellHeight + 12} textAnchor="middle" className="axis">{label}</text>
      ) : null))}
    </svg>
  );
}

export function Heatmap({ rows, colLabels, cellHeight = 16, formatTitle = (row, c, value) => `${row.label} ${colLabels[c]}: ${formatNumber(value)}` }) {
  if (!rows || rows.length === 0) return <div className="chart-empty">No data</div>;
  return <ChartFrame>{(width) => <Grid width={width} rows={rows} colLabels={colLabels} cellHeight={cellHeight} formatTitle={formatTitle} />}</ChartFrame>;
}
