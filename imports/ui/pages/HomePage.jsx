/**
 * Overview: headline figures, this browser's favourite nodes, node roles and status, the newest
 * packets, busiest channels.
 */
import React from 'react';
import { useView } from '../hooks/use-view';
import { useObservers } from '../hooks/use-observers';
import { PageHeader } from '../components/PageHeader';
import { Card } from '../components/Card';
import { StatTile } from '../components/StatTile';
import { ViewState } from '../components/ViewState';
import { PacketTable } from '../components/PacketTable';
import { HBarList } from '../components/HBarList';
import { RoleBadge } from '../components/RoleBadge';
import { StatusBadge } from '../components/StatusBadge';
import { NodeLink } from '../components/NodeLink';
import { FavouriteStar } from '../components/FavouriteStar';
import { useFavouriteNodes } from '../hooks/use-favourite-nodes';
import { useNow } from '../hooks/use-now';
import { Link } from '../components/Link';
import { formatNumber, formatDuration, formatAgo, shortKey } from '../lib/format';
import { ROLE_COLORS } from '../lib/mesh-constants';

const RECENT = { limit: 16 };
const HOUR_MS = 3600000;

/** Starred nodes at a glance (shown once there is a favourite). */
function FavouritesCard() {
  const favourites = useFavouriteNodes();
  const now = useNow(5000);
  if (favourites.favourites.length === 0) return null;
  return (
    <Card title="Favourite nodes" actions={<Link to="/nodes">Nodes ›</Link>}>
      <div data-testid="favourites-card">
        <ViewState loading={favourites.loading} error={favourites.error} hasData={Boolean(favourites.data)}>
          <div className="table-wrap">
            <table className="table">
              <tbody>
                {favourites.rows.map((node) => (
                  <tr key={node.pubKey}>
                    <td className="star-col"><FavouriteStar pubKey={node.pubKey} name={node.name} /></td>
                    <td><NodeLink pubKey={node.pubKey} name={node.name} /></td>
                    <td><RoleBadge role={node.role} /></td>
                    <td><StatusBadge status={node.status} /></td>
                    <td className="num">{formatAgo(node.lastSeen, now)}</td>
                    <td className="num hide-phone">{formatNumber(node.packets)} packets</td>
                  </tr>
                ))}
                {favourites.missing.map((key) => (
                  <tr key={key}>
                    <td className="star-col"><FavouriteStar pubKey={key} /></td>
                    <td><NodeLink pubKey={key} /></td>
                    <td colSpan={4} className="muted small">not in the node directory ({shortKey(key)})</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </ViewState>
      </div>
    </Card>
  );
}

export function HomePage() {
  const stats = useView('stats', {});
  const recent = useView('packets', RECENT);
  const channels = useView('channels', {});
  const { observers } = useObservers();
  const s = stats.data;
  return (
    <>
      <PageHeader title="Overview" subtitle="The mesh as the observers hear it right now." busy={stats.loading && Boolean(s)} />
      <ViewState loading={stats.loading} error={stats.error} hasData={Boolean(s)}>
        {s && (
          <div className="stat-grid" data-testid="overview-stats">
            <StatTile label="Transmissions stored" value={formatNumber(s.transmissions)} sub={`${formatNumber(s.transmissionsLastHour)} in the last hour`} />
            <StatTile label="Observations" value={formatNumber(s.observations)} sub={`${formatNumber(s.observationsLastHour)} in the last hour`} />
            <StatTile label="Nodes" value={formatNumber(s.nodes)} sub={`${formatNumber(s.nodesByStatus.active)} active · ${formatNumber(s.nodesByStatus.degraded)} degraded · ${formatNumber(s.nodesByStatus.silent)} silent`} />
            <StatTile label="Observers" value={formatNumber(s.observers)} sub={`${formatNumber(observers.filter((o) => Date.now() - o.lastSeen < HOUR_MS).length)} heard in the last hour`} />
            <StatTile label="Store spans" value={s.oldest ? formatDuration(s.newest - s.oldest) : '—'} sub="oldest to newest packet" />
          </div>
        )}
      </ViewState>
      <FavouritesCard />
      <div className="grid-2">
        <Card title="Newest packets" actions={<Link to="/live">Live feed ›</Link>}>
          <ViewState loading={recent.loading} error={recent.error} hasData={Boolean(recent.data)} empty={recent.data && recent.data.packets.length === 0} emptyText="No packets yet.">
            {recent.data && <PacketTable packets={recent.data.packets} compact />}
          </ViewState>
        </Card>
        <div className="stack">
          <Card title="Nodes by role">
            {s && (
              <HBarList items={Object.entries(s.nodesByRole).sort((a, b) => b[1] - a[1]).map(([role, count]) => ({ key: role, label: <RoleBadge role={role} />, value: count }))}
                color={ROLE_COLORS.repeater} />
            )}
          </Card>
          <Card title="Busiest channels" actions={<Link to="/channels">Channels ›</Link>}>
            <ViewState loading={channels.loading} error={channels.error} hasData={Boolean(channels.data)} empty={channels.data && channels.data.channels.length === 0} emptyText="No channel traffic yet.">
              {channels.data && (
                <HBarList items={channels.data.channels.slice().sort((a, b) => b.messagesLastHour - a.messagesLastHour).slice(0, 6).map((channel) => ({
                  key: channel.hash,
                  label: <Link to={`/channels/${channel.hash}`}>{channel.name || `#${channel.hash} (encrypted)`}</Link>,
                  value: channel.messagesLastHour,
                  sub: 'last hour',
                }))} />
              )}
            </ViewState>
          </Card>
          <Card title="Observers" actions={<Link to="/analytics/observers">All ›</Link>}>
            <HBarList items={observers.slice(0, 8).map((o) => ({ key: o.id, label: o.name || o.id.slice(0, 8), sub: o.region, value: o.packetsLastHour }))}
              color="var(--accent-3)" empty="No observer has reported yet." />
            <div className="muted small">packets heard in the last hour</div>
          </Card>
        </div>
      </div>
    </>
  );
}
