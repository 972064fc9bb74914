/**
 * The favourite nodes' directory rows (name, role, status, last heard…), for the Nodes page's
 * favourites filter and the Overview's favourites card. Asks the `nodes` view for exactly the
 * favourites (its `keys` param), so a favourite shows however long ago it was heard; one the
 * directory does not know (gone from it, or not heard in the chosen region) is reported as
 * `missing`, never silently dropped.
 */
import { useMemo } from 'react';
import { useView } from './use-view';
import { useFavourites } from './use-favourites';
import { favouritesParams, favouriteMatches } from '../lib/favourites';

const NONE = Object.freeze({});

export function useFavouriteNodes({ enabled = true } = {}) {
  const { favourites } = useFavourites();
  const active = enabled && favourites.length > 0;
  const params = useMemo(() => favouritesParams(favourites) || NONE, [favourites]);
  const view = useView('nodes', params, { enabled: active });
  // While a new set loads, the previous answer stays on screen: a node just starred is not "missing".
  const result = useMemo(() => {
    if (!view.data) return { rows: [], missing: [] };
    const matches = favouriteMatches(view.data.nodes, favourites);
    return view.stale ? { ...matches, missing: [] } : matches;
  }, [view.data, view.stale, favourites]);
  return { ...result, favourites, loading: active && view.loading, error: view.error, data: view.data };
}
