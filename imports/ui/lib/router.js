'use strict';
/**
 * A tiny History-API router: the current path and query as an external store, navigate(), and
 * route matching with `:param` segments. No dependency: the dashboard has eleven flat routes,
 * and Meteor already serves the app's HTML for any path that is not an asset or /api.
 *
 * Sticky query params (`region`) scope every page: navigate() and <Link> carry them to the next
 * path unless it sets them itself, so a deep link (`/nodes?region=SFO`) stays scoped while the
 * user clicks around, and a copied URL reopens the same scope.
 */

const STICKY_PARAMS = ['region'];
const listeners = new Set();

function currentPath() {
  return typeof window === 'undefined' ? '/' : window.location.pathname;
}

function currentSearch() {
  return typeof window === 'undefined' ? '' : window.location.search;
}

function notify() {
  for (const listener of Array.from(listeners)) listener();
}

if (typeof window !== 'undefined') window.addEventListener('popstate', notify);

function subscribeToPath(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** One query param of `search` ("?a=1&region=SFO"), or '' when absent. */
function queryParam(search, name) {
  return new URLSearchParams(search || '').get(name) || '';
}

/** `path` with the sticky params of `search` added, unless `path` sets them itself. */
function withStickyParams(path, search = currentSearch()) {
  const [pathname, query = ''] = String(path).split('?');
  const target = new URLSearchParams(query);
  const current = new URLSearchParams(search || '');
  for (const name of STICKY_PARAMS) {
    if (!target.has(name) && current.get(name)) target.set(name, current.get(name));
  }
  const text = target.toString();
  return text ? `${pathname}?${text}` : pathname;
}

/** `search` with `name` set to `value` ('' removes it), as "?…" or ''. */
function withQueryParam(search, name, value) {
  const params = new URLSearchParams(search || '');
  if (value) params.set(name, value);
  else params.delete(name);
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** Go to `path` (pushing a history entry unless `replace`), keeping sticky params; scroll to the top. */
function navigate(path, { replace = false } = {}) {
  if (typeof window === 'undefined') return;
  const target = withStickyParams(path);
  if (target === currentPath() + currentSearch()) return;
  if (replace) window.history.replaceState(null, '', target);
  else window.history.pushState(null, '', target);
  window.scrollTo(0, 0);
  notify();
}

/** Set one query param of the current URL in place (no history entry, no scroll). */
function setQueryParam(name, value) {
  if (typeof window === 'undefined') return;
  const search = withQueryParam(currentSearch(), name, value);
  if (search === currentSearch()) return;
  window.history.replaceState(null, '', currentPath() + search + window.location.hash);
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

module.exports = {
  currentPath, currentSearch, subscribeToPath, navigate, setQueryParam, queryParam, withStickyParams, withQueryParam,
  matchRoute, resolveRoute, STICKY_PARAMS,
};
