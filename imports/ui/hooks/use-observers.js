/**
 * Observer id -> { name, region } from the `observers` view, for pages that list observer ids.
 * Every page asking shares one subscription (see lib/view-sources.js).
 */
import { useMemo } from 'react';
import { useView } from './use-view';

const EMPTY = new Map();

export function useObservers() {
  const { data, loading, error } = useView('observers', {});
  const byId = useMemo(() => (data ? new Map(data.observers.map((o) => [o.id, o])) : EMPTY), [data]);
  const regions = useMemo(() => {
    if (!data) return [];
    return Array.from(new Set(data.observers.map((o) => o.region).filter(Boolean))).sort();
  }, [data]);
  return { observers: data ? data.observers : [], byId, regions, loading, error };
}
