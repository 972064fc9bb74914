/** RF: SNR, RSSI and size histograms, packets per time bucket (minute to hour, as the view picks), per-type counts and SNR, SNR x RSSI scatter. */
import React from 'react';
import { useView } from '../../hooks/use-view';
import { ViewState } from '../../components/ViewState';
import { Card } from '../../components/Card';
import { StatTile } from '../../components/StatTile';
import { BarChart } from '../../components/BarChart';
import { TimeSeriesChart } from '../../components/TimeSeriesChart';
import { ScatterChart } from '../../components/ScatterChart';
import { TypeBadge } from '../../components/TypeBadge';
import { formatDb, formatDecimal, formatNumber } from '../../lib/format';
import { TYPE_COLORS } from '../../lib/mesh-constants';
import { bucketMsOf, perBucketText } from '../../lib/time-buckets';

const RF_PARAMS = { bucket: 'auto' };

function histogramBars(summary, digits = 0) {
  return summary.histogram.map((bin) => ({ label: bin.from.toFixed(digits), value: bin.count, title: `${bin.from.toFixed(1)} to ${bin.to.toFixed(1)}: ${formatNumber(bin.count)}` }));
}

function SummaryLine({ summary, unit }) {
  if (!summary.count) return <span className="muted">no data</span>;
  return (
    <span className="num small">
      min {formatDecimal(summary.min)} · median {formatDecimal(summary.median)} · mean {formatDecimal(summary.mean)} · max {formatDecimal(summary.max)} · σ {formatDecimal(summary.stdDev)} {unit}
    </span>
  );
}

export function RfTab() {
  const { data, loading, error } = useView('rf', RF_PARAMS);
  // The store's oldest packet: the first bucket's step starts there, not at its start.
  const stats = useView('stats', {});
  return (
    <ViewState loading={loading} error={error} hasData={Boolean(data)} empty={data && data.observations === 0} emptyText="No packets yet.">
      {data && (
        <>
          <div className="stat-grid compact">
            <StatTile label="Transmissions" value={formatNumber(data.transmissions)} />
            <StatTile label="Observations" value={formatNumber(data.observations)} />
            <StatTile label="Median SNR" value={formatDb(data.snr.median)} />
            <StatTile label="Median RSSI" value={formatDb(data.rssi.median, 'dBm')} />
            <StatTile label="Median size" value={`${formatDecimal(data.size.median, 0)} B`} />
          </div>
          <div className="grid-2">
            <Card title="SNR" subtitle={data.units.snr} actions={<SummaryLine summary={data.snr} unit="dB" />}>
              <BarChart data={histogramBars(data.snr)} color="var(--accent)" />
            </Card>
            <Card title="RSSI" subtitle={data.units.rssi} actions={<SummaryLine summary={data.rssi} unit="dBm" />}>
              <BarChart data={histogramBars(data.rssi)} color="var(--accent-2)" />
            </Card>
            <Card title="Packet sizes" subtitle={data.units.size}>
              <BarChart data={histogramBars(data.size)} color="var(--accent-3)" />
            </Card>
            <Card title={`Packets ${perBucketText(data.bucket)}`} subtitle={data.units.perBucket}>
              <TimeSeriesChart bucketMs={bucketMsOf(data.bucket)} from={stats.data ? stats.data.oldest : null} until={data.generatedAt} series={[
                { name: 'transmissions', color: 'var(--accent)', points: (data.perBucket || []).map((b) => ({ x: b.time, y: b.transmissions })) },
                { name: 'observations', color: 'var(--accent-2)', points: (data.perBucket || []).map((b) => ({ x: b.time, y: b.observations })) },
              ]} />
            </Card>
            <Card title="SNR against RSSI" subtitle={data.units.scatter}>
              <ScatterChart points={data.scatter.points.map((p) => ({ x: p.rssi, y: p.snr, title: `${p.hash}: ${p.snr} dB, ${p.rssi} dBm` }))} xLabel="RSSI (dBm)" yLabel="SNR (dB)" />
            </Card>
            <Card title="Mean SNR per payload type" subtitle={data.units.payloadTypes}>
              <BarChart data={data.payloadTypes.map((t) => ({ label: t.name.slice(0, 6), value: t.meanSnr, color: TYPE_COLORS[t.payloadType], title: `${t.name}: ${formatDb(t.meanSnr)}` }))}
                valueFormat={(v) => formatDecimal(v, 0)} />
              <table className="table">
                <thead><tr><th>Type</th><th className="num">Transmissions</th><th className="num">Observations</th><th className="num">Mean SNR</th></tr></thead>
                <tbody>
                  {data.payloadTypes.map((t) => (
                    <tr key={t.payloadType}>
                      <td><TypeBadge type={t.payloadType} /></td>
                      <td className="num">{formatNumber(t.transmissions)}</td>
                      <td className="num">{formatNumber(t.observations)}</td>
                      <td className="num">{formatDb(t.meanSnr)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Card>
          </div>
        </>
      )}
    </ViewState>
  );
}
