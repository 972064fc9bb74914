/**
 * The Nodes page's controls (search, role, status, sort, order, page) and the `nodes` view
 * behind them; every filter, status included, is applied by the server view.
 */
import { useMemo, useState } from 'react';
import { useDebounced } from './use-debounced';
import { useView } from './use-view';

export const PAGE_SIZE = 100;

export function useNodeList() {
  const [search, setSearch] = useState('');
  const [role, setRole] = useState('');
  const [status, setStatus] = useState('');
  const [sort, setSort] = useState('lastSeen');
  const [order, setOrder] = useState('');
  const [offset, setOffset] = useState(0);
  const settledSearch = useDebounced(search.trim(), 300);
  const params = useMemo(() => {
    const next = { sort, limit: PAGE_SIZE, offset };
    if (settledSearch) next.search = settledSearch;
    if (role) next.role = role;
    if (status) next.status = status;
    if (order) next.order = order;
    return next;
  }, [settledSearch, role, status, sort, order, offset]);
  const view = useView('nodes', params);
  const rows = view.data ? view.data.nodes : [];
  // Any control change goes back to the first page.
  const reset = (setter) => (value) => { setter(value); setOffset(0); };
  return {
    ...view,
    rows,
    controls: {
      search, setSearch: reset(setSearch), role, setRole: reset(setRole), status, setStatus: reset(setStatus),
      sort, setSort: reset(setSort), order, setOrder: reset(setOrder), offset, setOffset,
    },
    paged: true,
  };
}
