/** One headline figure with its label and an optional second line. */
import React from 'react';
import { Clip } from './Clip';

export function StatTile({ label, value, sub, tone }) {
  return (
    <div className={`stat ${tone ? `tone-${tone}` : ''}`}>
      <div className="stat-label">{label}</div>
      <Clip className="stat-value num">{value}</Clip>
      {sub && <Clip className="stat-sub">{sub}</Clip>}
    </div>
  );
}
