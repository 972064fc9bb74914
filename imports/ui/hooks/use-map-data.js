/**
 * The map's data: node positions from `nodes` (the 500 most recently heard, the view's page
 * limit) and links from `topology`'s busiest adjacent hop pairs (see lib/map-data.js).
 */
import { useMemo } from 'react';
import { useView } from './use-view';
import { buildMapData } from '../lib/map-data';

const NODE_PARAMS = { limit: 500 };

export function useMapData() {
  const nodes = useView('nodes', NODE_PARAMS);
  // More pairs than the Topology tab's 15: the map can only draw pairs whose hops resolve.
  const topology = useView('topology', { pairs: 200 });
  const map = useMemo(
    () => buildMapData(nodes.data ? nodes.data.nodes : [], topology.data ? topology.data.pairs : []),
    [nodes.data, topology.data],
  );
  return {
    ...map,
    totalNodes: nodes.data ? nodes.data.total : null,
    loading: nodes.loading && !nodes.data,
    error: nodes.error || topology.error,
  };
}
