/**
 * The Nodes page's controls (search, role, status, sort, order, page) and the `nodes` view
 * behind them. The view has no status filter, so a status choice asks for the view's largest
 * page (500) and filters it here; the count shown says so.
 */
import { useMemo, useState } from 'react';
import { useDebounced } from './use-debounced';
import { useView } from './use-view';

export const PAGE_SIZE = 100;
const MAX_PAGE = 500;

export function useNodeList() {
  const [search, setSearch] = useState('');
  const [role, setRole] = useState('');
  const [status, setStatus] = useState('');
  const [sort, setSort] = useState('lastSeen');
  const [order, setOrder] = useState('');
  const [offset, setOffset] = useState(0);
  const settledSearch = useDebounced(search.trim(), 300);
  const params = useMemo(() => {
    const next = { sort, limit: status ? MAX_PAGE : PAGE_SIZE, offset: status ? 0 : offset };
    if (settledSearch) next.search = settledSearch;
    if (role) next.role = role;
    if (order) next.order = order;
    return next;
  }, [settledSearch, role, status, sort, order, offset]);
  const view = useView('nodes', params);
  const rows = useMemo(() => {
    if (!view.data) return [];
    return status ? view.data.nodes.filter((node) => node.status === status) : view.data.nodes;
  }, [view.data, status]);
  // Any control change goes back to the first page.
  const reset = (setter) => (value) => { setter(value); setOffset(0); };
  return {
    ...view,
    rows,
    controls: {
      search, setSearch: reset(setSearch), role, setRole: reset(setRole), status, setStatus: reset(setStatus),
      sort, setSort: reset(setSort), order, setOrder: reset(setOrder), offset, setOffset,
    },
    paged: !status,
  };
}
