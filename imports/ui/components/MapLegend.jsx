/** Role colours, what node opacity and each kind of line mean, over the map's corner. */
import React from 'react';
import { ROLE_COLORS } from '../lib/mesh-constants';
import { formatNumber } from '../lib/format';
import { ROUTE_COLOR } from './MeshMap';

export function MapLegend({ roles, linkCount, routeCount = null }) {
  return (
    <div className="map-legend" data-testid="map-legend">
      {roles.map((role) => (
        <span key={role}><i style={{ background: ROLE_COLORS[role] || ROLE_COLORS.unknown }} />{role}</span>
      ))}
      <span title="active: full colour; degraded: faded; silent: faint"><i style={{ background: 'var(--muted)', opacity: 0.35 }} />silent</span>
      <span title="line width grows with the pair's appearances in stored paths"><i className="line" />busiest hop pairs ({formatNumber(linkCount)})</span>
      {routeCount !== null && (
        <span title="a transmission's path from its source through resolved hops to the observer; dashed where hops did not resolve to a placed node">
          <i className="line" style={{ background: ROUTE_COLOR }} />routes ({formatNumber(routeCount)})
        </span>
      )}
    </div>
  );
}
