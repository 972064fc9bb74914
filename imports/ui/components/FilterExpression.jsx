/**
 * A Wireshark-style packet filter (imports/core/packet-filter.js), e.g.
 * `type == GRP_TXT && hops >= 3 && snr < -5`. Applied on Enter or with the button (a half-typed
 * expression is never sent); the server parses it and answers a bad one with its position,
 * shown under the box.
 */
import React, { useState } from 'react';
import { useKnownRegions } from './RegionNotice';
import { unknownFilterRegions } from '../lib/region-scope';

const EXAMPLE = 'type == GRP_TXT && hops >= 2';

/** The server's reason for a refused filter ("at 12: expected a value…"), or null. */
export function filterErrorText(error) {
  if (!error || !error.message || !/"filter"/.test(error.message)) return null;
  const match = /does not parse: (.*)$/.exec(error.message);
  return match ? match[1] : error.message;
}

export function FilterExpression({ applied, onApply, error }) {
  const [text, setText] = useState(applied);
  const problem = filterErrorText(error);
  const known = useKnownRegions();
  // A region no observer reports parses fine and matches nothing: say so, or it reads as an empty mesh.
  const unknownRegions = problem ? [] : unknownFilterRegions(applied, known);
  const apply = () => onApply(text.trim());
  return (
    <div className="field filter-field">
      <span>Filter</span>
      <div className="filter-row">
        <input type="search" name="filter" value={text} placeholder={EXAMPLE} spellCheck={false} autoComplete="off"
          className={problem ? 'invalid' : ''} aria-invalid={Boolean(problem)} data-testid="filter-input"
          onChange={(event) => { setText(event.target.value); if (event.target.value === '' && applied) onApply(''); }}
          onKeyDown={(event) => { if (event.key === 'Enter') apply(); }} />
        <button type="button" className="btn" onClick={apply} data-testid="filter-apply" disabled={text.trim() === applied}>Apply</button>
      </div>
      {problem && <span className="hint warn filter-error" role="alert" data-testid="filter-error">{problem}</span>}
      {unknownRegions.length > 0 && (
        <span className="hint warn filter-error" data-testid="filter-unknown-region">
          {`no observer reports region ${unknownRegions.map((name) => `“${name}”`).join(', ')}; known: ${known.length ? known.join(', ') : 'none yet'}`}
        </span>
      )}
    </div>
  );
}
