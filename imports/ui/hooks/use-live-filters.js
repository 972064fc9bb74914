/**
 * The Live page's filters (type, region, observer, node prefix) as form state, and the
 * `packets` view params they make. The node prefix is debounced and applied only when it is
 * valid hex, so typing never sends a bad subscription.
 */
import { useMemo, useState } from 'react';
import { useDebounced } from './use-debounced';

const HEX = /^[0-9a-f]{2,64}$/;

export function useLiveFilters() {
  const [type, setType] = useState('');
  const [region, setRegion] = useState('');
  const [observer, setObserver] = useState('');
  const [node, setNode] = useState('');
  const settledNode = useDebounced(node.trim().toLowerCase(), 300);
  const params = useMemo(() => {
    const next = {};
    if (type !== '') next.type = Number(type);
    if (region) next.region = region;
    if (observer) next.observer = observer;
    if (HEX.test(settledNode)) next.node = settledNode;
    return next;
  }, [type, region, observer, settledNode]);
  const nodeInvalid = node.trim() !== '' && !HEX.test(node.trim().toLowerCase());
  return { type, setType, region, setRegion, observer, setObserver, node, setNode, nodeInvalid, params };
}
