/** Points on two numeric axes: points = [{ x, y, title? }] (e.g. SNR against RSSI). */
import React from 'react';
import { ChartFrame } from './ChartFrame';
import { linearScale, niceTicks, extent, tickFormatter } from '../lib/chart-scale';

const MARGIN = { top: 8, right: 10, bottom: 34, left: 48 };

function Plot({ width, height, points, xLabel, yLabel, color }) {
  const innerWidth = width - MARGIN.left - MARGIN.right;
  const innerHeight = height - MARGIN.top - MARGIN.bottom;
  const [x0, x1] = extent(points.map((p) => p.x));
  const [y0, y1] = extent(points.map((p) => p.y));
  const xTicks = niceTicks(x0, x1, Math.max(2, Math.floor(innerWidth / 70)));
  const yTicks = niceTicks(y0, y1, 4);
  const xLabelOf = tickFormatter(xTicks);
  const yLabelOf = tickFormatter(yTicks);
  const x = linearScale(Math.min(x0, xTicks[0]), Math.max(x1, xTicks[xTicks.length - 1]), 0, innerWidth);
  const y = linearScale(Math.min(y0, yTicks[0]), Math.max(y1, yTicks[yTicks.length - 1]), innerHeight, 0);
  return (
    <svg width={width} height={height} role="img" aria-label={`${yLabel} against ${xLabel}`}>
      <g transform={`translate(${MARGIN.left},${MARGIN.top})`}>
        {yTicks.map((tick) => (
          <g key={`y${tick}`} transform={`translate(0,${y(tick)})`}>
            <line x2={innerWidth} className="grid" />
            <text x={-6} dy="0.32em" textAnchor="end" className="axis">{yLabelOf(tick)}</text>
          </g>
        ))}
        {xTicks.map((tick) => (
          <g key={`x${tick}`} transform={`translate(${x(tick)},0)`}>
            <line y2={innerHeight} className="grid" />
            <text y={innerHeight + 14} textAnchor="middle" className="axis">{xLabelOf(tick)}</text>
          </g>
        ))}
        {points.map((point, i) => (
          <circle key={i} cx={x(point.x)} cy={y(point.y)} r={2.4} fill={color} fillOpacity={0.45}>
            {point.title && <title>{point.title}</title>}
          </circle>
        ))}
        <text x={innerWidth / 2} y={innerHeight + 30} textAnchor="middle" className="axis-title">{xLabel}</text>
        <text transform={`translate(-36,${innerHeight / 2}) rotate(-90)`} textAnchor="middle" className="axis-title">{yLabel}</text>
      </g>
    </svg>
  );
}

export function ScatterChart({ points, xLabel, yLabel, height = 240, color = 'var(--accent)' }) {
  if (!points || points.length === 0) return <div className="chart-empty">No data</div>;
  return <ChartFrame>{(width) => <Plot width={width} height={height} points={points} xLabel={xLabel} yLabel={yLabel} color={color} />}</ChartFrame>;
}
