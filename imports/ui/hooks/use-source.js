/**
 * Subscribe a component to one shared source (see lib/view-sources.js). Shared by useView and
 * useLivePackets.
 *   enabled = false  no source at all (e.g. an invalid URL parameter).
 *   paused = true    the source is released (a paused live feed costs the client nothing) and
 *                    the component keeps showing what it showed when paused.
 * While a new source (new params, new mode, resuming) has no data yet, the last data stays on
 * screen with `stale: true`, so a filter change or Resume never blanks the page.
 */
import { useCallback, useRef, useSyncExternalStore } from 'react';
import { viewSources } from '../lib/sources';
import { sourceKey, INITIAL_STATE } from '../lib/view-sources';

const DISABLED_STATE = Object.freeze({ ...INITIAL_STATE, loading: false });

export function useSource(spec, { enabled = true, paused = false } = {}) {
  const key = sourceKey(spec);
  const specRef = useRef(spec);
  specRef.current = spec;
  const active = enabled && !paused;
  const shownRef = useRef(INITIAL_STATE);

  const subscribe = useCallback((onChange) => {
    if (!active) return () => {};
    const source = viewSources.acquire(specRef.current);
    const stopListening = source.subscribe(onChange);
    onChange(); // a shared source may already hold data newer than our first render saw
    return () => {
      stopListening();
      viewSources.release(source);
    };
  }, [key, active]);

  const getSnapshot = useCallback(() => {
    if (!enabled) return DISABLED_STATE;
    if (paused) return shownRef.current;
    const state = viewSources.peek(key);
    const previous = shownRef.current;
    if (state.data === null && state.loading && previous.data !== null) {
      // Same object on every call while loading (useSyncExternalStore needs a stable snapshot).
      if (!previous.stale) shownRef.current = Object.freeze({ ...previous, loading: true, stale: true });
      return shownRef.current;
    }
    shownRef.current = state;
    return state;
  }, [key, enabled, paused]);

  return useSyncExternalStore(subscribe, getSnapshot);
}
