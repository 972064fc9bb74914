/** Role colours and what a line means, over the map's corner. */
import React from 'react';
import { ROLE_COLORS } from '../lib/mesh-constants';

export function MapLegend({ roles, linkCount }) {
  return (
    <div className="map-legend">
      {roles.map((role) => (
        <span key={role}><i style={{ background: ROLE_COLORS[role] || ROLE_COLORS.unknown }} />{role}</span>
      ))}
      <span><i className="line" />busiest hop pairs ({linkCount})</span>
    </div>
  );
}
