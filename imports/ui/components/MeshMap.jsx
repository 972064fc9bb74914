/**
 * Nodes by position and role, and links between busy adjacent hops, in SVG under a Web
 * Mercator projection (lib/projection.js). With a tile URL template the slippy-map tiles are
 * drawn underneath as <image>s in the same projection; without one (no internet) a
 * graticule stands in, and the map works the same. Drag to pan, wheel to zoom.
 *
 * Routes (optional): `routes` are drawn as faint lines (a replay window), `animating` ones as a
 * pulse travelling from source to observer with a fading trail; a segment across hops that did
 * not resolve to a placed node is dashed. The animation is CSS (keyframes in the SVG), so React
 * renders each route once, not per frame.
 */
import React, { useEffect, useMemo, useRef, useState } from 'react';
import { navigate } from '../lib/router';
import { ROLE_COLORS } from '../lib/mesh-constants';
import { formatNumber } from '../lib/format';
import { fitView, worldToScreen, screenToWorld, zoomAt, tilesFor, graticuleStep, lonLatToWorld } from '../lib/projection';
import { useElementWidth } from '../hooks/use-element-width';
import { placeLabels } from '../lib/label-layout';
import { linePath } from '../lib/map-data';

// Travel takes most of the animation; the trail fades over all of it (use-route-feed.js: 4 s).
const ROUTE_KEYFRAMES = `
@keyframes meshpulse-route-travel { from { stroke-dashoffset: 0.06; } to { stroke-dashoffset: -1; } }
@keyframes meshpulse-route-fade { 0% { opacity: 0.9; } 70% { opacity: 0.6; } 100% { opacity: 0; } }
.route-pulse { fill: none; stroke-width: 5; stroke-linecap: round; stroke-dasharray: 0.06 1.2; animation: meshpulse-route-travel 2.6s linear forwards; }
.route-trail { animation: meshpulse-route-fade 4s ease-in forwards; }
.route-segment { fill: none; stroke-width: 2; }
.route-segment.dashed { stroke-dasharray: 4 3; }
.route-faint { fill: none; stroke: #f59e0b; stroke-opacity: 0.22; stroke-width: 1; }
`;

// Which names win a crowded spot: repeaters and rooms (the mesh's fixed points), then the rest.
const LABEL_PRIORITY = { repeater: 3, room: 2, sensor: 1 };

function Graticule({ view, width, height }) {
  const step = graticuleStep(view, width);
  const [left, top] = screenToWorld(view, width, height, 0, 0);
  const [right, bottom] = screenToWorld(view, width, height, width, height);
  const lonMin = left * 360 - 180;
  const lonMax = right * 360 - 180;
  const lines = [];
  for (let lon = Math.ceil(lonMin / step) * step; lon <= lonMax; lon += step) {
    const [sx] = worldToScreen(view, width, height, (lon + 180) / 360, 0);
    lines.push(<g key={`lon${lon}`}><line x1={sx} x2={sx} y1={0} y2={height} className="graticule" /><text x={sx + 3} y={height - 4} className="graticule-label">{lon.toFixed(step < 1 ? 2 : 0)}°</text></g>);
  }
  // Latitude lines: walk lat values, project each (Mercator spacing is not uniform).
  const latAt = (wy) => (Math.atan(Math.sinh(Math.PI * (1 - 2 * wy))) * 180) / Math.PI;
  const latMax = latAt(Math.max(0, top));
  const latMin = latAt(Math.min(1, bottom));
  for (let lat = Math.ceil(latMin / step) * step; lat <= latMax; lat += step) {
    const [, wy] = lonLatToWorld(0, lat);
    const [, sy] = worldToScreen(view, width, height, 0, wy);
    lines.push(<g key={`lat${lat}`}><line x1={0} x2={width} y1={sy} y2={sy} className="graticule" /><text x={4} y={sy - 3} className="graticule-label">{lat.toFixed(step < 1 ? 2 : 0)}°</text></g>);
  }
  return <g>{lines}</g>;
}

// Amber: apart from the blue hop-pair links and every role colour, in both themes.
export const ROUTE_COLOR = '#f59e0b';

function RouteLayer({ routes, animating, project }) {
  return (
    <g className="routes" data-testid="map-routes">
      <style>{ROUTE_KEYFRAMES}</style>
      {routes.map((route) => (
        <path key={`faint-${route.key}`} d={linePath(route.points, project)} className="route-faint" />
      ))}
      {animating.map((route) => (
        <g key={`anim-${route.key}-${route.startedAt}`} className="route-trail" style={{ animationDelay: `${route.delayMs || 0}ms` }} data-hash={route.hash}>
          {route.segments.map((segment, i) => {
            const [x1, y1] = project(segment.from);
            const [x2, y2] = project(segment.to);
            return <line key={i} x1={x1} y1={y1} x2={x2} y2={y2} className={`route-segment${segment.dashed ? ' dashed' : ''}`} stroke={ROUTE_COLOR} />;
          })}
          <path d={linePath(route.points, project)} pathLength={1} className="route-pulse" stroke={ROUTE_COLOR} style={{ animationDelay: `${route.delayMs || 0}ms` }} />
        </g>
      ))}
    </g>
  );
}

export function MeshMap({ points, links, tileUrl, height = 560, routes = [], animating = [] }) {
  const [ref, width] = useElementWidth(900);
  const [view, setView] = useState(null);
  const [hover, setHover] = useState(null);
  const drag = useRef(null);
  const fitted = useMemo(() => fitView(points.map((p) => [p.x, p.y]), width, height), [points, width, height]);
  const shown = view || fitted;
  const maxLink = links.reduce((max, link) => Math.max(max, link.count), 1);

  // Until the user pans or zooms (view === null) the map keeps fitting every node as data arrives.
  const svgRef = useRef(null);
  const latest = useRef({ shown, width, height });
  latest.current = { shown, width, height };
  useEffect(() => {
    // A native listener: React's wheel listener is passive, so it could not stop the page scrolling.
    const svg = svgRef.current;
    if (!svg) return undefined;
    const onWheel = (event) => {
      event.preventDefault();
      const box = svg.getBoundingClientRect();
      const now = latest.current;
      setView(zoomAt(now.shown, now.width, now.height, event.clientX - box.left, event.clientY - box.top, event.deltaY < 0 ? 1.25 : 0.8));
    };
    svg.addEventListener('wheel', onWheel, { passive: false });
    return () => svg.removeEventListener('wheel', onWheel);
  }, []);
  const onPointerDown = (event) => {
    // No pointer capture: it would retarget the click meant for a node to the svg.
    drag.current = { x: event.clientX, y: event.clientY, view: shown };
  };
  const onPointerMove = (event) => {
    if (!drag.current) return;
    const start = drag.current;
    setView({ ...start.view, centerX: start.view.centerX - (event.clientX - start.x) / start.view.scale, centerY: start.view.centerY - (event.clientY - start.y) / start.view.scale });
  };
  const onPointerUp = () => { drag.current = null; };

  const project = (p) => worldToScreen(shown, width, height, p.x, p.y);
  const tiles = tileUrl ? tilesFor(shown, width, height, tileUrl) : [];
  // Names of named nodes where they fit without overlapping: a few at the fit view, more as you
  // zoom in. The hovered node's name is always shown.
  const labels = useMemo(() => placeLabels(points.filter((p) => p.name).map((p) => {
    const [x, y] = worldToScreen(shown, width, height, p.x, p.y);
    return { key: p.pubKey, x, y, text: p.name, priority: LABEL_PRIORITY[p.role] || 0 };
  }), width, height), [points, shown, width, height]);
  const hoverKey = hover ? hover.point.pubKey : null;
  return (
    <div ref={ref} className="map" style={{ height }}>
      <svg ref={svgRef} width={width} height={height} onPointerDown={onPointerDown} onPointerMove={onPointerMove} onPointerUp={onPointerUp} onPointerLeave={onPointerUp}
        role="img" aria-label={`map of ${formatNumber(points.length)} nodes`} data-testid="mesh-map">
        <rect width={width} height={height} className="map-bg" />
        {tiles.map((tile) => <image key={tile.key} href={tile.url} x={tile.x} y={tile.y} width={tile.size + 0.5} height={tile.size + 0.5} className="tile" />)}
        {!tileUrl && <Graticule view={shown} width={width} height={height} />}
        {links.map((link) => {
          const [x1, y1] = project(link.from);
          const [x2, y2] = project(link.to);
          return (
            <line key={link.key} x1={x1} y1={y1} x2={x2} y2={y2} className={link.likely ? 'map-link likely' : 'map-link'} strokeWidth={1 + (4 * link.count) / maxLink}>
              <title>{`${link.from.name || link.from.pubKey.slice(0, 8)} ↔ ${link.to.name || link.to.pubKey.slice(0, 8)}: ${formatNumber(link.count)}${link.likely ? ' (likely: an end resolved as the nearest fit)' : ''}`}</title>
            </line>
          );
        })}
        {(routes.length > 0 || animating.length > 0) && <RouteLayer routes={routes} animating={animating} project={project} />}
        {points.map((point) => {
          const [x, y] = project(point);
          if (x < -20 || y < -20 || x > width + 20 || y > height + 20) return null;
          const infrastructure = point.role === 'repeater' || point.role === 'room';
          return (
            <circle key={point.pubKey} cx={x} cy={y} r={infrastructure ? 6 : 4.5} fill={ROLE_COLORS[point.role] || ROLE_COLORS.unknown}
              className={`map-node status-${point.status}`} data-pubkey={point.pubKey}
              onMouseEnter={() => setHover({ point, x, y })} onMouseLeave={() => setHover(null)}
              onClick={() => navigate(`/nodes/${point.pubKey}`)} />
          );
        })}
        {labels.map((label) => (label.key === hoverKey ? null : (
          <text key={label.key} x={label.x} y={label.y} dy="0.35em" textAnchor={label.anchor} className="map-label" data-pubkey={label.key}>{label.text}</text>
        )))}
        {hover && hover.point.name && (
          <text x={hover.x + 8} y={hover.y} dy="0.35em" className="map-label hovered">{hover.point.name}</text>
        )}
      </svg>
      {hover && (
        <div className="map-tip" style={{ left: hover.x + 10, top: hover.y + 10 }}>
          <b>{hover.point.name || hover.point.pubKey.slice(0, 8)}</b><br />
          {hover.point.role} · {hover.point.status}<br />
          <span className="mono">{hover.point.lat.toFixed(4)}, {hover.point.lon.toFixed(4)}</span>
        </div>
      )}
      <div className="map-controls">
        <button type="button" onClick={() => setView(zoomAt(shown, width, height, width / 2, height / 2, 1.5))} aria-label="Zoom in">+</button>
        <button type="button" onClick={() => setView(zoomAt(shown, width, height, width / 2, height / 2, 1 / 1.5))} aria-label="Zoom out">−</button>
        <button type="button" onClick={() => setView(null)} title="Fit all nodes">Fit</button>
      </div>
    </div>
  );
}
