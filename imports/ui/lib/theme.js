'use strict';
/**
 * Dark or light: the choice kept in localStorage once made; on a first visit, the system's
 * `prefers-color-scheme`. Applied as `data-theme` on <html>: every colour in client/main.css
 * is a CSS variable whose value depends on it.
 */

const THEMES = Object.freeze(['dark', 'light']);
const THEME_STORAGE_KEY = 'meshpulse.theme';

/** The theme to start with: the stored choice when valid, else light only if the system prefers it. */
function initialTheme(stored, prefersLight) {
  if (THEMES.includes(stored)) return stored;
  return prefersLight ? 'light' : 'dark';
}

function otherTheme(theme) {
  return theme === 'light' ? 'dark' : 'light';
}

/** The theme this browser should show now (reads storage and the media query, both optional). */
function browserTheme(win = typeof window === 'undefined' ? null : window) {
  if (!win) return 'dark';
  let stored = null;
  try {
    stored = win.localStorage.getItem(THEME_STORAGE_KEY);
  } catch (err) {
    // storage blocked: follow the system
  }
  const prefersLight = Boolean(win.matchMedia && win.matchMedia('(prefers-color-scheme: light)').matches);
  return initialTheme(stored, prefersLight);
}

function applyTheme(theme, doc = typeof document === 'undefined' ? null : document) {
  if (!doc) return;
  doc.documentElement.setAttribute('data-theme', theme);
}

module.exports = { THEMES, THEME_STORAGE_KEY, initialTheme, otherTheme, browserTheme, applyTheme };
