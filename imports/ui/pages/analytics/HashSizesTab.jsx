/** Hash sizes: 1/2/3-byte hop hashes overall and per time bucket (minute to hour, as the view picks), busiest hops, nodes behind multi-byte hashes. */
import React from 'react';
import { useView } from '../../hooks/use-view';
import { ViewState } from '../../components/ViewState';
import { Card } from '../../components/Card';
import { StatTile } from '../../components/StatTile';
import { TimeSeriesChart } from '../../components/TimeSeriesChart';
import { HBarList } from '../../components/HBarList';
import { HopLabel } from '../../components/HopLabel';
import { NodeLink } from '../../components/NodeLink';
import { formatNumber, formatPct } from '../../lib/format';
import { bucketMsOf, perBucketText } from '../../lib/time-buckets';

const SIZE_COLORS = { 1: 'var(--accent)', 2: 'var(--accent-2)', 3: 'var(--accent-3)' };
const HASH_PARAMS = { bucket: 'auto' };

export function HashSizesTab() {
  const { data, loading, error } = useView('hashSizes', HASH_PARAMS);
  const stats = useView('stats', {});
  return (
    <ViewState loading={loading} error={error} hasData={Boolean(data)} empty={data && data.transmissions === 0} emptyText="No multi-hop packets yet.">
      {data && (
        <>
          <div className="stat-grid compact">
            {data.distribution.map((d) => (
              <StatTile key={d.hashSize} label={`${d.hashSize}-byte hashes`} value={formatPct(100 * d.share)} sub={`${formatNumber(d.transmissions)} transmissions`} />
            ))}
            <StatTile label="Multi-byte nodes" value={formatNumber(data.multiByte.nodeCount)} sub={`${formatNumber(data.multiByte.ambiguousCount)} ambiguous prefixes`} />
          </div>
          <div className="grid-2">
            <Card title={`Transmissions ${perBucketText(data.bucket)}`} subtitle={data.units.perBucket}>
              <TimeSeriesChart bucketMs={bucketMsOf(data.bucket)} from={stats.data ? stats.data.oldest : null} until={data.generatedAt} series={[1, 2, 3].map((size) => ({ name: `${size} byte`, color: SIZE_COLORS[size], points: (data.perBucket || []).map((b) => ({ x: b.time, y: b.bySize[size] })) }))} />
            </Card>
            <Card title="Busiest hops" subtitle={data.units.hops}>
              <HBarList items={data.hops.slice(0, 15).map((h) => ({ key: h.hop, label: <HopLabel hop={h} />, sub: `${h.hashSize} B`, value: h.count }))} />
            </Card>
          </div>
          <Card title="Nodes seen behind 2- and 3-byte hashes" subtitle={data.units.multiByte}>
            <table className="table">
              <thead><tr><th>Node</th><th>Role</th><th>Hash sizes</th><th>Prefixes</th><th className="num">Appearances</th></tr></thead>
              <tbody>
                {data.multiByte.nodes.map((n) => (
                  <tr key={n.pubKey}>
                    <td><NodeLink pubKey={n.pubKey} name={n.name} /></td>
                    <td>{n.role}</td>
                    <td className="num">{n.hashSizes.join(', ')}</td>
                    <td className="mono small">{n.prefixes.join(' ')}</td>
                    <td className="num">{formatNumber(n.count)}</td>
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
