/** A node's name (or key prefix) linking to its page. */
import React from 'react';
import { Link } from './Link';
import { shortKey } from '../lib/format';

export function NodeLink({ pubKey, name }) {
  if (!pubKey) return <span className="muted">{name || '—'}</span>;
  return (
    <Link to={`/nodes/${pubKey}`} className="node-link" title={pubKey}>
      {name || <span className="mono">{shortKey(pubKey)}</span>}
    </Link>
  );
}
