/** A payload type (ADVERT, GRP_TXT…) as a coloured tag. */
import React from 'react';
import { payloadTypeName, TYPE_COLORS } from '../lib/mesh-constants';

export function TypeBadge({ type }) {
  const color = TYPE_COLORS[type] || 'var(--role-unknown)';
  return <span className="tag tinted" style={{ '--tag-color': color }}>{payloadTypeName(type)}</span>;
}
