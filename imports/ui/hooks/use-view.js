/**
 * useView(name, params): one analytics view's snapshot, the same in both data modes:
 * reactive (publication `view.<name>`, document viewDocumentId(name, params)) or method
 * (`view.<name>` called every methodRefreshMs). Returns { data, loading, error, ageMs, stale }:
 * ageMs = now - data.generatedAt at render time (the header shows a ticking figure); stale =
 * the data shown is the previous params' while the new ones load (see use-source.js).
 */
import { useDataMode } from './use-data-mode';
import { useSource } from './use-source';

export function useView(name, params = {}, { enabled = true } = {}) {
  const { mode, refreshMs } = useDataMode();
  const state = useSource({ kind: 'view', name, params, mode, refreshMs }, { enabled });
  const { data } = state;
  const ageMs = data && data.generatedAt ? Math.max(0, Date.now() - data.generatedAt) : null;
  return { data, loading: state.loading, error: state.error, ageMs, stale: Boolean(state.stale) };
}
