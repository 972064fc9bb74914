'use strict';
/**
 * Map maths: Web Mercator (the projection slippy-map tiles use), so the same node positions
 * are right with tiles behind them and without. World coordinates run 0..1 in x and y; a view
 * is { centerX, centerY, scale } with scale = screen pixels per world unit (256 * 2^zoom).
 */
const TILE_SIZE = 256;
const MAX_LAT = 85.05112878;

function lonLatToWorld(lon, lat) {
  const clamped = Math.max(-MAX_LAT, Math.min(MAX_LAT, lat));
  const sin = Math.sin((clamped * Math.PI) / 180);
  return [(lon + 180) / 360, 0.5 - Math.log((1 + sin) / (1 - sin)) / (4 * Math.PI)];
}

function worldToLonLat(x, y) {
  const lon = x * 360 - 180;
  const lat = (Math.atan(Math.sinh(Math.PI * (1 - 2 * y))) * 180) / Math.PI;
  return [lon, lat];
}

/** A view that fits every point in a width x height box with `padding` pixels around. */
function fitView(points, width, height, padding = 40, maxScale = TILE_SIZE * 2 ** 16) {
  if (points.length === 0) return { centerX: 0.5, centerY: 0.5, scale: Math.max(width, height) };
  let minX = Infinity; let maxX = -Infinity; let minY = Infinity; let maxY = -Infinity;
  for (const [x, y] of points) {
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
  }
  const spanX = Math.max(maxX - minX, 1e-9);
  const spanY = Math.max(maxY - minY, 1e-9);
  const scale = Math.min((width - 2 * padding) / spanX, (height - 2 * padding) / spanY, maxScale);
  return { centerX: (minX + maxX) / 2, centerY: (minY + maxY) / 2, scale: Math.max(scale, 1) };
}

function worldToScreen(view, width, height, x, y) {
  return [(x - view.centerX) * view.scale + width / 2, (y - view.centerY) * view.scale + height / 2];
}

function screenToWorld(view, width, height, sx, sy) {
  return [(sx - width / 2) / view.scale + view.centerX, (sy - height / 2) / view.scale + view.centerY];
}

/** Zoom by `factor` keeping the world point under screen (sx, sy) where it is. */
function zoomAt(view, width, height, sx, sy, factor, limits = { min: 64, max: TILE_SIZE * 2 ** 19 }) {
  const scale = Math.max(limits.min, Math.min(limits.max, view.scale * factor));
  const [wx, wy] = screenToWorld(view, width, height, sx, sy);
  return { centerX: wx - (sx - width / 2) / scale, centerY: wy - (sy - height / 2) / scale, scale };
}

/** Fill a tile URL template: {z} {x} {y}, and {s} with a subdomain a-c. */
function tileUrlFor(template, z, x, y) {
  return template.replace('{z}', z).replace('{x}', x).replace('{y}', y).replace('{s}', 'abc'[(x + y) % 3]);
}

/** The tiles covering the screen at the zoom nearest the view's scale, with screen positions. */
function tilesFor(view, width, height, template, maxZoom = 19) {
  const zoom = Math.max(0, Math.min(maxZoom, Math.round(Math.log2(view.scale / TILE_SIZE))));
  const count = 2 ** zoom;
  const size = view.scale / count; // screen pixels per tile at this view
  const [left, top] = screenToWorld(view, width, height, 0, 0);
  const [right, bottom] = screenToWorld(view, width, height, width, height);
  const tiles = [];
  // ceil - 1 on the far edges: a tile that merely starts at the screen's edge is not drawn.
  const x0 = Math.floor(left * count); const x1 = Math.ceil(right * count) - 1;
  const y0 = Math.max(0, Math.floor(top * count)); const y1 = Math.min(count - 1, Math.ceil(bottom * count) - 1);
  if (x1 - x0 > 64 || y1 - y0 > 64) return tiles; // degenerate view: draw nothing rather than thousands
  for (let ty = y0; ty <= y1; ty++) {
    for (let tx = x0; tx <= x1; tx++) {
      const wrapped = ((tx % count) + count) % count;
      const [sx, sy] = worldToScreen(view, width, height, tx / count, ty / count);
      tiles.push({ key: `${zoom}/${tx}/${ty}`, url: tileUrlFor(template, zoom, wrapped, ty), x: sx, y: sy, size });
    }
  }
  return tiles;
}

/** Round lon/lat steps for a graticule at this view (about `lines` lines across). */
function graticuleStep(view, width, lines = 6) {
  const degreesAcross = (width / view.scale) * 360;
  const raw = degreesAcross / lines;
  const steps = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 45, 90];
  return steps.find((step) => step >= raw) || 90;
}

module.exports = { TILE_SIZE, lonLatToWorld, worldToLonLat, fitView, worldToScreen, screenToWorld, zoomAt, tileUrlFor, tilesFor, graticuleStep };
