/** Observers: every reporting station with its region, first/last seen and packet counts. */
import React from 'react';
import { useView } from '../../hooks/use-view';
import { useNow } from '../../hooks/use-now';
import { ViewState } from '../../components/ViewState';
import { Card } from '../../components/Card';
import { HBarList } from '../../components/HBarList';
import { formatAgo, formatDateTime, formatNumber, shortKey } from '../../lib/format';

export function ObserversTab() {
  const { data, loading, error } = useView('observers', {});
  const now = useNow(5000);
  return (
    <ViewState loading={loading} error={error} hasData={Boolean(data)} empty={data && data.observers.length === 0} emptyText="No observer has reported yet.">
      {data && (
        <div className="grid-2">
          <Card title="Observers" subtitle={`${data.observers.length} reporting`}>
            <table className="table">
              <thead><tr><th>Name</th><th>Id</th><th>Region</th><th className="num">Last seen</th><th className="num">First seen</th><th className="num">Packets</th><th className="num">Last hour</th></tr></thead>
              <tbody>
                {data.observers.map((o) => (
                  <tr key={o.id}>
                    <td>{o.name || '—'}</td>
                    <td className="mono muted" title={o.id}>{shortKey(o.id)}</td>
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
            <HBarList items={data.observers.map((o) => ({ key: o.id, label: o.name || shortKey(o.id), sub: o.region, value: o.packetsLastHour }))} />
          </Card>
        </div>
      )}
    </ViewState>
  );
}
