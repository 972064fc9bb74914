/**
 * Observers: every reporting station with its region, first/last seen and packet counts, sorted
 * by a column (click a heading; busiest in the last hour first), one line per observer; each name
 * and id links to its observer page (/observers/:id, keeping the region scope), as node names do.
 */
import React, { useMemo, useState } from 'react';
import { useView } from '../../hooks/use-view';
import { useNow } from '../../hooks/use-now';
import { ViewState } from '../../components/ViewState';
import { Card } from '../../components/Card';
import { HBarList } from '../../components/HBarList';
import { Clip } from '../../components/Clip';
import { Link } from '../../components/Link';
import { observerPath } from '../../components/ObserverLabel';
import { formatAgo, formatDateTime, formatNumber, shortKey } from '../../lib/format';
import { sortRows } from '../../lib/sort-rows';

const COLUMNS = [
  { key: 'name', label: 'Name', value: (o) => o.name || o.id },
  { key: 'id', label: 'Id', value: (o) => o.id },
  { key: 'region', label: 'Region', value: (o) => o.region },
  { key: 'lastSeen', label: 'Last seen', value: (o) => o.lastSeen, num: true, descendingFirst: true },
  { key: 'firstSeen', label: 'First seen', value: (o) => o.firstSeen, num: true },
  { key: 'packets', label: 'Packets', value: (o) => o.packets, num: true, descendingFirst: true },
  { key: 'packetsLastHour', label: 'Last hour', value: (o) => o.packetsLastHour, num: true, descendingFirst: true },
];

export function ObserversTab() {
  const { data, loading, error } = useView('observers', {});
  const now = useNow(5000);
  const [sort, setSort] = useState({ key: 'packetsLastHour', descending: true });
  const column = COLUMNS.find((c) => c.key === sort.key);
  const rows = useMemo(() => (data ? sortRows(data.observers, column.value, sort.descending) : []), [data, column, sort.descending]);
  const sortBy = (next) => setSort((current) => (current.key === next.key
    ? { key: next.key, descending: !current.descending }
    : { key: next.key, descending: Boolean(next.descendingFirst) }));
  return (
    <ViewState loading={loading} error={error} hasData={Boolean(data)} empty={data && data.observers.length === 0} emptyText="No observer has reported yet.">
      {data && (
        <div className="stack">
          <Card title="Observers" subtitle={`${formatNumber(data.observers.length)} reporting`}>
            <table className="table nowrap-table" data-testid="observers-table">
              <thead>
                <tr>
                  {COLUMNS.map((c) => (
                    <th key={c.key} className={`sortable${c.num ? ' num' : ''}${sort.key === c.key ? ' sorted' : ''}`} onClick={() => sortBy(c)}
                      aria-sort={sort.key === c.key ? (sort.descending ? 'descending' : 'ascending') : 'none'}>
                      {c.label}{sort.key === c.key ? (sort.descending ? ' ▾' : ' ▴') : ''}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {rows.map((o) => (
                  <tr key={o.id}>
                    <td><Clip as="span" className="cell-clip"><Link to={observerPath(o.id)} className="observer-link">{o.name || shortKey(o.id)}</Link></Clip></td>
                    <td className="mono muted" title={o.id}><Link to={observerPath(o.id)}>{shortKey(o.id)}</Link></td>
                    <td>{o.region || '—'}</td>
                    <td className="num">{formatAgo(o.lastSeen, now)}</td>
                    <td className="num">{formatDateTime(o.firstSeen)}</td>
                    <td className="num">{formatNumber(o.packets)}</td>
                    <td className="num">{formatNumber(o.packetsLastHour)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Card>
          <Card title="Packets in the last hour">
            <HBarList items={rows.slice().sort((a, b) => (b.packetsLastHour || 0) - (a.packetsLastHour || 0)).map((o) => ({
              key: o.id, label: <Link to={observerPath(o.id)}>{o.name || shortKey(o.id)}</Link>, sub: o.region, value: o.packetsLastHour,
            }))} />
          </Card>
        </div>
      )}
    </ViewState>
  );
}
