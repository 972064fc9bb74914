/**
 * Vertical bars with a y grid: data = [{ label, value, color?, title? }]. Labels under the
 * bars are thinned so they never overlap. Hand-written SVG (see imports/ui/README.md).
 */
import React from 'react';
import { ChartFrame } from './ChartFrame';
import { linearScale, niceTicks, extent, tickFormatter } from '../lib/chart-scale';
import { formatNumber } from '../lib/format';

const MARGIN = { top: 8, right: 8, bottom: 22, left: 44 };

function Bars({ width, height, data, color, valueFormat, yLabel }) {
  const innerWidth = width - MARGIN.left - MARGIN.right;
  const innerHeight = height - MARGIN.top - MARGIN.bottom;
  // The domain always includes 0, so negative values (mean SNR) hang below the zero line.
  const [min, max] = extent(data.map((d) => d.value), 0);
  const ticks = niceTicks(min, max, 4);
  const bottom = Math.min(min, ticks[0]);
  const top = Math.max(max, ticks[ticks.length - 1]);
  const y = linearScale(bottom, top, innerHeight, 0);
  const zero = y(0);
  const tickLabel = tickFormatter(ticks);
  const step = innerWidth / Math.max(1, data.length);
  const barWidth = Math.max(1, step * 0.8);
  const labelEvery = Math.max(1, Math.ceil(data.length / Math.max(1, Math.floor(innerWidth / 48))));
  return (
    <svg width={width} height={height} role="img" aria-label={yLabel || 'bar chart'}>
      <g transform={`translate(${MARGIN.left},${MARGIN.top})`}>
        {ticks.map((tick) => (
          <g key={tick} transform={`translate(0,${y(tick)})`}>
            <line x2={innerWidth} className="grid" />
            <text x={-6} dy="0.32em" textAnchor="end" className="axis">{tickLabel(tick)}</text>
          </g>
        ))}
        {data.map((d, i) => {
          const end = y(d.value || 0);
          return (
            <g key={`${d.label}-${i}`}>
              <rect x={i * step + (step - barWidth) / 2} y={Math.min(zero, end)} width={barWidth} height={Math.abs(end - zero)} fill={d.color || color} rx={1}>
                <title>{d.title || `${d.label}: ${valueFormat(d.value)}`}</title>
              </rect>
              {i % labelEvery === 0 && (
                <text x={i * step + step / 2} y={innerHeight + 14} textAnchor="middle" className="axis">{d.label}</text>
              )}
            </g>
          );
        })}
        <line y1={zero} y2={zero} x2={innerWidth} className="axis-line" />
      </g>
    </svg>
  );
}

export function BarChart({ data, height = 160, color = 'var(--accent)', valueFormat = formatNumber, yLabel }) {
  if (!data || data.length === 0) return <div className="chart-empty">No data</div>;
  return <ChartFrame>{(width) => <Bars width={width} height={height} data={data} color={color} valueFormat={valueFormat} yLabel={yLabel} />}</ChartFrame>;
}
