/**
 * The Packets page's search and filters, and the `packets` view params they make.
 * The search box takes a packet hash (16 hex digits: that one packet), a node key prefix
 * (other hex: packets involving the node), or words (the view's `text` filter: advert names,
 * senders and texts; several words must all match, the first is sent to the server), and a
 * packet filter expression (`filter`, parsed and evaluated by the server). The region comes from
 * the header's scope (use-region.js).
 */
import { useMemo, useState } from 'react';
import { useDebounced } from './use-debounced';

const HASH = /^[0-9a-f]{16}$/;
const HEX = /^[0-9a-f]{2,64}$/;

export function searchKind(text) {
  const value = text.trim().toLowerCase();
  if (value === '') return { kind: 'none' };
  if (HASH.test(value)) return { kind: 'hash', value };
  if (HEX.test(value)) return { kind: 'node', value };
  return { kind: 'text', value };
}

function matchesText(packet, words) {
  const haystack = [
    packet.advert && packet.advert.name,
    packet.message && packet.message.sender,
    packet.message && packet.message.text,
    packet.message && packet.message.channel,
  ].filter(Boolean).join(' ').toLowerCase();
  return words.every((word) => haystack.includes(word));
}

export function usePacketSearch() {
  const [search, setSearch] = useState('');
  const [type, setType] = useState('');
  const [route, setRoute] = useState('');
  const [filter, setFilter] = useState('');
  const [observer, setObserver] = useState('');
  const [limit, setLimit] = useState('100');
  const settled = searchKind(useDebounced(search, 350));
  const params = useMemo(() => {
    const next = { limit: Number(limit) };
    if (settled.kind === 'hash') return { hash: settled.value };
    if (settled.kind === 'node') next.node = settled.value;
    if (settled.kind === 'text') next.text = settled.value.split(/\s+/)[0].slice(0, 64);
    if (type !== '') next.type = Number(type);
    if (route !== '') next.route = Number(route);
    if (filter) next.filter = filter;
    if (observer) next.observer = observer;
    return next;
  }, [settled.kind, settled.value, type, route, filter, observer, limit]);
  const filterRows = (rows) => {
    if (settled.kind !== 'text') return rows;
    const words = settled.value.split(/\s+/).filter(Boolean);
    return rows.filter((row) => matchesText(row, words));
  };
  return { search, setSearch, type, setType, route, setRoute, filter, setFilter, observer, setObserver, limit, setLimit, params, searchKind: settled.kind, filterRows };
}
