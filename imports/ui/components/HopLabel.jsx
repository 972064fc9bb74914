/** A hop hash with the node it resolves to, or its candidates when the prefix is shared. */
import React from 'react';
import { NodeLink } from './NodeLink';
import { formatNumber } from '../lib/format';

export function HopLabel({ hop }) {
  return (
    <span>
      <span className="mono">{hop.hop}</span>{' '}
      {hop.node ? <NodeLink pubKey={hop.node.pubKey} name={hop.node.name} />
        : <span className="muted small">{hop.candidateCount > 1 ? `${formatNumber(hop.candidateCount)} candidates` : 'unknown'}</span>}
    </span>
  );
}
