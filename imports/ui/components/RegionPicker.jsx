/**
 * The header's region scope: every page shows only what the chosen region's observers heard
 * (views that take `region`, see hooks/use-region.js). The choices are the regions of all
 * observers; the choice lives in the URL (`?region=`), so deep links and reloads keep it.
 */
import React from 'react';
import { useObservers } from '../hooks/use-observers';
import { useRegion } from '../hooks/use-region';

export function RegionPicker() {
  const { regions } = useObservers({ allRegions: true });
  const { region, setRegion } = useRegion();
  // A deep link may name a region no observer has reported yet: keep it selectable.
  const choices = region && !regions.includes(region) ? [...regions, region] : regions;
  return (
    <label className="region-picker" title="Show only what this region's observers heard">
      <span className="region-picker-label">Region</span>
      <select name="scope-region" data-testid="region-picker" value={region} onChange={(event) => setRegion(event.target.value)}>
        <option value="">all regions</option>
        {choices.map((choice) => <option key={choice} value={choice}>{choice}</option>)}
      </select>
    </label>
  );
}
