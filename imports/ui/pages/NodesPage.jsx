/**
 * Nodes: the directory with search, role and status filters, sorting, paging and status counts;
 * a star on each row keeps a node among this browser's favourites, and a filter shows only them.
 */
import React, { useRef, useState } from 'react';
import { useNodeList, PAGE_SIZE } from '../hooks/use-node-list';
import { useNow } from '../hooks/use-now';
import { PageHeader } from '../components/PageHeader';
import { ViewState } from '../components/ViewState';
import { Select } from '../components/Select';
import { SearchBox } from '../components/SearchBox';
import { Pager } from '../components/Pager';
import { NodeLink } from '../components/NodeLink';
import { RoleBadge } from '../components/RoleBadge';
import { StatusBadge } from '../components/StatusBadge';
import { StatTile } from '../components/StatTile';
import { FavouriteStar } from '../components/FavouriteStar';
import { useFavouriteNodes } from '../hooks/use-favourite-nodes';
import { revealTop } from '../hooks/use-reveal';
import { formatAgo, formatNumber, shortKey } from '../lib/format';
import { ROLES, NODE_STATUSES } from '../lib/mesh-constants';

const ROLE_OPTIONS = Object.values(ROLES).map((role) => ({ value: role, label: role }));
const STATUS_OPTIONS = NODE_STATUSES.map((status) => ({ value: status, label: status }));
const SORT_OPTIONS = [
  { value: 'lastSeen', label: 'last heard' },
  { value: 'name', label: 'name' },
  { value: 'packets', label: 'packets' },
];
const ORDER_OPTIONS = [{ value: 'asc', label: 'ascending' }, { value: 'desc', label: 'descending' }];

function NodeRows({ rows, now }) {
  return (
    <div className="table-wrap">
      <table className="table">
        <thead>
          <tr><th className="star-col" title="Favourite">★</th><th>Name</th><th className="hide-phone">Key</th><th>Role</th><th>Status</th><th className="num">Last heard</th><th className="num">Packets</th><th className="num hide-phone">Adverts</th><th className="hide-phone">Position</th></tr>
        </thead>
        <tbody>
          {rows.map((node) => (
            <tr key={node.pubKey}>
              <td className="star-col"><FavouriteStar pubKey={node.pubKey} name={node.name} /></td>
              <td><NodeLink pubKey={node.pubKey} name={node.name} /></td>
              <td className="mono muted hide-phone">{shortKey(node.pubKey)}</td>
              <td><RoleBadge role={node.role} /></td>
              <td><StatusBadge status={node.status} /></td>
              <td className="num">{formatAgo(node.lastSeen, now)}</td>
              <td className="num">{formatNumber(node.packets)}</td>
              <td className="num hide-phone">{formatNumber(node.adverts)}</td>
              <td className="mono muted small hide-phone">{Number.isFinite(node.lat) && (node.lat || node.lon) ? `${node.lat.toFixed(3)}, ${node.lon.toFixed(3)}` : '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The favourites filter: only starred nodes, whatever the other controls say. */
function FavouriteNodes({ now }) {
  const favourites = useFavouriteNodes();
  if (favourites.favourites.length === 0) return <div className="state state-empty">No favourites yet: star a node (☆) to keep it here.</div>;
  return (
    <ViewState loading={favourites.loading} error={favourites.error} hasData={Boolean(favourites.data)}>
      <NodeRows rows={favourites.rows} now={now} />
      {favourites.missing.length > 0 && (
        <p className="muted small" data-testid="favourites-missing">
          {formatNumber(favourites.missing.length)} favourite{favourites.missing.length === 1 ? '' : 's'} not in the node directory (forgotten, or not heard in this region): {favourites.missing.map((key) => shortKey(key)).join(', ')}
        </p>
      )}
    </ViewState>
  );
}

export function NodesPage() {
  const [onlyFavourites, setOnlyFavourites] = useState(false);
  const { data, loading, error, rows, controls, paged } = useNodeList();
  const now = useNow(5000);
  const listRef = useRef(null);
  // Prev/Next sit below the list: a new page starts at its first row, not where the last one ended.
  const turnPage = (offset) => {
    controls.setOffset(offset);
    revealTop(listRef.current);
  };
  const counts = data ? data.statusCounts : null;
  return (
    <>
      <PageHeader title="Nodes" subtitle="Every node heard, with its status from when it was last heard." busy={loading && Boolean(data)} />
      {counts && (
        <div className="stat-grid compact">
          <StatTile label="Known nodes" value={formatNumber(counts.active + counts.degraded + counts.silent)} />
          <StatTile label="Active" value={formatNumber(counts.active)} tone="good" />
          <StatTile label="Degraded" value={formatNumber(counts.degraded)} tone="warn" />
          <StatTile label="Silent" value={formatNumber(counts.silent)} tone="bad" />
        </div>
      )}
      <div className="filters">
        <SearchBox label="Search" name="search" value={controls.search} onChange={controls.setSearch} placeholder="name or key prefix" width={200} />
        <Select label="Role" name="role" value={controls.role} onChange={controls.setRole} options={ROLE_OPTIONS} />
        <Select label="Status" name="status" value={controls.status} onChange={controls.setStatus} options={STATUS_OPTIONS} />
        <Select label="Sort by" name="sort" value={controls.sort} onChange={controls.setSort} options={SORT_OPTIONS} anyLabel={null} />
        <Select label="Order" name="order" value={controls.order} onChange={controls.setOrder} options={ORDER_OPTIONS} anyLabel="natural" />
        <label className="check">
          <input type="checkbox" name="favourites" data-testid="favourites-filter" checked={onlyFavourites} onChange={(event) => setOnlyFavourites(event.target.checked)} />
          ★ favourites only
        </label>
        {data && !onlyFavourites && <span className="hint num">{paged ? `${formatNumber(data.total)} match` : `${formatNumber(rows.length)} ${controls.status} of the first ${formatNumber(data.nodes.length)}`}</span>}
      </div>
      {onlyFavourites ? <FavouriteNodes now={now} /> : (
        <div ref={listRef} data-testid="node-list">
          <ViewState loading={loading} error={error} hasData={Boolean(data)} empty={data && rows.length === 0} emptyText="No node matches.">
            <NodeRows rows={rows} now={now} />
            {paged && data && <Pager offset={controls.offset} limit={PAGE_SIZE} total={data.total} onChange={turnPage} />}
          </ViewState>
        </div>
      )}
    </>
  );
}
