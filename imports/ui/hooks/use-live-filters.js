/**
 * The Live page's filters (type, observer, node prefix, filter expression) as form state, and
 * the `packets` view params they make. The node prefix is debounced and applied only when it
 * is valid hex, so typing never sends a bad subscription; the expression is sent when applied
 * (Enter), and the server evaluates it for the live subscription. The region comes from the
 * header's scope (use-region.js).
 */
import { useMemo, useState } from 'react';
import { useDebounced } from './use-debounced';

const HEX = /^[0-9a-f]{2,64}$/;

export function useLiveFilters() {
  const [type, setType] = useState('');
  const [observer, setObserver] = useState('');
  const [node, setNode] = useState('');
  const [filter, setFilter] = useState('');
  const settledNode = useDebounced(node.trim().toLowerCase(), 300);
  const params = useMemo(() => {
    const next = {};
    if (type !== '') next.type = Number(type);
    if (observer) next.observer = observer;
    if (HEX.test(settledNode)) next.node = settledNode;
    if (filter) next.filter = filter;
    return next;
  }, [type, observer, settledNode, filter]);
  const nodeInvalid = node.trim() !== '' && !HEX.test(node.trim().toLowerCase());
  return { type, setType, observer, setObserver, node, setNode, nodeInvalid, filter, setFilter, params };
}
