/** One packet: what it is, its bytes field by field, and every observer's report of it. */
import React from 'react';
import { useView } from '../hooks/use-view';
import { useObservers } from '../hooks/use-observers';
import { PageHeader } from '../components/PageHeader';
import { ViewState } from '../components/ViewState';
import { Card } from '../components/Card';
import { StatTile } from '../components/StatTile';
import { ByteBreakdown } from '../components/ByteBreakdown';
import { TypeBadge } from '../components/TypeBadge';
import { PacketSummary } from '../components/PacketSummary';
import { ObserverLabel } from '../components/ObserverLabel';
import { HopPath } from '../components/HopPath';
import { NodeLink } from '../components/NodeLink';
import { Link } from '../components/Link';
import { formatDateTime, formatClock, formatDb, formatNumber } from '../lib/format';
import { routeTypeName } from '../lib/mesh-constants';

function Observations({ observations, observers }) {
  return (
    <div className="table-wrap">
      <table className="table">
        <thead><tr><th>Observer</th><th>Time</th><th className="num">SNR</th><th className="num">RSSI</th><th className="num">Score</th><th>Path heard</th></tr></thead>
        <tbody>
          {observations.map((o, i) => (
            <tr key={`${o.observer}-${i}`}>
              <td><ObserverLabel id={o.observer} observers={observers} /></td>
              <td className="num">{formatClock(o.time)}</td>
              <td className="num">{formatDb(o.snr)}</td>
              <td className="num">{formatDb(o.rssi, 'dBm')}</td>
              <td className="num">{o.score ?? '—'}</td>
              <td><HopPath hops={o.path} max={12} /></td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function PacketPage({ hash }) {
  const valid = /^[0-9a-fA-F]{1,16}$/.test(hash || '');
  // One packet by hash is an identity, not a list: shown whole (every observer's report), whatever
  // the header's region, so a link to it never reads "not found" in another scope.
  const { data, loading, error } = useView('packets', { hash: (hash || '').toLowerCase() }, { enabled: valid, scoped: false });
  const { byId } = useObservers({ allRegions: true });
  const packet = data && data.packets[0];
  if (!valid) return <><PageHeader title="Packet" /><div className="state state-error">“{hash}” is not a packet hash (up to 16 hex digits).</div></>;
  return (
    <>
      <PageHeader title={`Packet ${hash.toLowerCase()}`} subtitle={<Link to="/packets">‹ All packets</Link>} />
      <ViewState loading={loading} error={error} hasData={Boolean(data)} empty={data && !packet} emptyText="This packet is not in the store (never heard, or already evicted).">
        {packet && (
          <>
            <div className="stat-grid">
              <StatTile label="Type" value={<TypeBadge type={packet.payloadType} />} sub={`version ${packet.payloadVersion}`} />
              <StatTile label="Route" value={routeTypeName(packet.routeType)} />
              <StatTile label="Size" value={`${packet.size} B`} sub={`hash size ${packet.hashSize} B`} />
              <StatTile label="Hops" value={packet.hopCount} />
              <StatTile label="Heard by" value={`${formatNumber(packet.observerCount)} observer${packet.observerCount === 1 ? '' : 's'}`} sub={`${formatNumber(packet.observationCount)} reports`} />
              <StatTile label="First heard" value={formatClock(packet.time)} sub={formatDateTime(packet.time)} />
            </div>
            <Card title="What it is"><PacketSummary packet={packet} /></Card>
            <Card title="Bytes" subtitle="point at a field or a byte">
              <ByteBreakdown raw={packet.detail.raw} fields={packet.detail.fields} />
            </Card>
            {packet.detail.advert && (
              <Card title="Advert">
                <p>
                  <NodeLink pubKey={packet.detail.advert.pubKey} name={packet.detail.advert.name} /> · {packet.detail.advert.role}
                  {Number.isFinite(packet.detail.advert.lat) && <> · <span className="mono">{packet.detail.advert.lat}, {packet.detail.advert.lon}</span></>}
                  {' · '}timestamp {formatDateTime(packet.detail.advert.timestamp * 1000)}
                </p>
              </Card>
            )}
            <Card title="Reports" subtitle={`${formatNumber(packet.detail.observations.length)} from ${formatNumber(packet.observerCount)} observers`}>
              <Observations observations={packet.detail.observations} observers={byId} />
            </Card>
          </>
        )}
      </ViewState>
    </>
  );
}
