/**
 * Data mode for the whole dashboard: 'reactive' (subscriptions) or 'method' (method calls every
 * settings.public.methodRefreshMs and after each user action). Chosen in the header, kept in
 * localStorage so a reload keeps it; the default comes from settings.public.defaultDataMode.
 */
import React, { createContext, useCallback, useContext, useMemo, useState } from 'react';
import { publicSettings } from '../lib/settings';
import { viewSources } from '../lib/sources';

const STORAGE_KEY = 'meshpulse.dataMode';
const MODES = ['reactive', 'method'];

const DataModeContext = createContext(null);

function storedMode(fallback) {
  try {
    const value = window.localStorage.getItem(STORAGE_KEY);
    return MODES.includes(value) ? value : fallback;
  } catch (err) {
    return fallback; // storage blocked (privacy mode): use the default
  }
}

export function DataModeProvider({ children }) {
  const settings = publicSettings();
  const [mode, setModeState] = useState(() => storedMode(settings.defaultDataMode));
  const setMode = useCallback((next) => {
    if (!MODES.includes(next)) return;
    try {
      window.localStorage.setItem(STORAGE_KEY, next);
    } catch (err) {
      // not persisted, still switched
    }
    setModeState(next);
  }, []);
  const value = useMemo(() => ({
    mode,
    setMode,
    refreshMs: settings.methodRefreshMs,
    // Method mode re-asks the server after a user action instead of waiting for the next tick.
    refreshNow: () => viewSources.refreshAll(),
  }), [mode, setMode, settings.methodRefreshMs]);
  return <DataModeContext.Provider value={value}>{children}</DataModeContext.Provider>;
}

export function useDataMode() {
  const value = useContext(DataModeContext);
  if (!value) throw new Error('useDataMode needs a <DataModeProvider> above it');
  return value;
}

export { MODES as DATA_MODES };
