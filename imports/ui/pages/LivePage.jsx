/**
 * Live: transmissions as they arrive, newest first, one row per hash with how many observers
 * heard it. Filters by type, observer, node and a packet filter expression (evaluated by the
 * server for the subscription: only matching packets arrive), within the header's region;
 * Pause freezes the list. Renders at most ~4 times a second and at most LIVE_ROW_LIMIT rows,
 * whatever the ingest rate.
 */
import React, { useState } from 'react';
import { useLivePackets, LIVE_ROW_LIMIT } from '../hooks/use-live-packets';
import { useLiveFilters } from '../hooks/use-live-filters';
import { useObservers } from '../hooks/use-observers';
import { PageHeader } from '../components/PageHeader';
import { ViewState } from '../components/ViewState';
import { PacketTable } from '../components/PacketTable';
import { Select } from '../components/Select';
import { SearchBox } from '../components/SearchBox';
import { FilterExpression, filterErrorText } from '../components/FilterExpression';
import { PAYLOAD_TYPES } from '../lib/mesh-constants';
import { formatNumber } from '../lib/format';

const TYPE_OPTIONS = Object.entries(PAYLOAD_TYPES).map(([value, label]) => ({ value, label }));

export function LivePage() {
  const [paused, setPaused] = useState(false);
  const filters = useLiveFilters();
  const live = useLivePackets(filters.params, { paused });
  const { observers } = useObservers();
  const multi = live.rows.filter((row) => row.observerCount > 1).length;
  // A refused expression is shown under its box; the list says why it is empty.
  const badFilter = filterErrorText(live.error) !== null;
  return (
    <>
      <PageHeader title="Live" subtitle={`Newest ${formatNumber(LIVE_ROW_LIMIT)} transmissions, grouped by hash. ${formatNumber(multi)} of ${formatNumber(live.rows.length)} shown were heard by more than one observer.`}>
        <button type="button" className={paused ? 'btn btn-warn' : 'btn'} onClick={() => setPaused(!paused)} data-testid="pause" aria-pressed={paused}>
          {paused ? '▶ Resume' : '❚❚ Pause'}
        </button>
      </PageHeader>
      <div className="filters">
        <FilterExpression applied={filters.filter} onApply={filters.setFilter} error={live.error} />
        <Select label="Type" name="type" value={filters.type} onChange={filters.setType} options={TYPE_OPTIONS} />
        <Select label="Observer" name="observer" value={filters.observer} onChange={filters.setObserver}
          options={observers.map((o) => ({ value: o.id, label: `${o.name || o.id.slice(0, 8)}${o.region ? ` (${o.region})` : ''}` }))} />
        <SearchBox label="Node key prefix" name="node" value={filters.node} onChange={filters.setNode} placeholder="hex, e.g. 1a4a" width={150} />
        {filters.nodeInvalid && <span className="hint warn">hex digits only, 2 or more</span>}
        {paused && <span className="hint warn" data-testid="paused-note">Paused: the list is frozen.</span>}
      </div>
      {badFilter ? (
        <div className="state state-empty">Fix the filter to see packets.</div>
      ) : (
        <ViewState loading={live.loading} error={live.error} hasData={live.rows.length > 0}
          empty={!live.loading && live.rows.length === 0} emptyText="No packets match these filters yet.">
          <PacketTable packets={live.rows} scrollHeight="calc(100vh - 215px)" />
        </ViewState>
      )}
    </>
  );
}
