/**
 * The dashboard theme as a tiny external store: read once (lib/theme.js), applied to <html>,
 * switched by the header toggle and remembered in localStorage.
 */
import { useSyncExternalStore } from 'react';
import { browserTheme, applyTheme, otherTheme, THEME_STORAGE_KEY } from '../lib/theme';

let theme = null;
const listeners = new Set();

function current() {
  if (theme === null) {
    theme = browserTheme();
    applyTheme(theme);
  }
  return theme;
}

export function setTheme(next) {
  theme = next;
  applyTheme(theme);
  try {
    window.localStorage.setItem(THEME_STORAGE_KEY, theme);
  } catch (err) {
    // not remembered, still switched
  }
  for (const listener of Array.from(listeners)) listener();
}

function subscribe(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useTheme() {
  const value = useSyncExternalStore(subscribe, current);
  return { theme: value, toggle: () => setTheme(otherTheme(value)) };
}

/** Apply the theme before React's first render, so a light-theme visitor sees no dark flash. */
export function applyInitialTheme() {
  current();
}
