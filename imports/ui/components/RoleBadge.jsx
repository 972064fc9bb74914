/** A node role (repeater, companion, room, sensor) as a coloured tag. */
import React from 'react';
import { ROLE_COLORS } from '../lib/mesh-constants';

export function RoleBadge({ role }) {
  const color = ROLE_COLORS[role] || ROLE_COLORS.unknown;
  return <span className="tag tinted" style={{ '--tag-color': color }}>{role || 'unknown'}</span>;
}
