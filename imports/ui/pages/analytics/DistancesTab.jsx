/**
 * Distances: how long the mesh's radio links are (the `distances` view, scoped to the header's
 * region like every view): links between adjacent hops that each name one placed node, as a
 * histogram by distinct links and by sightings, the traffic-weighted mean and median, and the
 * longest links with both ends.
 */
import React, { useState } from 'react';
import { useView } from '../../hooks/use-view';
import { useNow } from '../../hooks/use-now';
import { ViewState } from '../../components/ViewState';
import { Card } from '../../components/Card';
import { StatTile } from '../../components/StatTile';
import { BarChart } from '../../components/BarChart';
import { Select } from '../../components/Select';
import { NodeLink } from '../../components/NodeLink';
import { Clip } from '../../components/Clip';
import { formatAgo, formatKm, formatNumber } from '../../lib/format';
import { distanceBars } from '../../lib/distance-bars';

const LIMITS = [10, 20, 50, 100, 200].map((n) => ({ value: String(n), label: String(n) }));

export function DistancesTab() {
  const [limit, setLimit] = useState('20');
  const { data, loading, error } = useView('distances', { limit: Number(limit) });
  const now = useNow(5000);
  return (
    <div data-testid="distances-tab">
      <div className="filters">
        <Select label="Longest links" name="limit" value={limit} onChange={setLimit} options={LIMITS} anyLabel={null} />
        {data && <span className="hint num">{formatNumber(data.observations)} stored paths with 2+ distinct hops</span>}
      </div>
      <ViewState loading={loading} error={error} hasData={Boolean(data)} empty={data && data.links === 0}
        emptyText="No link between two placed nodes yet: a link counts once both adjacent hops name one known node with a position.">
        {data && (
          <>
            <div className="stat-grid compact" data-testid="distances-stats">
              <StatTile label="Links" value={formatNumber(data.links)} sub="distinct node pairs" />
              <StatTile label="Sightings" value={formatNumber(data.sightings)} sub="adjacent hops, both ends placed" />
              <StatTile label="Mean length" value={formatKm(data.meanKm)} sub="weighted by sightings" />
              <StatTile label="Median length" value={formatKm(data.medianKm)} sub="weighted by sightings" />
              <StatTile label="Longest" value={formatKm(data.longest.length > 0 ? data.longest[0].km : null)} />
            </div>
            <div className="grid-2">
              <Card title="Links by length" subtitle="distinct node pairs per km bin">
                <BarChart data={distanceBars(data.histogram, 'links')} yLabel="links" />
              </Card>
              <Card title="Sightings by length" subtitle="adjacent hops per km bin">
                <BarChart data={distanceBars(data.histogram, 'sightings')} color="var(--accent-2)" yLabel="sightings" />
              </Card>
            </div>
            <Card title="Longest links" subtitle={data.units.km}>
              <div className="table-wrap">
                <table className="table" data-testid="distances-longest">
                  <thead>
                    <tr><th>From</th><th>To</th><th className="num">Length</th><th className="num">Sightings</th><th className="num">Last seen</th></tr>
                  </thead>
                  <tbody>
                    {data.longest.map((link) => (
                      <tr key={`${link.a.pubKey}|${link.b.pubKey}`}>
                        <td><Clip className="cell-clip"><NodeLink pubKey={link.a.pubKey} name={link.a.name} /></Clip></td>
                        <td><Clip className="cell-clip"><NodeLink pubKey={link.b.pubKey} name={link.b.name} /></Clip></td>
                        <td className="num">{formatKm(link.km)}</td>
                        <td className="num">{formatNumber(link.count)}</td>
                        <td className="num nowrap">{formatAgo(link.lastSeen, now)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </Card>
          </>
        )}
      </ViewState>
    </div>
  );
}
