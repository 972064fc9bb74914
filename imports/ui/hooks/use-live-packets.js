/**
 * useLivePackets(params, { paused, limit }): the newest transmissions, one row per hash with
 * how many observers heard it, newest first. Reactive: publication `packets.live` (rows in
 * LivePackets ordered by first-heard `time`, newest first); method: `view.packets` on an interval. Re-renders at most
 * ~4 times a second, at most `limit` rows (the server caps it at 500). `paused` freezes the
 * rows shown and drops the feed meanwhile: at 1,000 packets/s the feed replaces every row 4
 * times a second, which costs the browser even when nothing is drawn. Scoped to the header's
 * region like every view (use-region.js); `params.filter` is a packet filter expression the
 * server evaluates for the subscription (only matching packets are sent).
 */
import { useDataMode } from './use-data-mode';
import { useSource } from './use-source';
import { useScopedParams } from './use-region';

export const LIVE_ROW_LIMIT = 200;

export function useLivePackets(params = {}, { paused = false, limit = LIVE_ROW_LIMIT } = {}) {
  const { mode, refreshMs } = useDataMode();
  const scope = useScopedParams('packets', { ...params, limit });
  const state = useSource({ kind: 'live', name: 'packets', params: scope.params, mode, refreshMs, limit }, { paused, enabled: scope.ready });
  const meta = state.meta || {};
  return {
    rows: state.data || [],
    loading: state.loading || !scope.ready,
    error: state.error,
    receivedAt: state.receivedAt,
    ageMs: meta.generatedAt ? Math.max(0, Date.now() - meta.generatedAt) : null,
    newestPacketAt: meta.newestPacketAt || null,
  };
}
