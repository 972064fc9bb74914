/**
 * One observer (route /observers/:id): who it is, its health from its `status` messages
 * (battery, uptime, noise floor, airtime, radio errors, with their history), its reports per
 * hour, the SNR it hears at, and what it hears that no other observer does.
 */
import React, { useMemo } from 'react';
import { useView } from '../hooks/use-view';
import { useNow } from '../hooks/use-now';
import { PageHeader } from '../components/PageHeader';
import { ViewState } from '../components/ViewState';
import { Card } from '../components/Card';
import { StatTile } from '../components/StatTile';
import { StatusBadge } from '../components/StatusBadge';
import { TypeBadge } from '../components/TypeBadge';
import { Link } from '../components/Link';
import { BarChart } from '../components/BarChart';
import { TimeSeriesChart } from '../components/TimeSeriesChart';
import { formatAgo, formatDb, formatDecimal, formatDuration, formatNumber, formatPct, formatDateTime, shortKey } from '../lib/format';
import { statusSeries, airtimePct, snrBars } from '../lib/observer-series';

const HOUR_MS = 3600 * 1000;

function Health({ status, now }) {
  if (!status) {
    return <div className="muted" data-testid="observer-no-status">No status message from this observer yet (MQTT topic meshcore/&lt;region&gt;/&lt;observer&gt;/status).</div>;
  }
  return (
    <div className="stat-grid" data-testid="observer-health">
      <StatTile label="Status" value={<StatusBadge status={status.online ? 'active' : 'silent'} />} sub={`${status.status}, ${formatAgo(status.lastStatusAt, now)}`} />
      <StatTile label="Battery" value={Number.isFinite(status.batteryMv) ? `${formatDecimal(status.batteryMv / 1000, 2)} V` : '—'} />
      <StatTile label="Uptime" value={Number.isFinite(status.uptimeSecs) ? formatDuration(status.uptimeSecs * 1000) : '—'} />
      <StatTile label="Noise floor" value={formatDb(status.noiseFloorDbm, 'dBm')} />
      <StatTile label="Airtime" value={formatPct(airtimePct(status.txAirSecs, status.uptimeSecs))}
        sub={`transmit; receive ${formatPct(airtimePct(status.rxAirSecs, status.uptimeSecs))}${Number.isFinite(status.airtimePct) ? `; reported ${formatPct(status.airtimePct)}` : ''}`} />
      <StatTile label="Radio errors" value={formatNumber(status.radioErrors)} sub={`${formatNumber(status.statuses)} status${status.statuses === 1 ? '' : 'es'} since ${formatDateTime(status.firstStatusAt)}`} />
    </div>
  );
}

export function ObserverPage({ id }) {
  const params = useMemo(() => ({ id, hours: 24, examples: 10 }), [id]);
  const { data, loading, error } = useView('observer', params);
  const now = useNow(5000);
  const observer = data && data.observer;
  const history = data ? data.statusHistory : [];
  const series = useMemo(() => statusSeries(history), [history]);
  return (
    <>
      <PageHeader title={observer && observer.name ? observer.name : `Observer ${shortKey(id)}`}
        subtitle={observer ? `${observer.region || 'no region'} · ${id} · first seen ${formatDateTime(observer.firstSeen)} · last seen ${formatAgo(observer.lastSeen, now)}` : id} />
      <ViewState loading={loading} error={error} hasData={Boolean(data)} empty={data && !data.found} emptyText="No observer with this id has reported.">
        {data && data.found && (
          <div data-testid="observer-page">
            <Health status={data.status} now={now} />
            <div className="stat-grid">
              <StatTile label="Reports stored" value={formatNumber(data.reports)} sub={`${formatNumber(data.heard)} transmissions`} />
              <StatTile label="Mean SNR" value={formatDb(data.snr.mean)} sub={`${formatNumber(data.snr.count)} reports with SNR`} />
              <StatTile label="Only it heard" value={formatNumber(data.onlyHeardHere.count)}
                sub={`${formatPct(data.onlyHeardHere.share === null ? null : data.onlyHeardHere.share * 100)} of what it heard`} />
            </div>
            <div className="grid-2">
              <Card title="Reports per hour" subtitle="last 24 h">
                <TimeSeriesChart kind="bars" barWidthMs={HOUR_MS} from={observer.firstSeen} until={now}
                  series={[{ name: 'reports', color: 'var(--accent)', points: data.perHour.filter((row) => !Number.isFinite(observer.firstSeen) || row.hour + HOUR_MS > observer.firstSeen).map((row) => ({ x: row.hour, y: row.count })) }]} />
              </Card>
              <Card title="SNR distribution" subtitle="reports per 1 dB">
                <BarChart data={snrBars(data.snr.bins)} height={160} />
              </Card>
              <Card title="Battery and noise floor" subtitle={`${formatNumber(history.length)} status${history.length === 1 ? '' : 'es'}`}>
                {history.length < 2 ? <div className="muted">Needs two statuses (one a minute from the simulator).</div> : (
                  <>
                    <TimeSeriesChart zeroBased={false} yFormat={(v) => `${formatDecimal(v, 2)} V`} series={[{ name: 'battery', color: 'var(--accent)', points: series.battery }]} height={120} />
                    <TimeSeriesChart zeroBased={false} yFormat={(v) => `${formatDecimal(v, 0)}`} series={[{ name: 'noise floor dBm', color: 'var(--accent-2)', points: series.noise }]} height={120} />
                  </>
                )}
              </Card>
              <Card title="Airtime and errors" subtitle="between consecutive statuses">
                {history.length < 2 ? <div className="muted">Needs two statuses.</div> : (
                  <>
                    <TimeSeriesChart yFormat={(v) => `${formatDecimal(v, 1)}%`} series={[{ name: 'transmit %', color: 'var(--accent)', points: series.txPct }, { name: 'receive %', color: 'var(--accent-2)', points: series.rxPct }]} height={120} />
                    <TimeSeriesChart kind="bars" series={[{ name: 'radio errors', color: 'var(--bad, #c44)', points: series.errors }]} height={100} />
                  </>
                )}
              </Card>
            </div>
            <Card title="What only this observer hears" subtitle={`${formatNumber(data.onlyHeardHere.count)} stored transmissions no other observer reported${data.onlyHeardHere.examplesComplete ? '' : ' (examples from its newest 5,000)'}`}>
              {data.onlyHeardHere.examples.length === 0 ? <div className="muted">Every transmission it heard was heard by another observer too.</div> : (
                <table className="table" data-testid="observer-unique">
                  <thead><tr><th>Heard</th><th>Type</th><th>Hash</th><th className="num">Hops</th><th className="num">SNR</th></tr></thead>
                  <tbody>
                    {data.onlyHeardHere.examples.map((tx) => (
                      <tr key={tx.hash}>
                        <td className="num">{formatAgo(tx.time, now)}</td>
                        <td><TypeBadge type={tx.payloadType} /></td>
                        <td className="mono"><Link to={`/packets/${tx.hash}`}>{tx.hash}</Link></td>
                        <td className="num">{tx.hops}</td>
                        <td className="num">{formatDb(tx.snr)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </Card>
          </div>
        )}
      </ViewState>
    </>
  );
}
