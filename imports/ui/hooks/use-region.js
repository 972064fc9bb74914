/**
 * The region scope of every page: the `region` query param of the URL (so deep links carry it),
 * the views that accept it (read once from GET /api/spec, see lib/region-scope.js), and
 * useScopedParams(), which useView and useLivePackets pass all their params through.
 */
import { useMemo, useSyncExternalStore } from 'react';
import { setQueryParam } from '../lib/router';
import { regionViewsFromSpec, scopeParams, FALLBACK_REGION_VIEWS } from '../lib/region-scope';
import { useQueryParam } from './use-location';

let regionViews = null; // null until the contract has answered (or failed: then the fallback)
const listeners = new Set();
let requested = false;

function loadRegionViews() {
  if (requested || typeof fetch !== 'function') return;
  requested = true;
  const settle = (names) => {
    regionViews = names || FALLBACK_REGION_VIEWS;
    for (const listener of Array.from(listeners)) listener();
  };
  fetch('/api/spec', { headers: { accept: 'application/json' } })
    .then((response) => (response.ok ? response.json() : null))
    .then((document) => settle(regionViewsFromSpec(document)))
    .catch(() => settle(null)); // no contract: the views known to take `region`
}

function subscribeRegionViews(listener) {
  listeners.add(listener);
  loadRegionViews();
  return () => listeners.delete(listener);
}

/** The views accepting `region`, or null while the contract loads. */
export function useRegionViews() {
  return useSyncExternalStore(subscribeRegionViews, () => regionViews);
}

/** The chosen region ('' = all) and a setter that rewrites the URL in place. */
export function useRegion() {
  const region = useQueryParam('region');
  return { region, setRegion: (next) => setQueryParam('region', next || '') };
}

/**
 * `params` for view `name` within the chosen region: { params, ready }. With a region chosen,
 * `ready` is false until the contract says which views take it (a few ms after start-up), so
 * no view is first asked unscoped and then again scoped.
 */
export function useScopedParams(name, params, { scoped = true } = {}) {
  const region = useQueryParam('region');
  const views = useRegionViews();
  const active = scoped && Boolean(region);
  const scopedParams = useMemo(
    () => (active ? scopeParams(name, params, region, views) : params),
    [active, name, params, region, views],
  );
  return { params: scopedParams, ready: !active || views !== null };
}
