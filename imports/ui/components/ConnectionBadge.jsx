/** A dot and word for the DDP connection (connected, connecting, waiting, offline). */
import React from 'react';
import { useConnection } from '../hooks/use-connection';

export function ConnectionBadge() {
  const { connected, status } = useConnection();
  return (
    <span className={`connection ${connected ? 'up' : 'down'}`} title={`DDP: ${status}`}>
      <span className="dot" />{connected ? 'live' : status}
    </span>
  );
}
