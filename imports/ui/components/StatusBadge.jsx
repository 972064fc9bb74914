/** A node's network status: active, degraded or silent. */
import React from 'react';

export function StatusBadge({ status }) {
  return <span className={`status status-${status}`}><span className="dot" />{status}</span>;
}
