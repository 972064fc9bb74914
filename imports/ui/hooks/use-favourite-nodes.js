/**
 * The favourite nodes' directory rows (name, role, status, last heard…), for the Nodes page's
 * favourites filter and the Overview's favourites card. The `nodes` view takes no list of keys,
 * so this asks once for its largest page (500 most recently heard, shared by both uses) and
 * keeps the favourites; a favourite not in it is reported as `missing` (not heard lately, or
 * gone from the directory), never silently dropped.
 */
import { useMemo } from 'react';
import { useView } from './use-view';
import { useFavourites } from './use-favourites';
import { favouriteRows } from '../lib/favourites';

const DIRECTORY = { sort: 'lastSeen', limit: 500 };

export function useFavouriteNodes({ enabled = true } = {}) {
  const { favourites } = useFavourites();
  const active = enabled && favourites.length > 0;
  const view = useView('nodes', DIRECTORY, { enabled: active });
  const result = useMemo(() => {
    const rows = view.data ? favouriteRows(view.data.nodes, favourites) : [];
    const found = new Set(rows.map((row) => row.pubKey));
    return { rows, missing: view.data ? favourites.filter((key) => !found.has(key)) : [] };
  }, [view.data, favourites]);
  return { ...result, favourites, loading: active && view.loading, error: view.error, data: view.data };
}
