/**
 * One or more series over time: series = [{ name, color, points: [{ x: ms, y }] }], drawn as
 * lines (kind 'line') or bars (kind 'bars', first series only). Null y values break the line.
 * With `bucketMs` each point stands for [x, x + bucketMs) and is drawn as a step over that span,
 * clipped to [from, until] (see lib/time-buckets.js), and its tooltip gives the bucket's span:
 * the views pick minute to hour buckets (the snapshot's `bucket.ms` is what to pass here), and a
 * bucket still filling reads as a level up to now, not as one floating dot. That bucket (the one
 * holding `until`, lib/time-buckets.js partialBucketStart) counts only so far: it is drawn dashed
 * and lighter, with a hollow marker, its tooltip says "so far", and the legend says what dashed
 * means, so a minute 3 s old does not read as a traffic collapse. Nothing is extrapolated.
 */
import React from 'react';
import { ChartFrame } from './ChartFrame';
import { linearScale, niceTicks, extent, tickFormatter } from '../lib/chart-scale';
import { formatClock, formatHour, formatNumber } from '../lib/format';
import { bucketDomain, partialBucketStart, bucketSpanText } from '../lib/time-buckets';

const MARGIN = { top: 8, right: 10, bottom: 22, left: 44 };
const HOUR = 3600000;

function timeTicks(min, max, count) {
  if (max <= min) return [min];
  const span = max - min;
  const steps = [10000, 15000, 30000, 60000, 300000, 900000, HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, 24 * HOUR, 7 * 24 * HOUR];
  const step = steps.find((s) => span / s <= count) || steps[steps.length - 1];
  const ticks = [];
  for (let t = Math.ceil(min / step) * step; t <= max; t += step) ticks.push(t);
  // A span shorter than the smallest step (a few seconds of samples): label its two ends.
  return ticks.length ? ticks : [min, max];
}

function timeLabel(time, span) {
  if (span > 2 * 24 * HOUR) return formatHour(time, true);
  if (span >= 3 * HOUR) return formatHour(time);
  // A server a few minutes old: seconds, or every tick would read the same minute.
  if (span < 5 * 60000) return formatClock(time);
  return formatClock(time).slice(0, 5);
}

/** A point's tooltip: its time, or the span of its bucket ("14:05:00–14:06:00: 12"; "… so far" while it fills). */
function pointTitle(point, bucket, yFormat, until) {
  const when = bucket ? bucketSpanText(point.x, bucket, until) : formatClock(point.x);
  return `${when}: ${yFormat(point.y)}`;
}

const PARTIAL_OPACITY = 0.55;
const PARTIAL_DASH = '4 3';

function hasValue(point) {
  return point && point.y !== null && point.y !== undefined && Number.isFinite(point.y);
}

function linePath(points, x, y) {
  let d = '';
  let pen = false;
  for (const point of points) {
    if (point.y === null || point.y === undefined || !Number.isFinite(point.y)) { pen = false; continue; }
    d += `${pen ? 'L' : 'M'}${x(point.x).toFixed(1)},${y(point.y).toFixed(1)}`;
    pen = true;
  }
  return d;
}

/** Complete buckets as joined steps; the partial bucket (`partialX`) is left to partialStepPath. */
function stepPath(points, bucketMs, x, y, [start, end], partialX = null) {
  let d = '';
  let previousEnd = null;
  for (const point of points) {
    if (!hasValue(point) || point.x === partialX) { previousEnd = null; continue; }
    const from = Math.max(point.x, start);
    const to = Math.min(point.x + bucketMs, end);
    if (to <= from) continue;
    const joined = previousEnd !== null && Math.abs(previousEnd - from) < 1;
    d += `${joined ? 'L' : 'M'}${x(from).toFixed(1)},${y(point.y).toFixed(1)}L${x(to).toFixed(1)},${y(point.y).toFixed(1)}`;
    previousEnd = to;
  }
  return d;
}

/**
 * The bucket still filling, as its own (dashed) path: from the previous bucket's level when the
 * two touch, so the step down to a partial count is dashed too, then its level up to `end`.
 */
function partialStepPath(points, bucketMs, x, y, [start, end], partialX) {
  const index = points.findIndex((point) => point.x === partialX);
  const point = points[index];
  if (!hasValue(point)) return '';
  const from = Math.max(point.x, start);
  const to = Math.min(point.x + bucketMs, end);
  if (to <= from) return '';
  const previous = points[index - 1];
  const joined = hasValue(previous) && Math.abs(Math.min(previous.x + bucketMs, end) - from) < 1;
  const level = y(point.y).toFixed(1);
  return `M${x(from).toFixed(1)},${joined ? y(previous.y).toFixed(1) : level}L${x(from).toFixed(1)},${level}L${x(to).toFixed(1)},${level}`;
}

/** The start of the bucket still filling at `until`, when the chart has buckets. */
function partialOf(series, bucket, until) {
  return bucket ? partialBucketStart(series.flatMap((s) => s.points.filter(hasValue).map((p) => p.x)), bucket, until) : null;
}

function Plot({ width, height, series, kind, yFormat, zeroBased, barWidthMs, bucketMs, from, until }) {
  const innerWidth = width - MARGIN.left - MARGIN.right;
  const innerHeight = height - MARGIN.top - MARGIN.bottom;
  const all = series.flatMap((s) => s.points);
  const bucket = bucketMs || (kind === 'bars' ? barWidthMs : null);
  const domain = bucket ? bucketDomain(all.map((p) => p.x), bucket, from, until) : null;
  const partialX = partialOf(kind === 'bars' ? series.slice(0, 1) : series, bucket, until);
  const [xMin, xMax] = domain || extent(all.map((p) => p.x));
  const [yLow, yHigh] = extent(all.map((p) => p.y), zeroBased ? 0 : undefined);
  // A flat zero series (an empty queue) keeps its axis at 0..1, not -1..1.
  const flatZero = zeroBased && yLow === -1 && yHigh === 1 && all.every((p) => !Number.isFinite(p.y) || p.y === 0);
  const [yMin0, yMax0] = flatZero ? [0, 1] : [yLow, yHigh];
  const ticks = niceTicks(yMin0, yMax0, 4);
  const yMin = Math.min(yMin0, ticks[0]);
  const yMax = Math.max(yMax0, ticks[ticks.length - 1]);
  const x = linearScale(xMin, xMax, 0, innerWidth);
  const y = linearScale(yMin, yMax, innerHeight, 0);
  const xTicks = timeTicks(xMin, xMax, Math.max(2, Math.floor(innerWidth / 70)));
  const base = y(Math.max(yMin, Math.min(0, yMax)));
  const tickLabel = tickFormatter(ticks);
  return (
    <svg width={width} height={height} role="img" aria-label={series.map((s) => s.name).join(', ')}>
      <g transform={`translate(${MARGIN.left},${MARGIN.top})`}>
        {ticks.map((tick) => (
          <g key={tick} transform={`translate(0,${y(tick)})`}>
            <line x2={innerWidth} className="grid" />
            <text x={-6} dy="0.32em" textAnchor="end" className="axis">{tickLabel(tick)}</text>
          </g>
        ))}
        {xTicks.map((tick) => (
          // A label at an edge is anchored at that end so it is not clipped.
          <text key={tick} x={x(tick)} y={innerHeight + 14} textAnchor={x(tick) > innerWidth - 18 ? 'end' : x(tick) < 18 ? 'start' : 'middle'} className="axis">{timeLabel(tick, xMax - xMin)}</text>
        ))}
        {kind === 'bars' && series[0] && series[0].points.map((point) => {
          const left = Math.max(xMin, point.x);
          const right = bucket ? Math.min(xMax, point.x + bucket) : null;
          if (right !== null && right <= left) return null;
          // A bucket's bar covers its span less a 1px gap; without buckets, bars share the width.
          const w = Math.max(1, right !== null ? x(right) - x(left) - 1 : (innerWidth / Math.max(1, series[0].points.length)) * 0.85);
          const top = y(point.y || 0);
          const partial = point.x === partialX;
          return (
            <rect key={point.x} x={x(left)} y={Math.min(top, base)} width={w} height={Math.abs(base - top)} fill={series[0].color}
              className={partial ? 'partial-bucket' : undefined} fillOpacity={partial ? 0.3 : undefined}
              stroke={partial ? series[0].color : undefined} strokeDasharray={partial ? PARTIAL_DASH : undefined}>
              <title>{pointTitle(point, bucket, yFormat, until)}</title>
            </rect>
          );
        })}
        {kind !== 'bars' && series.map((s) => (
          <g key={s.name}>
            <path d={bucket ? stepPath(s.points, bucket, x, y, [xMin, xMax], partialX) : linePath(s.points, x, y)} fill="none" stroke={s.color} strokeWidth={1.6} />
            {partialX !== null && (
              <path className="partial-bucket" d={partialStepPath(s.points, bucket, x, y, [xMin, xMax], partialX)} fill="none" stroke={s.color} strokeWidth={1.6}
                strokeDasharray={PARTIAL_DASH} strokeOpacity={PARTIAL_OPACITY} />
            )}
            {s.points.map((point) => {
              if (!hasValue(point)) return null;
              const partial = point.x === partialX;
              // Markers when there are few points; the bucket still filling always gets one (hollow), for its "so far" tooltip.
              if (!partial && s.points.length > 48) return null;
              return (
                <circle key={point.x} cx={x(bucket ? (Math.max(point.x, xMin) + Math.min(point.x + bucket, xMax)) / 2 : point.x)} cy={y(point.y)}
                  r={partial ? 3 : 2.2} fill={partial ? 'var(--panel)' : s.color} stroke={partial ? s.color : undefined} strokeWidth={partial ? 1.4 : undefined}
                  className={partial ? 'partial-bucket' : undefined}>
                  <title>{pointTitle(point, bucket, yFormat, until)}</title>
                </circle>
              );
            })}
          </g>
        ))}
        <line y1={innerHeight} y2={innerHeight} x2={innerWidth} className="axis-line" />
      </g>
    </svg>
  );
}

export function TimeSeriesChart({ series, height = 160, kind = 'line', yFormat = formatNumber, zeroBased = true, barWidthMs, bucketMs, from, until }) {
  const points = series ? series.reduce((n, s) => n + s.points.length, 0) : 0;
  if (points === 0) return <div className="chart-empty">No data in this window</div>;
  const partial = partialOf(kind === 'bars' ? series.slice(0, 1) : series, bucketMs || (kind === 'bars' ? barWidthMs : null), until) !== null;
  return (
    <>
      <ChartFrame>{(width) => <Plot width={width} height={height} series={series} kind={kind} yFormat={yFormat} zeroBased={zeroBased} barWidthMs={barWidthMs} bucketMs={bucketMs} from={from} until={until} />}</ChartFrame>
      {(series.length > 1 || partial) && (
        <div className="legend">
          {series.length > 1 && series.map((s) => <span key={s.name}><i style={{ background: s.color }} />{s.name}</span>)}
          {partial && <span className="legend-partial" title="The last bucket is still filling: its count is so far, not a full bucket"><i className="dashed" />dashed: current bucket, so far</span>}
        </div>
      )}
    </>
  );
}
