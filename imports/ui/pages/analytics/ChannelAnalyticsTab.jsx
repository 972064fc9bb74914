/** Channel analytics: active channels, time x channel timeline (minute to hour buckets, as the view picks), top senders, message lengths. */
import React, { useMemo } from 'react';
import { useView } from '../../hooks/use-view';
import { ViewState } from '../../components/ViewState';
import { Card } from '../../components/Card';
import { StatTile } from '../../components/StatTile';
import { BarChart } from '../../components/BarChart';
import { Heatmap } from '../../components/Heatmap';
import { HBarList } from '../../components/HBarList';
import { formatNumber } from '../../lib/format';
import { timelineHours, timelineLabels, perBucketText } from '../../lib/time-buckets';

export function ChannelAnalyticsTab() {
  const stats = useView('stats', {});
  // As many hours as the store spans (≤ 24), in buckets the view picks ('auto': minutes for a
  // young server), so its timeline is not one lit column of 24.
  const hours = timelineHours(stats.data ? stats.data.oldest : null, stats.data ? stats.data.newest : null);
  const params = useMemo(() => ({ hours, bucket: 'auto' }), [hours]);
  const { data, loading, error } = useView('channelAnalytics', params, { enabled: Boolean(stats.data) });
  return (
    <ViewState loading={loading} error={error} hasData={Boolean(data)} empty={data && data.messages === 0} emptyText="No channel traffic yet.">
      {data && (
        <>
          <div className="stat-grid compact">
            <StatTile label="Channels heard" value={formatNumber(data.channels)} sub={`${formatNumber(data.activeChannels)} active in 24 h`} />
            <StatTile label="Decryptable, active" value={formatNumber(data.activeDecryptable)} />
            <StatTile label="Messages" value={formatNumber(data.messages)} sub={`${formatNumber(data.decrypted)} decrypted`} />
            <StatTile label="Senders" value={formatNumber(data.senders)} />
          </div>
          <Card title="Timeline" subtitle={`messages ${perBucketText(data.timeline.bucket)} and channel, last ${data.timeline.hours} h`}>
            <Heatmap
              rows={data.timeline.channels.map((c) => ({ label: c.name || `#${c.hash}`, values: c.counts }))}
              colLabels={timelineLabels(data.timeline)}
              cellHeight={20} />
          </Card>
          <div className="grid-2">
            <Card title="Top senders" subtitle="decrypted messages (retries count again)">
              <HBarList items={data.topSenders.map((s) => ({ key: s.sender, label: s.sender, sub: s.channels.map((c) => c.name).join(', '), value: s.messages }))} />
            </Card>
            <Card title="Message lengths" subtitle="characters">
              <BarChart data={data.lengths.map((bin) => ({ label: bin.to === null ? `${bin.from}+` : String(bin.from), value: bin.count }))} color="var(--accent-3)" />
            </Card>
          </div>
        </>
      )}
    </ViewState>
  );
}
