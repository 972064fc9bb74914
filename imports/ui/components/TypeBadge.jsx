/** A payload type (ADVERT, GRP_TXT…) as a coloured tag. */
import React from 'react';
import { payloadTypeName, TYPE_COLORS } from '../lib/mesh-constants';

export function TypeBadge({ type }) {
  const color = TYPE_COLORS[type] || '#94a3b8';
  return <span className="tag" style={{ color, borderColor: `${color}66` }}>{payloadTypeName(type)}</span>;
}
