'use strict';
/**
 * A tiny History-API router: the current path as an external store, navigate(), and route
 * matching with `:param` segments. No dependency: the dashboard has eleven flat routes, and
 * Meteor already serves the app's HTML for any path that is not an asset or /api.
 */

const listeners = new Set();

function currentPath() {
  return typeof window === 'undefined' ? '/' : window.location.pathname;
}

function notify() {
  for (const listener of Array.from(listeners)) listener();
}

if (typeof window !== 'undefined') window.addEventListener('popstate', notify);

function subscribeToPath(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Go to `path` (pushing a history entry unless `replace`), and scroll to the top. */
function navigate(path, { replace = false } = {}) {
  if (typeof window === 'undefined' || path === currentPath()) return;
  if (replace) window.history.replaceState(null, '', path);
  else window.history.pushState(null, '', path);
  window.scrollTo(0, 0);
  notify();
}

/** Params of `path` under `pattern` ("/nodes/:pubKey"), or null when it does not match. */
function matchRoute(pattern, path) {
  const want = pattern.split('/').filter(Boolean);
  const have = path.split('/').filter(Boolean);
  if (want.length !== have.length) return null;
  const params = {};
  for (let i = 0; i < want.length; i++) {
    if (want[i].startsWith(':')) {
      try {
        params[want[i].slice(1)] = decodeURIComponent(have[i]);
      } catch (err) {
        return null; // a malformed %-escape is no match, not a crash
      }
    } else if (want[i] !== have[i]) return null;
  }
  return params;
}

/** The first route whose pattern matches: { route, params }, or null. */
function resolveRoute(routes, path) {
  for (const route of routes) {
    const params = matchRoute(route.path, path);
    if (params) return { route, params };
  }
  return null;
}

module.exports = { currentPath, subscribeToPath, navigate, matchRoute, resolveRoute };
