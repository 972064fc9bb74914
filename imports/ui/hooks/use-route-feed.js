/**
 * Routes for the map (the `routes` view), live or replayed:
 *   live    the newest transmissions; each one not seen before animates along its path;
 *   replay  the transmissions in [at - windowMs, at] of the stored traffic (the slider's
 *           position); moving the slider or playing brings new ones in, which animate.
 * Returns { lines (drawn faintly: the window's routes), animating (lines with startedAt),
 * range: { from, until } the slider can cover (the last 24 h the store holds), inRange,
 * undrawable, loading, error }. Works the same in both data modes (useView).
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { useView } from './use-view';
import { useNow } from './use-now';
import { routeLines } from '../lib/map-data';

const DAY_MS = 24 * 3600 * 1000;
// How long one route's animation and its fading trail last on screen.
export const ROUTE_ANIMATION_MS = 4000;
// Most routes animating at once (a slider jump brings in a whole window).
const MAX_ANIMATING = 40;
// Slider positions are rounded so that a drag does not open a subscription per pixel.
const STEP_MS = 10000;
const SEEN_LIMIT = 5000;

export function routeParams(mode, at, windowMs) {
  if (mode !== 'replay' || !Number.isFinite(at)) return { limit: 40 };
  const to = Math.round(at / STEP_MS) * STEP_MS;
  return { from: Math.max(0, to - windowMs), to, limit: 300 };
}

export function useRouteFeed({ mode = 'live', at = null, windowMs = 10 * 60 * 1000 } = {}) {
  const params = useMemo(() => routeParams(mode, at, windowMs), [mode, at, windowMs]);
  const { data, loading, error } = useView('routes', params);
  const { lines, undrawable } = useMemo(() => routeLines(data ? data.routes : []), [data]);
  const seen = useRef(new Set());
  const [animating, setAnimating] = useState([]);
  const now = useNow(500);

  // New routes start animating; the seen set is bounded (oldest forgotten first).
  useEffect(() => {
    const fresh = [];
    for (const line of lines) {
      if (seen.current.has(line.key)) continue;
      seen.current.add(line.key);
      fresh.push(line);
    }
    while (seen.current.size > SEEN_LIMIT) seen.current.delete(seen.current.values().next().value);
    if (fresh.length === 0) return;
    const startedAt = Date.now();
    setAnimating((current) => current.concat(fresh.slice(-MAX_ANIMATING).map((line, i) => ({ ...line, startedAt, delayMs: i * 60 }))).slice(-MAX_ANIMATING));
  }, [lines]);

  // Finished animations leave.
  useEffect(() => {
    setAnimating((current) => {
      const kept = current.filter((line) => now - line.startedAt - line.delayMs < ROUTE_ANIMATION_MS);
      return kept.length === current.length ? current : kept;
    });
  }, [now]);

  const newest = data ? data.newest : null;
  const oldest = data ? data.oldest : null;
  // One object while the bounds stay: Play's timer restarts whenever `range` changes, and this
  // hook re-renders every 500 ms (useNow), which would restart it before it ever fired.
  const range = useMemo(() => (newest === null ? null : { from: Math.max(oldest, newest - DAY_MS), until: newest }), [oldest, newest]);
  return { lines, animating, undrawable, range, inRange: data ? data.inRange : 0, truncated: data ? data.truncated : false, loading: loading && !data, error };
}
