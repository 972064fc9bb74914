/**
 * Map: nodes by position and role, lines between the busiest adjacent hops. Tiles come from
 * settings.public.tileUrl when set; without it the map is drawn on a plain lat/lon grid.
 */
import React from 'react';
import { useMapData } from '../hooks/use-map-data';
import { publicSettings } from '../lib/settings';
import { PageHeader } from '../components/PageHeader';
import { ViewState } from '../components/ViewState';
import { Card } from '../components/Card';
import { MeshMap } from '../components/MeshMap';
import { MapLegend } from '../components/MapLegend';
import { NodeLink } from '../components/NodeLink';
import { formatNumber } from '../lib/format';

export function MapPage() {
  const { points, links, unplacedPairs, totalNodes, loading, error } = useMapData();
  const { tileUrl } = publicSettings();
  const roles = Array.from(new Set(points.map((p) => p.role))).sort();
  return (
    <>
      <PageHeader title="Map"
        subtitle={`${formatNumber(points.length)} of ${formatNumber(totalNodes)} nodes have a position. ${tileUrl ? 'Tiles from settings.public.tileUrl.' : 'No tile server configured: plain projection.'}`} />
      <ViewState loading={loading} error={error} hasData={points.length > 0} empty={!loading && points.length === 0} emptyText="No node has advertised a position yet.">
        <div className="map-wrap">
          <MeshMap points={points} links={links} tileUrl={tileUrl} />
          <MapLegend roles={roles} linkCount={links.length} />
        </div>
        <Card title="Links drawn" subtitle={`busiest adjacent hop pairs whose hops resolve to one placed node${unplacedPairs ? `; ${unplacedPairs} pairs could not be placed` : ''}`}>
          {links.length === 0 ? <div className="muted">No busy pair resolves to two placed nodes yet.</div> : (
            <table className="table">
              <thead><tr><th>From</th><th>To</th><th className="num">Appearances</th></tr></thead>
              <tbody>
                {links.map((link) => (
                  <tr key={link.key}>
                    <td><NodeLink pubKey={link.from.pubKey} name={link.from.name} /></td>
                    <td><NodeLink pubKey={link.to.pubKey} name={link.to.name} /></td>
                    <td className="num">{formatNumber(link.count)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </Card>
      </ViewState>
    </>
  );
}
