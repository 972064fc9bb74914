/**
 * Observer id -> { name, region } from the `observers` view, for pages that list observer ids.
 * Every page asking shares one subscription (see lib/view-sources.js). Scoped to the header's
 * region like every view; `allRegions` asks for every observer (the region picker's choices).
 */
import { useMemo } from 'react';
import { useView } from './use-view';
import { regionsOf } from '../lib/region-scope';

const EMPTY = new Map();

export function useObservers({ allRegions = false } = {}) {
  const { data, loading, error } = useView('observers', {}, { scoped: !allRegions });
  const byId = useMemo(() => (data ? new Map(data.observers.map((o) => [o.id, o])) : EMPTY), [data]);
  const regions = useMemo(() => (data ? regionsOf(data.observers) : []), [data]);
  return { observers: data ? data.observers : [], byId, regions, loading, error };
}
