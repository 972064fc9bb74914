/**
 * Packets: a searchable, filterable list of stored transmissions (filter expression, search,
 * type, route, observer; within the header's region); each links to its packet page.
 */
import React from 'react';
import { useView } from '../hooks/use-view';
import { usePacketSearch } from '../hooks/use-packet-search';
import { useObservers } from '../hooks/use-observers';
import { PageHeader } from '../components/PageHeader';
import { ViewState } from '../components/ViewState';
import { PacketTable } from '../components/PacketTable';
import { Select } from '../components/Select';
import { SearchBox } from '../components/SearchBox';
import { FilterExpression } from '../components/FilterExpression';
import { PAYLOAD_TYPES, ROUTE_TYPES } from '../lib/mesh-constants';
import { formatNumber } from '../lib/format';

const TYPE_OPTIONS = Object.entries(PAYLOAD_TYPES).map(([value, label]) => ({ value, label }));
const ROUTE_OPTIONS = ROUTE_TYPES.map((label, value) => ({ value: String(value), label }));
const LIMIT_OPTIONS = ['50', '100', '200', '500'].map((value) => ({ value, label: value }));
const SEARCH_HINT = {
  none: 'Search by packet hash, node key prefix, or words in names and messages.',
  hash: 'Looking up one packet by hash.',
  node: 'Packets involving nodes with this key prefix; Path shows the longest path naming it, its hop highlighted.',
  text: 'Words matched in advert names, senders and message texts of the rows loaded.',
};

export function PacketsPage() {
  const search = usePacketSearch();
  const { data, loading, error } = useView('packets', search.params);
  const { observers } = useObservers();
  const rows = data ? search.filterRows(data.packets) : [];
  return (
    <>
      <PageHeader title="Packets" subtitle={SEARCH_HINT[search.searchKind]} busy={loading && Boolean(data)} />
      <div className="filters">
        <FilterExpression applied={search.filter} onApply={search.setFilter} error={error} />
        <SearchBox label="Search" name="search" value={search.search} onChange={search.setSearch} placeholder="hash, key prefix or words" width={240} />
        <Select label="Type" name="type" value={search.type} onChange={search.setType} options={TYPE_OPTIONS} />
        <Select label="Route" name="route" value={search.route} onChange={search.setRoute} options={ROUTE_OPTIONS} />
        <Select label="Observer" name="observer" value={search.observer} onChange={search.setObserver}
          options={observers.map((o) => ({ value: o.id, label: o.name || o.id.slice(0, 8) }))} />
        <Select label="Rows" name="limit" value={search.limit} onChange={search.setLimit} options={LIMIT_OPTIONS} anyLabel={null} />
        {data && <span className="hint num">{formatNumber(rows.length)} shown{data.truncated ? ' (scan limit reached)' : ''}</span>}
      </div>
      <ViewState loading={loading} error={error} hasData={Boolean(data)} empty={data && rows.length === 0} emptyText="No stored packet matches.">
        <PacketTable packets={rows} scrollHeight="calc(100vh - 215px)" />
      </ViewState>
    </>
  );
}
