/** A path of hop hashes as chips: "1a → 20 → c4". Long paths are cut with a count. */
import React from 'react';

export function HopPath({ hops, max = 8 }) {
  if (!hops || hops.length === 0) return <span className="muted">direct</span>;
  const shown = hops.slice(0, max);
  return (
    <span className="hops mono">
      {shown.map((hop, i) => (
        <React.Fragment key={`${i}-${hop}`}>
          {i > 0 && <span className="arrow">›</span>}
          <span className="hop">{hop}</span>
        </React.Fragment>
      ))}
      {hops.length > max && <span className="muted"> +{hops.length - max}</span>}
    </span>
  );
}
