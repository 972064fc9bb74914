/**
 * How old the data on screen is, ticking: now - generatedAt of the oldest snapshot shown, and
 * now - newestPacketAt (the newest packet any shown snapshot includes). Reads the active
 * sources directly twice a second, so pages do not re-render to move this figure.
 */
import React from 'react';
import { viewSources } from '../lib/sources';
import { useNow } from '../hooks/use-now';
import { formatDuration } from '../lib/format';

function freshness(sources) {
  let oldestGenerated = null;
  let newestPacket = null;
  for (const source of sources) {
    const meta = source.state.meta;
    if (!meta) continue;
    if (meta.generatedAt && (oldestGenerated === null || meta.generatedAt < oldestGenerated)) oldestGenerated = meta.generatedAt;
    if (meta.newestPacketAt && (newestPacket === null || meta.newestPacketAt > newestPacket)) newestPacket = meta.newestPacketAt;
  }
  return { oldestGenerated, newestPacket };
}

function level(ms) {
  if (ms === null) return 'unknown';
  if (ms < 5000) return 'fresh';
  if (ms < 30000) return 'aging';
  return 'stale';
}

export function DataFreshness() {
  const now = useNow(500);
  const { oldestGenerated, newestPacket } = freshness(viewSources.active());
  const dataAge = oldestGenerated === null ? null : Math.max(0, now - oldestGenerated);
  const packetAge = newestPacket === null ? null : Math.max(0, now - newestPacket);
  return (
    <div className={`freshness ${level(dataAge)}`} data-testid="data-age"
      title="Data age: now − generatedAt of the oldest snapshot on screen. Newest packet: now − newestPacketAt.">
      <span className="dot" />
      {/* One line on a wide header; two short lines where the header is narrow (client/main.css). */}
      <span className="freshness-text">
        <span>data <b className="num" data-testid="data-age-value">{formatDuration(dataAge)}</b> old</span>
        {/* Perf's health document carries no packet time: say nothing rather than "— ago". */}
        {packetAge !== null && <span className="sep">·</span>}
        {packetAge !== null && <span>newest packet <b className="num">{formatDuration(packetAge)}</b> ago</span>}
      </span>
    </div>
  );
}
