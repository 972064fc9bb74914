/** The current path and query (re-rendering on navigation), the route it matches, one query param. */
import { useSyncExternalStore } from 'react';
import { currentPath, currentSearch, subscribeToPath, resolveRoute, queryParam } from '../lib/router';

export function usePath() {
  return useSyncExternalStore(subscribeToPath, currentPath);
}

export function useSearch() {
  return useSyncExternalStore(subscribeToPath, currentSearch);
}

export function useQueryParam(name) {
  return queryParam(useSearch(), name);
}

export function useRoute(routes) {
  const path = usePath();
  return { path, ...(resolveRoute(routes, path) || { route: null, params: {} }) };
}
