/**
 * Map: nodes by position, coloured by role and faded by status, lines between the busiest
 * adjacent hops (wider = more traffic), and routes: live, each new transmission travels along
 * its resolved path; in replay, a slider walks the last 24 h of stored traffic (the `routes`
 * view over a window ending at the slider) and Play advances it. Tiles come from
 * settings.public.tileUrl when set; without it the map is drawn on a plain lat/lon grid.
 */
import React, { useEffect, useState } from 'react';
import { useMapData } from '../hooks/use-map-data';
import { useRouteFeed } from '../hooks/use-route-feed';
import { useDebounced } from '../hooks/use-debounced';
import { publicSettings } from '../lib/settings';
import { PageHeader } from '../components/PageHeader';
import { ViewState } from '../components/ViewState';
import { Card } from '../components/Card';
import { MeshMap } from '../components/MeshMap';
import { MapLegend } from '../components/MapLegend';
import { NodeLink } from '../components/NodeLink';
import { Select } from '../components/Select';
import { formatNumber, formatDateTime } from '../lib/format';
import { replayStart, playFrom, replayBlocked, PLAY_STEP_MS } from '../lib/replay';

// How a drawn link's weaker end was resolved (lib/map-data.js; hop-resolver.js).
const RESOLVED_LABELS = { prefix: 'by hash', range: 'by radio range', nearest: 'likely (nearest)' };
const RESOLVED_TITLES = {
  prefix: 'both hop hashes are carried by one repeater each',
  range: 'a shared hash, told apart by radio range: only one combination of repeaters is within range',
  nearest: 'a shared hash, taken as the clearly shortest combination of repeaters: likely, not certain (drawn dashed)',
};

const WINDOW_OPTIONS = [5, 10, 30, 60].map((minutes) => ({ value: String(minutes), label: `${minutes} min` }));
// Play: one step of stored time (PLAY_STEP_MS) every PLAY_TICK_MS of wall time.
const PLAY_TICK_MS = 500;

function RouteControls({ mode, setMode, range, at, setAt, windowMinutes, setWindowMinutes, playing, setPlaying, feed }) {
  const position = at === null && range ? range.until : at;
  const blocked = range ? replayBlocked(range) : null;
  const play = () => {
    if (!playing) setAt(playFrom(range, at, windowMinutes * 60 * 1000)); // at the end: from the start again
    setPlaying(!playing);
  };
  return (
    <div className="route-controls" data-testid="route-controls" style={{ display: 'flex', gap: 12, alignItems: 'center', flexWrap: 'wrap', margin: '8px 0' }}>
      <div role="group" aria-label="Routes" className="mode-switch">
        <button type="button" className={mode === 'live' ? 'on' : ''} aria-pressed={mode === 'live'} onClick={() => { setMode('live'); setPlaying(false); }}>Live</button>
        <button type="button" className={mode === 'replay' ? 'on' : ''} aria-pressed={mode === 'replay'} onClick={() => setMode('replay')}>Replay</button>
      </div>
      {mode === 'replay' && range && (
        <>
          <button type="button" onClick={play} aria-label={playing ? 'Pause' : 'Play'} disabled={blocked !== null && !playing}
            title={blocked || undefined} data-testid="route-play">{playing ? 'Pause' : 'Play'}</button>
          <input type="range" aria-label="Replay time" data-testid="route-slider" min={range.from} max={range.until} step={10000}
            value={Math.min(range.until, Math.max(range.from, position))} onChange={(event) => { setPlaying(false); setAt(Number(event.target.value)); }}
            style={{ flex: '1 1 240px' }} />
          <span className="mono small">{formatDateTime(position)}</span>
          <Select label="Window" value={String(windowMinutes)} onChange={(value) => setWindowMinutes(Number(value))} options={WINDOW_OPTIONS} anyLabel={null} />
          {blocked && <span className="hint warn" data-testid="route-blocked">{blocked}</span>}
        </>
      )}
      <span className="muted small" data-testid="route-count">
        {mode === 'live' ? `${formatNumber(feed.animating.length)} moving` : `${formatNumber(feed.inRange)} transmissions in the window${feed.truncated ? ` (newest ${formatNumber(feed.lines.length + feed.undrawable)} shown)` : ''}`}
        {feed.undrawable ? `; ${formatNumber(feed.undrawable)} without two placed points` : ''}
      </span>
    </div>
  );
}

export function MapPage() {
  const { points, links, unplacedPairs, totalNodes, loading, error } = useMapData();
  const { tileUrl } = publicSettings();
  const [mode, setMode] = useState('live');
  const [at, setAt] = useState(null);
  const [windowMinutes, setWindowMinutes] = useState(10);
  const [playing, setPlaying] = useState(false);
  const settledAt = useDebounced(at, 250);
  const feed = useRouteFeed({ mode, at: mode === 'replay' ? settledAt : null, windowMs: windowMinutes * 60 * 1000 });
  const { range } = feed;

  // Replay starts near the oldest stored time of the last 24 h (lib/replay.js); Play walks it forward.
  useEffect(() => {
    if (mode === 'replay' && at === null && range) setAt(replayStart(range, windowMinutes * 60 * 1000));
  }, [mode, at, range, windowMinutes]);
  useEffect(() => {
    if (!playing || !range) return undefined;
    const timer = setInterval(() => setAt((current) => {
      const next = (current === null ? range.from : current) + PLAY_STEP_MS;
      if (next >= range.until) setPlaying(false);
      return Math.min(next, range.until);
    }), PLAY_TICK_MS);
    return () => clearInterval(timer);
  }, [playing, range]);

  const roles = Array.from(new Set(points.map((p) => p.role))).sort();
  return (
    <>
      <PageHeader title="Map"
        subtitle={`${formatNumber(points.length)} of ${formatNumber(totalNodes)} nodes have a position. ${tileUrl ? 'Tiles from settings.public.tileUrl.' : 'No tile server configured: plain projection.'}`} />
      <RouteControls mode={mode} setMode={setMode} range={range} at={at} setAt={setAt} windowMinutes={windowMinutes} setWindowMinutes={setWindowMinutes}
        playing={playing} setPlaying={setPlaying} feed={feed} />
      <ViewState loading={loading} error={error || feed.error} hasData={points.length > 0} empty={!loading && points.length === 0} emptyText="No node has advertised a position yet.">
        <div className="map-wrap">
          <MeshMap points={points} links={links} tileUrl={tileUrl} routes={mode === 'replay' ? feed.lines : []} animating={feed.animating} />
          <MapLegend roles={roles} linkCount={links.length} routeCount={mode === 'replay' ? feed.lines.length : feed.animating.length} />
        </div>
        <Card title="Links drawn" subtitle={`busiest adjacent hop pairs whose hops resolve to placed repeaters (by hash, by radio range, or likely: the nearest fit, dashed)${unplacedPairs ? `; ${formatNumber(unplacedPairs)} pairs could not be placed` : ''}`}>
          {/* On a big mesh a pair can stay unresolved for good (shared hashes, unplaced repeaters):
              say why rather than "yet". */}
          {links.length === 0 ? (
            <div className="muted">
              {unplacedPairs
                ? `None of the ${formatNumber(unplacedPairs)} busiest pairs has both hops resolved to a placed repeater: a hash shared by repeaters that radio range cannot tell apart is not guessed. Routes above are resolved per path, with their observer and source as anchors (Live and Replay).`
                : 'No busy pair resolves to two placed nodes yet.'}
            </div>
          ) : (
            <table className="table">
              <thead><tr><th>From</th><th>To</th><th>Resolved</th><th className="num">Appearances</th></tr></thead>
              <tbody>
                {links.map((link) => (
                  <tr key={link.key}>
                    <td><NodeLink pubKey={link.from.pubKey} name={link.from.name} /></td>
                    <td><NodeLink pubKey={link.to.pubKey} name={link.to.name} /></td>
                    <td className="muted" title={RESOLVED_TITLES[link.by]}>{RESOLVED_LABELS[link.by]}</td>
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
