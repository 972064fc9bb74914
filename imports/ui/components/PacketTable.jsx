/**
 * Transmissions, one row per hash: time, type, route, hops, how many observers heard it (with
 * the number of reports), best SNR, size, what it is and the longest path heard (Hops counts
 * that path's hops). `compact` drops route, size and path for narrow places. Memoized: a paused
 * or unchanged list costs no render.
 */
import React, { memo } from 'react';
import { Link } from './Link';
import { TypeBadge } from './TypeBadge';
import { PacketSummary } from './PacketSummary';
import { HopPath } from './HopPath';
import { formatClock, formatDb, formatNumber } from '../lib/format';
import { routeTypeName } from '../lib/mesh-constants';
import { packetSummaryText, shownPath, shownHopCount, shownPathText, markedHops, TRACE } from '../lib/text';
import { useVirtualRows } from '../hooks/use-virtual-rows';

function PacketRow({ packet, compact }) {
  return (
    <tr data-hash={packet.hash}>
      <td className="num nowrap">{formatClock(packet.time)}</td>
      <td><Link to={`/packets/${packet.hash}`} className="mono">{packet.hash.slice(0, 8)}</Link></td>
      <td><TypeBadge type={packet.payloadType} /></td>
      {!compact && <td className="muted small">{routeTypeName(packet.routeType).replace('TRANSPORT_', 'T_')}</td>}
      <td className="num">{shownHopCount(packet)}</td>
      <td className="num" title={`${formatNumber(packet.observationCount)} reports from ${formatNumber(packet.observerCount)} observers`}>
        <span className={packet.observerCount > 1 ? 'heard multi' : 'heard'}>{formatNumber(packet.observerCount)}</span>
        {packet.observationCount > packet.observerCount && <span className="muted small"> /{formatNumber(packet.observationCount)}</span>}
      </td>
      <td className="num">{formatDb(packet.bestSnr)}</td>
      {!compact && <td className="num">{packet.size}</td>}
      <td className="clip" title={packetSummaryText(packet)}><PacketSummary packet={packet} /></td>
      {!compact && (
        <td className="clip" title={shownPathText(packet)}>
          {packet.payloadType === TRACE ? <span className="muted">{shownPathText(packet)}</span> : <HopPath hops={shownPath(packet)} marked={markedHops(packet)} max={8} />}
        </td>
      )}
    </tr>
  );
}

// A node search's matched path (fresh arrays each update): equal when it names the same hops.
function sameMatch(m, n) {
  if (!m || !n) return !m === !n;
  return m.path.join() === n.path.join() && m.hops.join() === n.hops.join();
}

// Rows arrive as fresh objects on every update (minimongo fetch, method answers), so compare what
// can change for one transmission: a new report always moves lastTime and the counts; a changed
// node search changes what its path cell shows.
function sameRow(a, b) {
  const p = a.packet;
  const q = b.packet;
  return a.compact === b.compact && p.hash === q.hash && p.lastTime === q.lastTime
    && p.observationCount === q.observationCount && p.observerCount === q.observerCount && p.bestSnr === q.bestSnr
    && sameMatch(p.nodeMatch, q.nodeMatch);
}

const MemoRow = memo(PacketRow, sameRow);

// Both columns describe one copy: the longest path heard (lib/text.js, shownPath).
const HOPS_TITLE = 'hops of the longest path any observer heard; the first copy may have had fewer';

const ROW_HEIGHT = 27; // px; fixed by .packets-table rows in main.css, so windowing can do arithmetic

function Spacer({ height, columns }) {
  if (height <= 0) return null;
  return <tr aria-hidden="true" className="spacer"><td colSpan={columns} style={{ height }} /></tr>;
}

/**
 * With `scrollHeight` (a CSS height) the table scrolls inside its own box and renders only the
 * rows in view: 200 fresh rows four times a second would otherwise cost ~100 ms a render.
 */
export const PacketTable = memo(function PacketTable({ packets, compact = false, scrollHeight = null }) {
  const { ref, start, end } = useVirtualRows(packets.length, ROW_HEIGHT);
  const windowed = scrollHeight !== null;
  const first = windowed ? start : 0;
  const last = windowed ? end : packets.length;
  const columns = compact ? 7 : 10;
  return (
    <div className={windowed ? 'table-wrap table-scroll' : 'table-wrap'} ref={ref} style={windowed ? { height: scrollHeight } : undefined}>
      <table className="table packets-table">
        {/* Fixed layout: the figures keep their width, What and Path share the rest and clip with an ellipsis. */}
        <colgroup>
          <col className="w-time" /><col className="w-hash" /><col className="w-type" />{!compact && <col className="w-route" />}
          <col className="w-hops" /><col className="w-heard" /><col className="w-snr" />{!compact && <col className="w-bytes" />}
          <col />{!compact && <col className="w-path" />}
        </colgroup>
        <thead>
          <tr>
            <th>Time</th><th>Hash</th><th>Type</th>{!compact && <th>Route</th>}<th className="num" title={compact ? HOPS_TITLE : `${HOPS_TITLE} (the Path column shows it)`}>Hops</th>
            <th className="num" title="observers that heard it / reports">Heard by</th><th className="num">Best SNR</th>
            {!compact && <th className="num">Bytes</th>}<th>What</th>{!compact && <th>Path</th>}
          </tr>
        </thead>
        <tbody>
          <Spacer height={first * ROW_HEIGHT} columns={columns} />
          {packets.slice(first, last).map((packet) => <MemoRow key={packet.hash} packet={packet} compact={compact} />)}
          <Spacer height={(packets.length - last) * ROW_HEIGHT} columns={columns} />
        </tbody>
      </table>
    </div>
  );
});
