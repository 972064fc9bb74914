/**
 * The map's data: node positions from `places` (every known node with a position; its answer
 * moves only when a node changes, or once a minute for statuses) and links from `topology`'s
 * busiest adjacent hop pairs (see lib/map-data.js).
 */
import { useMemo } from 'react';
import { useView } from './use-view';
import { buildMapData } from '../lib/map-data';

const PLACES_PARAMS = {};

export function useMapData() {
  const places = useView('places', PLACES_PARAMS);
  // More pairs than the Topology tab's 15: the map can only draw pairs whose hops resolve.
  const topology = useView('topology', { pairs: 200 });
  const map = useMemo(
    () => buildMapData(places.data ? places.data.places : [], topology.data ? topology.data.pairs : []),
    [places.data, topology.data],
  );
  return {
    ...map,
    totalNodes: places.data ? places.data.total : null,
    loading: places.loading && !places.data,
    error: places.error || topology.error,
  };
}
