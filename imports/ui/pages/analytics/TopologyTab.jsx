/** Topology: hop-count distribution, busiest repeaters and adjacent pairs, SNR by hops, reach per observer. */
import React from 'react';
import { useView } from '../../hooks/use-view';
import { ViewState } from '../../components/ViewState';
import { Card } from '../../components/Card';
import { StatTile } from '../../components/StatTile';
import { BarChart } from '../../components/BarChart';
import { HBarList } from '../../components/HBarList';
import { HopLabel } from '../../components/HopLabel';
import { NodeLink } from '../../components/NodeLink';
import { repeaterRows, pairRows } from '../../lib/topology-rows';
import { formatDecimal, formatNumber } from '../../lib/format';

export function TopologyTab() {
  const { data, loading, error } = useView('topology', {});
  return (
    <ViewState loading={loading} error={error} hasData={Boolean(data)} empty={data && data.observations === 0} emptyText="No paths heard yet.">
      {data && (
        <>
          <div className="stat-grid compact">
            <StatTile label="Observations" value={formatNumber(data.observations)} sub={`${formatNumber(data.traceObservations)} TRACE left out`} />
            <StatTile label="Mean hops" value={formatDecimal(data.hops.mean, 2)} />
            <StatTile label="Median hops" value={formatDecimal(data.hops.median, 1)} />
            <StatTile label="Max hops" value={data.hops.max ?? '—'} />
          </div>
          <div className="grid-2">
            <Card title="Hop distribution" subtitle={data.units.hops}>
              <BarChart data={data.hops.distribution.map((d) => ({ label: String(d.hops), value: d.count }))} />
            </Card>
            <Card title="Mean SNR by hop count" subtitle={data.units.hopsVsSnr}>
              <BarChart data={data.hopsVsSnr.map((d) => ({ label: String(d.hops), value: d.meanSnr, title: `${d.hops} hops: ${formatDecimal(d.meanSnr)} dB over ${formatNumber(d.snrCount)}` }))}
                color="var(--accent-2)" valueFormat={(v) => formatDecimal(v, 0)} />
            </Card>
            <Card title="Top repeaters" subtitle={data.units.repeaters}>
              <HBarList items={repeaterRows(data.repeaters).map(({ key, nodeKey, count, via, row }) => ({
                key,
                // A known repeater once, whatever hash sizes its hops had (its keys listed).
                label: <HopLabel hop={{ ...row, hop: via.join(' · ') }} />,
                value: count,
              }))} />
            </Card>
            <Card title="Top adjacent pairs" subtitle={data.units.pairs}>
              <HBarList items={pairRows(data.pairs).map(({ key, nodeKey, count, via, row }) => ({
                key,
                // A known node pair once, with the hop pairs it was seen as when there are several.
                label: nodeKey && via.length > 1
                  ? <><NodeLink pubKey={row.from.node.pubKey} name={row.from.node.name} /> → <NodeLink pubKey={row.to.node.pubKey} name={row.to.node.name} /> <span className="mono muted small">{via.map((pair) => pair.replace(',', '→')).join(' · ')}</span></>
                  : <><HopLabel hop={row.from} /> → <HopLabel hop={row.to} /></>,
                value: count,
              }))} color="var(--accent-3)" wide />
            </Card>
          </div>
          <Card title="Reach per observer" subtitle={data.units.observers}>
            <table className="table">
              <thead><tr><th>Observer</th><th>Region</th><th className="num">Observations</th><th className="num">Distinct hops</th><th className="num">Mean hops</th><th className="num">Max hops</th></tr></thead>
              <tbody>
                {data.observers.map((o) => (
                  <tr key={o.id}>
                    <td title={o.id}>{o.name || o.id.slice(0, 8)}</td>
                    <td>{o.region || '—'}</td>
                    <td className="num">{formatNumber(o.observations)}</td>
                    <td className="num">{formatNumber(o.distinctHops)}</td>
                    <td className="num">{formatDecimal(o.meanHops, 2)}</td>
                    <td className="num">{o.maxHops ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Card>
        </>
      )}
    </ViewState>
  );
}
