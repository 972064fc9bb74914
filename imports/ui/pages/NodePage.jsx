/**
 * One node: health figures, the observers that hear it, and charts over the last N days
 * (activity and SNR trend per minute to hour, as the view picks for the span; weekday x hour heatmap, hop distribution, peers, packet types,
 * signal grade), plus its recent packets and adverts.
 */
import React, { useState } from 'react';
import { useView } from '../hooks/use-view';
import { useObservers } from '../hooks/use-observers';
import { useNow } from '../hooks/use-now';
import { PageHeader } from '../components/PageHeader';
import { ViewState } from '../components/ViewState';
import { Card } from '../components/Card';
import { StatTile } from '../components/StatTile';
import { Select } from '../components/Select';
import { RoleBadge } from '../components/RoleBadge';
import { StatusBadge } from '../components/StatusBadge';
import { TypeBadge } from '../components/TypeBadge';
import { ObserverLabel } from '../components/ObserverLabel';
import { NodeLink } from '../components/NodeLink';
import { Link } from '../components/Link';
import { FavouriteStar } from '../components/FavouriteStar';
import { BarChart } from '../components/BarChart';
import { TimeSeriesChart } from '../components/TimeSeriesChart';
import { Heatmap } from '../components/Heatmap';
import { HBarList } from '../components/HBarList';
import { formatAgo, formatDb, formatDecimal, formatDuration, formatNumber, formatPct, formatClock, formatDateTime } from '../lib/format';
import { heatmapRows, hopBars, peerRows, HOUR_MS } from '../lib/node-series';
import { prefixSharerSummary, roleCountText } from '../lib/prefix-sharers';
import { fillBuckets, bucketMsOf, perBucketText, bucketAdjective } from '../lib/time-buckets';

const DAY_OPTIONS = [1, 7, 30].map((days) => ({ value: String(days), label: `${days} day${days > 1 ? 's' : ''}` }));
const HOUR_LABELS = Array.from({ length: 24 }, (_, hour) => String(hour).padStart(2, '0'));
const capitalize = (text) => text.charAt(0).toUpperCase() + text.slice(1);
const GRADE_TONE = { A: 'good', 'A-': 'good', 'B+': 'good', B: 'warn', C: 'warn', D: 'bad' };

/** Clock hours from the one holding `from` through the one holding `now` (what availability counts). */
function elapsedHours(from, now) {
  if (!Number.isFinite(from)) return null;
  return Math.floor(now / HOUR_MS) - Math.floor(from / HOUR_MS) + 1;
}

function Health({ node, health, analytics, now }) {
  // The engine counts availability and silence from here (first heard, or the window start).
  const heardFrom = Number.isFinite(analytics.heardFrom) ? analytics.heardFrom : analytics.windowStart;
  return (
    <div className="stat-grid">
      <StatTile label="Status" value={<StatusBadge status={node.status} />} sub={`last heard ${formatAgo(health.lastHeard, now)}`} />
      <StatTile label="Packets" value={formatNumber(health.packets)} sub={`${formatNumber(health.packetsToday)} today (UTC)`} />
      <StatTile label="Observers hearing it" value={formatNumber(health.observerCount)} />
      <StatTile label="Mean SNR / RSSI" value={formatDb(health.meanSnr)} sub={formatDb(health.meanRssi, 'dBm')} />
      <StatTile label="Mean hops" value={formatDecimal(health.meanHops, 2)} sub={`relays ${formatPct(analytics.relayPct, 0)} of its packets`} />
      <StatTile label="Signal grade" value={analytics.signalGrade || '—'} tone={GRADE_TONE[analytics.signalGrade]}
        sub={`SNR ${formatDecimal(analytics.snrMean)} ± ${formatDecimal(analytics.snrStdDev)} dB`} />
      <StatTile label="Availability" value={formatPct(analytics.availabilityPct)}
        sub={<span title={`counted from ${formatDateTime(heardFrom)}: hours before the node was first heard are not silence`}>
          {`${formatNumber(analytics.activeHours)} of ${formatNumber(elapsedHours(heardFrom, now))} h since first heard, ${formatAgo(heardFrom, now)}`}</span>} />
      <StatTile label="Longest silence" value={formatDuration(analytics.longestSilence.ms)}
        sub={<span title="the longest gap between its packets, counted from when it was first heard">
          {`${formatDateTime(analytics.longestSilence.from)} → ${formatClock(analytics.longestSilence.to).slice(0, 5)}, since first heard`}</span>} />
    </div>
  );
}

function NodeLinks({ nodes, more }) {
  return (
    <>
      {nodes.map((other, i) => (
        <React.Fragment key={other.pubKey}>{i > 0 && ', '}<NodeLink pubKey={other.pubKey} name={other.name} /></React.Fragment>
      ))}
      {more > 0 && ` and ${formatNumber(more)} more`}
    </>
  );
}

/**
 * Who shares the node's first key byte, by what it makes ambiguous (lib/prefix-sharers.js):
 * relay hops (other repeaters, for a repeater only) and addressed packets (every sharer).
 */
function PrefixSharers({ node, sharers }) {
  const { prefix, relay, address } = prefixSharerSummary(node, sharers);
  return (
    <div className="banner banner-warn" data-testid="prefix-sharers">
      <div>
        <strong>Relay hops:</strong>{' '}
        {relay === null
          ? `not affected: only repeaters relay, and this node is ${node.role && node.role !== 'unknown' ? `a ${node.role}` : 'of unknown role'}.`
          : relay.total === 0
            ? `no other repeater starts with ${prefix}: its 1-byte hops are its own.`
            : <>{formatNumber(relay.total)} other repeater{relay.total === 1 ? '' : 's'} start{relay.total === 1 ? 's' : ''} with {prefix} (<NodeLinks nodes={relay.shown} more={relay.more} />): 1-byte hops counted here may be theirs.</>}
      </div>
      <div>
        <strong>Addressed packets:</strong>{' '}
        {`${formatNumber(address.total)} other node${address.total === 1 ? '' : 's'} of any role start${address.total === 1 ? 's' : ''} with ${prefix} (${roleCountText(address.roles)}): packets from or to @${prefix} counted here may be theirs. `}
        <details className="inline-details">
          <summary>{`list ${address.total === 1 ? 'it' : `all ${formatNumber(address.total)}`}`}</summary>
          <NodeLinks nodes={sharers} more={0} />
        </details>
      </div>
    </div>
  );
}

function NodeObservers({ observers, names }) {
  return (
    <table className="table">
      <thead><tr><th>Observer</th><th className="num">Reports</th><th className="num">Mean SNR</th><th className="num">Mean RSSI</th></tr></thead>
      <tbody>
        {observers.map((o) => (
          <tr key={o.observer}>
            <td><ObserverLabel id={o.observer} observers={names} /></td>
            <td className="num">{formatNumber(o.count)}</td>
            <td className="num">{formatDb(o.meanSnr)}</td>
            <td className="num">{formatDb(o.meanRssi, 'dBm')}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function RecentPackets({ packets }) {
  return (
    <table className="table">
      <thead><tr><th>Time</th><th>Hash</th><th>Type</th><th className="num">Hops</th><th className="num">SNR</th></tr></thead>
      <tbody>
        {packets.map((p) => (
          <tr key={p.hash}>
            <td className="num">{formatClock(p.time)}</td>
            <td><Link to={`/packets/${p.hash}`} className="mono">{p.hash.slice(0, 8)}</Link></td>
            <td><TypeBadge type={p.payloadType} /></td>
            <td className="num">{p.hops}</td>
            <td className="num">{formatDb(p.snr)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function NodePage({ pubKey }) {
  const [days, setDays] = useState('7');
  const valid = /^[0-9a-fA-F]{64}$/.test(pubKey || '');
  // 'auto': minutes for a node heard for a few hours, up to hours for a week (the view says which).
  const { data, loading, error } = useView('node', { pubKey: (pubKey || '').toLowerCase(), days: Number(days), bucket: 'auto' }, { enabled: valid });
  const { byId } = useObservers();
  const now = useNow(5000);
  if (!valid) return <><PageHeader title="Node" /><div className="state state-error">“{pubKey}” is not a node public key (64 hex digits).</div></>;
  const found = data && data.found;
  const node = found ? data.node : null;
  const analytics = found ? data.analytics : null;
  const bucketMs = bucketMsOf(analytics && analytics.bucket);
  return (
    <>
      <PageHeader title={node ? node.name || pubKey.slice(0, 8) : 'Node'} busy={loading && Boolean(data)}
        subtitle={<><Link to="/nodes">‹ All nodes</Link> · <span className="mono small">{pubKey.toLowerCase()}</span> {node && <RoleBadge role={node.role} />}</>}>
        <FavouriteStar pubKey={pubKey.toLowerCase()} name={node && node.name} />
        <Select label="Window" name="days" value={days} onChange={setDays} options={DAY_OPTIONS} anyLabel={null} />
      </PageHeader>
      <ViewState loading={loading} error={error} hasData={Boolean(data)} empty={data && !found} emptyText="No node with this key has been heard.">
        {found && (
          <>
            {data.ambiguousPrefix && <PrefixSharers node={node} sharers={data.sharesPrefixWith} />}
            <Health node={node} health={data.health} analytics={analytics} now={now} />
            <div className="grid-2">
              <Card title={`${capitalize(bucketAdjective(analytics.bucket))} activity`} subtitle={`packets ${perBucketText(analytics.bucket)}`}>
                <TimeSeriesChart kind="bars" barWidthMs={bucketMs} from={analytics.heardFrom} until={now} series={[{ name: 'packets', color: 'var(--accent)', points: fillBuckets(analytics.activity || [], { bucketMs, windowStart: Math.max(analytics.windowStart, analytics.bucket && analytics.bucket.from ? analytics.bucket.from : -Infinity), now }) }]} />
              </Card>
              <Card title="SNR trend" subtitle={`mean ${perBucketText(analytics.bucket)}, dB`}>
                <TimeSeriesChart zeroBased={false} yFormat={(v) => formatDecimal(v, 1)} bucketMs={bucketMs} from={analytics.heardFrom} until={now}
                  series={[{ name: 'mean SNR', color: 'var(--accent-2)', points: (analytics.snrTrend || []).map((p) => ({ x: p.time, y: p.meanSnr })) }]} />
              </Card>
              <Card title="Uptime heatmap" subtitle="packets by weekday and hour (UTC)">
                <Heatmap rows={heatmapRows(analytics.heatmap)} colLabels={HOUR_LABELS} />
              </Card>
              <Card title="Hop distribution" subtitle="packets by hop count">
                <BarChart data={hopBars(analytics.hopDistribution)} height={150} />
              </Card>
              <Card title="Peers" subtitle="hops next to it in paths; @xx: the other end of messages it sent or got (a src/dest hash)">
                <HBarList items={peerRows(analytics.topPeers, 10).map((row) => ({
                  key: row.key,
                  // A known node once, linked, with the keys it was seen as; other keys as they are.
                  label: row.node
                    ? <><span className="mono">{row.via.join(' · ')}</span> <NodeLink pubKey={row.node} name={row.name} /></>
                    : <><span className="mono">{row.via[0]}</span> <span className="muted small">{row.candidates === 0 ? 'unknown' : `${formatNumber(row.candidates)} candidates`}</span></>,
                  value: row.count,
                }))} empty="No peers in this window" />
              </Card>
              <Card title="Packet types">
                <HBarList items={Object.entries(analytics.packetTypes).sort((a, b) => b[1] - a[1]).map(([type, count]) => ({ key: type, label: type, value: count }))} />
              </Card>
              <Card title="Observers that hear it">
                <NodeObservers observers={data.health.observers} names={byId} />
              </Card>
              <Card title="Recent packets">
                <RecentPackets packets={data.health.recentPackets} />
              </Card>
            </div>
            <Card title="Adverts" subtitle={`${formatNumber(node.advertsStored)} stored`}>
              <table className="table">
                <thead><tr><th>Heard</th><th>Name</th><th>Role</th><th>Position</th><th className="num">Observers</th></tr></thead>
                <tbody>
                  {data.adverts.map((advert) => (
                    <tr key={`${advert.time}-${advert.timestamp}`}>
                      <td className="num">{formatDateTime(advert.time)}</td>
                      <td>{advert.name || '—'}</td>
                      <td>{advert.role}</td>
                      <td className="mono small">{Number.isFinite(advert.lat) ? `${advert.lat}, ${advert.lon}` : '—'}</td>
                      <td className="num">{formatNumber(advert.observers.length)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Card>
          </>
        )}
      </ViewState>
    </>
  );
}
