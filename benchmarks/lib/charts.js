'use strict';
/**
 * Line and bar charts for the benchmark reports: SVG written here, turned into PNG by
 * @resvg/resvg-js (a prebuilt binary shipped in the npm package; no browser, no network).
 *
 *   writeLineChart(file, { title, xLabel, yLabel, series: [{ name, points: [[x, y], ...] }] });
 *   writeBarChart(file, { title, yLabel, groups: ['off', ...], series: [{ name, values: [...] }] });
 */
const fs = require('fs');

const WIDTH = 900;
const HEIGHT = 420;
const MARGIN = { top: 48, right: 190, bottom: 56, left: 76 };
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf'];
const FONT = 'DejaVu Sans, Liberation Sans, sans-serif';

function escapeXml(text) {
  return String(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Round tick step (1, 2, 5 x 10^n) giving about `count` ticks over [min, max]. */
function niceTicks(min, max, count = 5) {
  if (!(max > min)) max = min + 1;
  const raw = (max - min) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) || raw;
  const ticks = [];
  for (let v = Math.ceil(min / step) * step; v <= max + step * 1e-9; v += step) ticks.push(Number(v.toPrecision(12)));
  return { ticks, step };
}

function formatTick(value) {
  const abs = Math.abs(value);
  if (abs >= 1e6) return `${Number((value / 1e6).toPrecision(3))}M`;
  if (abs >= 1e4) return `${Number((value / 1e3).toPrecision(3))}k`;
  return String(Number(value.toPrecision(4)));
}

function frame({ title, xLabel, yLabel }) {
  const parts = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" font-family="${FONT}">`);
  parts.push(`<rect width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>`);
  parts.push(`<text x="${MARGIN.left}" y="28" font-size="17" font-weight="bold" fill="#222">${escapeXml(title)}</text>`);
  if (xLabel) parts.push(`<text x="${MARGIN.left + (WIDTH - MARGIN.left - MARGIN.right) / 2}" y="${HEIGHT - 12}" font-size="13" text-anchor="middle" fill="#444">${escapeXml(xLabel)}</text>`);
  if (yLabel) parts.push(`<text transform="translate(18 ${MARGIN.top + (HEIGHT - MARGIN.top - MARGIN.bottom) / 2}) rotate(-90)" font-size="13" text-anchor="middle" fill="#444">${escapeXml(yLabel)}</text>`);
  return parts;
}

function legend(parts, names) {
  names.forEach((name, i) => {
    const y = MARGIN.top + 8 + i * 22;
    const x = WIDTH - MARGIN.right + 16;
    parts.push(`<rect x="${x}" y="${y - 9}" width="14" height="10" fill="${COLORS[i % COLORS.length]}"/>`);
    parts.push(`<text x="${x + 20}" y="${y}" font-size="12" fill="#222">${escapeXml(name)}</text>`);
  });
}

function yAxis(parts, yMin, yMax, plotH, plotW) {
  const { ticks } = niceTicks(yMin, yMax);
  const y = (v) => MARGIN.top + plotH - ((v - yMin) / (yMax - yMin)) * plotH;
  for (const tick of ticks) {
    parts.push(`<line x1="${MARGIN.left}" x2="${MARGIN.left + plotW}" y1="${y(tick)}" y2="${y(tick)}" stroke="#e3e3e3"/>`);
    parts.push(`<text x="${MARGIN.left - 8}" y="${y(tick) + 4}" font-size="12" text-anchor="end" fill="#444">${formatTick(tick)}</text>`);
  }
  parts.push(`<line x1="${MARGIN.left}" x2="${MARGIN.left}" y1="${MARGIN.top}" y2="${MARGIN.top + plotH}" stroke="#888"/>`);
  parts.push(`<line x1="${MARGIN.left}" x2="${MARGIN.left + plotW}" y1="${MARGIN.top + plotH}" y2="${MARGIN.top + plotH}" stroke="#888"/>`);
  return y;
}

/** Upper bound of the y axis: max rounded up to a nice tick, never 0. */
function niceMax(max) {
  if (!(max > 0)) return 1;
  const { ticks, step } = niceTicks(0, max);
  const top = ticks[ticks.length - 1];
  return top >= max ? top : top + step;
}

function lineChartSvg({ title, xLabel, yLabel, series, logY = false, yMax: fixedMax }) {
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const all = series.flatMap((s) => s.points).filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y));
  const parts = frame({ title, xLabel, yLabel });
  if (!all.length) {
    parts.push(`<text x="${WIDTH / 2}" y="${HEIGHT / 2}" font-size="14" text-anchor="middle" fill="#888">no data</text></svg>`);
    return parts.join('\n');
  }
  const xs = all.map(([x]) => x);
  let xMin = Math.min(...xs);
  let xMax = Math.max(...xs);
  if (xMax === xMin) { xMin -= 1; xMax += 1; }
  const transform = logY ? (v) => Math.log10(Math.max(v, 0.1)) : (v) => v;
  const yValues = all.map(([, y]) => transform(y));
  const yMin = logY ? Math.floor(Math.min(...yValues)) : 0;
  const yMax = fixedMax !== undefined ? fixedMax : logY ? Math.ceil(Math.max(...yValues)) || 1 : niceMax(Math.max(...yValues));
  const x = (v) => MARGIN.left + ((v - xMin) / (xMax - xMin)) * plotW;
  let y;
  if (logY) {
    y = (v) => MARGIN.top + plotH - ((transform(v) - yMin) / ((yMax - yMin) || 1)) * plotH;
    for (let p = yMin; p <= yMax; p++) {
      const py = MARGIN.top + plotH - ((p - yMin) / ((yMax - yMin) || 1)) * plotH;
      parts.push(`<line x1="${MARGIN.left}" x2="${MARGIN.left + plotW}" y1="${py}" y2="${py}" stroke="#e3e3e3"/>`);
      parts.push(`<text x="${MARGIN.left - 8}" y="${py + 4}" font-size="12" text-anchor="end" fill="#444">${formatTick(10 ** p)}</text>`);
    }
    parts.push(`<line x1="${MARGIN.left}" x2="${MARGIN.left}" y1="${MARGIN.top}" y2="${MARGIN.top + plotH}" stroke="#888"/>`);
    parts.push(`<line x1="${MARGIN.left}" x2="${MARGIN.left + plotW}" y1="${MARGIN.top + plotH}" y2="${MARGIN.top + plotH}" stroke="#888"/>`);
  } else {
    const scaleY = yAxis(parts, 0, yMax, plotH, plotW);
    y = (v) => scaleY(Math.min(v, yMax));
  }
  for (const tick of niceTicks(xMin, xMax, 8).ticks) {
    parts.push(`<text x="${x(tick)}" y="${MARGIN.top + plotH + 18}" font-size="12" text-anchor="middle" fill="#444">${formatTick(tick)}</text>`);
    parts.push(`<line x1="${x(tick)}" x2="${x(tick)}" y1="${MARGIN.top + plotH}" y2="${MARGIN.top + plotH + 4}" stroke="#888"/>`);
  }
  series.forEach((s, i) => {
    const points = s.points.filter(([px, py]) => Number.isFinite(px) && Number.isFinite(py));
    if (!points.length) return;
    const color = COLORS[i % COLORS.length];
    const d = points.map(([px, py], j) => `${j ? 'L' : 'M'}${x(px).toFixed(1)},${y(py).toFixed(1)}`).join(' ');
    parts.push(`<path d="${d}" fill="none" stroke="${color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>`);
    if (points.length <= 40) for (const [px, py] of points) parts.push(`<circle cx="${x(px).toFixed(1)}" cy="${y(py).toFixed(1)}" r="3" fill="${color}"/>`);
  });
  legend(parts, series.map((s) => s.name));
  parts.push('</svg>');
  return parts.join('\n');
}

function barChartSvg({ title, yLabel, groups, series }) {
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const parts = frame({ title, yLabel });
  const values = series.flatMap((s) => s.values).filter(Number.isFinite);
  const yMax = niceMax(Math.max(0, ...values));
  const y = yAxis(parts, 0, yMax, plotH, plotW);
  const groupW = plotW / groups.length;
  const barW = Math.min(48, (groupW * 0.8) / series.length);
  groups.forEach((group, g) => {
    const center = MARGIN.left + groupW * (g + 0.5);
    parts.push(`<text x="${center}" y="${MARGIN.top + plotH + 18}" font-size="12" text-anchor="middle" fill="#444">${escapeXml(group)}</text>`);
    series.forEach((s, i) => {
      const value = s.values[g];
      if (!Number.isFinite(value)) return;
      const left = center - (barW * series.length) / 2 + i * barW;
      parts.push(`<rect x="${left.toFixed(1)}" y="${y(value).toFixed(1)}" width="${(barW - 2).toFixed(1)}" height="${(MARGIN.top + plotH - y(value)).toFixed(1)}" fill="${COLORS[i % COLORS.length]}"/>`);
      parts.push(`<text x="${(left + barW / 2 - 1).toFixed(1)}" y="${(y(value) - 4).toFixed(1)}" font-size="10" text-anchor="middle" fill="#333">${formatTick(value)}</text>`);
    });
  });
  legend(parts, series.map((s) => s.name));
  parts.push('</svg>');
  return parts.join('\n');
}

function writePng(file, svg) {
  const { Resvg } = require('@resvg/resvg-js');
  const png = new Resvg(svg, { font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' }, background: '#ffffff' }).render().asPng();
  fs.writeFileSync(file, png);
}

function writeLineChart(file, spec) {
  writePng(file, lineChartSvg(spec));
}

function writeBarChart(file, spec) {
  writePng(file, barChartSvg(spec));
}

module.exports = { writeLineChart, writeBarChart, lineChartSvg, barChartSvg, niceTicks };
