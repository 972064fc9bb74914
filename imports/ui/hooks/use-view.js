/**
 * useView(name, params): one analytics view's snapshot, the same in both data modes:
 * reactive (publication `view.<name>`, document viewDocumentId(name, params)) or method
 * (`view.<name>` called every methodRefreshMs). Returns { data, loading, error, ageMs, stale }:
 * ageMs = now - data.generatedAt at render time (the header shows a ticking figure); stale =
 * the data shown is the previous params' while the new ones load (see use-source.js).
 * Params are scoped to the header's region for views that accept `region` (use-region.js);
 * `scoped: false` opts out (the region picker's own list of observers).
 */
import { useDataMode } from './use-data-mode';
import { useSource } from './use-source';
import { useScopedParams } from './use-region';

const WAITING = Object.freeze({ data: null, loading: true, error: null, ageMs: null, stale: false });

export function useView(name, params = {}, { enabled = true, scoped = true } = {}) {
  const { mode, refreshMs } = useDataMode();
  const scope = useScopedParams(name, params, { scoped });
  const state = useSource({ kind: 'view', name, params: scope.params, mode, refreshMs }, { enabled: enabled && scope.ready });
  if (enabled && !scope.ready) return WAITING;
  const { data } = state;
  const ageMs = data && data.generatedAt ? Math.max(0, Date.now() - data.generatedAt) : null;
  return { data, loading: state.loading, error: state.error, ageMs, stale: Boolean(state.stale) };
}
