/**
 * A path of hop hashes as chips: "1a → 20 → c4". Long paths are cut with a count; `marked` hops
 * (why a node search matched) are highlighted and never cut off (lib/text.js hopWindow).
 */
import React from 'react';
import { hopWindow } from '../lib/text';

export function HopPath({ hops, max = 8, marked = [] }) {
  if (!hops || hops.length === 0) return <span className="muted">direct</span>;
  const { first, end } = hopWindow(hops.length, max, marked);
  return (
    <span className="hops mono">
      {first > 0 && <span className="muted">+{first} </span>}
      {hops.slice(first, end).map((hop, offset) => (
        <React.Fragment key={`${first + offset}-${hop}`}>
          {offset > 0 && <span className="arrow">›</span>}
          <span className={marked.includes(first + offset) ? 'hop hop-match' : 'hop'}>{hop}</span>
        </React.Fragment>
      ))}
      {hops.length > end && <span className="muted"> +{hops.length - end}</span>}
    </span>
  );
}
