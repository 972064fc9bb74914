/** The current path (re-rendering on navigation) and the route it matches. */
import { useSyncExternalStore } from 'react';
import { currentPath, subscribeToPath, resolveRoute } from '../lib/router';

export function usePath() {
  return useSyncExternalStore(subscribeToPath, currentPath);
}

export function useRoute(routes) {
  const path = usePath();
  return { path, ...(resolveRoute(routes, path) || { route: null, params: {} }) };
}
