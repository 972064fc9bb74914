/**
 * Under the header: the scope (`?region=`) names a region no observer reports. Every scoped view
 * would answer like an empty mesh, so this says the region is unknown and offers the known ones.
 */
import React from 'react';
import { useObservers } from '../hooks/use-observers';
import { useRegion } from '../hooks/use-region';
import { isUnknownRegion } from '../lib/region-scope';

/** The known regions, or null while the observers list loads or failed (nothing is called unknown then). */
export function useKnownRegions() {
  const { regions, loading, error } = useObservers({ allRegions: true });
  return loading || error ? null : regions;
}

export function RegionNotice() {
  const known = useKnownRegions();
  const { region, setRegion } = useRegion();
  if (!isUnknownRegion(region, known)) return null;
  return (
    <div className="banner banner-warn" role="status" data-testid="unknown-region">
      Region “{region}” is unknown: no observer reports from it, so every page scoped to it is empty.{' '}
      {known.length === 0 ? 'No observer has reported a region yet.' : <>Known regions:{' '}
        {known.map((name, i) => (
          <React.Fragment key={name}>{i > 0 && ', '}<button type="button" className="link-btn" onClick={() => setRegion(name)}>{name}</button></React.Fragment>
        ))}.</>}{' '}
      <button type="button" className="link-btn" onClick={() => setRegion('')}>Show all regions</button>
    </div>
  );
}
