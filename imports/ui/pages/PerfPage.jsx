/**
 * Perf: the server's health and performance (`perf` view), live. Headline figures with
 * sparklines of their recent history (kept in this browser since the page opened), then every
 * section of the health document as tables.
 */
import React from 'react';
import { usePerfHistory } from '../hooks/use-perf-history';
import { PageHeader } from '../components/PageHeader';
import { ViewState } from '../components/ViewState';
import { Card } from '../components/Card';
import { StatTile } from '../components/StatTile';
import { Sparkline } from '../components/Sparkline';
import { KeyValueTable } from '../components/KeyValueTable';
import { formatBytes, formatDecimal, formatDuration, formatNumber, formatPct } from '../lib/format';

function Trend({ history, field }) {
  return <Sparkline values={history.map((sample) => sample[field])} width={140} height={26} />;
}

function omit(object, keys) {
  const copy = { ...(object || {}) };
  for (const key of keys) delete copy[key];
  return copy;
}

export function PerfPage() {
  const { data, loading, error, history } = usePerfHistory();
  const perf = data && data.perf;
  const ingest = (data && data.ingest) || {};
  const store = (data && data.store) || {};
  const publish = (data && data.publish) || {};
  return (
    <>
      <PageHeader title="Server performance" subtitle={data ? `Meteor ${data.meteorRelease || '?'} · status ${data.status} · up ${formatDuration(perf ? perf.uptimeS * 1000 : null)}` : 'Health of the MeshPulse server.'} />
      <ViewState loading={loading} error={error} hasData={Boolean(data)}>
        {data && perf && (
          <>
            <div className="stat-grid" data-testid="perf-stats">
              <StatTile label="Ingest (10 s)" value={`${formatDecimal(ingest.ratePerSecond && ingest.ratePerSecond.last10s, 1)}/s`}
                sub={<Trend history={history} field="ingestPerSecond" />} />
              <StatTile label="Queue depth" value={formatNumber(ingest.queue && ingest.queue.depth)} sub={<Trend history={history} field="queueDepth" />} />
              <StatTile label="Heap used" value={`${formatNumber(perf.memory.heapUsedMB)} MB`} sub={<Trend history={history} field="heapUsedMB" />} />
              <StatTile label="Event loop p99" value={`${formatDecimal(perf.eventLoopDelayMs.p99, 1)} ms`} sub={<Trend history={history} field="loopP99Ms" />} />
              <StatTile label="Transmissions stored" value={formatNumber(store.transmissions)} sub={<Trend history={history} field="transmissions" />} />
              <StatTile label="Store memory" value={formatBytes(store.estimatedBytes)} sub={`of ${formatBytes(store.memoryBudgetBytes)} budget`} />
              <StatTile label="Method p95" value={`${formatDecimal(perf.methodMs.p95, 1)} ms`} sub={`${formatNumber(perf.methodMs.count)} calls`} />
              <StatTile label="Sessions" value={formatNumber(data.sessions)} sub={`${formatNumber(publish.subscribers)} subscribers in ${formatNumber(publish.groups)} groups`} />
              <StatTile label="Cache hit ratio" value={formatPct(data.cache ? 100 * data.cache.hitRatio : null)} sub={`${formatNumber(data.cache && data.cache.entries)} entries`} />
              <StatTile label="Accepted / rejected" value={formatNumber(ingest.accepted)} sub={`${formatNumber(ingest.rejected)} rejected · ${formatNumber(ingest.duplicates)} duplicates`} />
            </div>
            <div className="grid-3">
              <Card title="Process"><KeyValueTable value={perf} /></Card>
              <Card title="Ingest"><KeyValueTable value={omit(ingest, ['lastDropped'])} /></Card>
              <Card title="Store"><KeyValueTable value={store} /></Card>
              <Card title="Publish hub"><KeyValueTable value={publish} /></Card>
              <Card title="Method cache"><KeyValueTable value={data.cache} /></Card>
              <Card title="Persistence"><KeyValueTable value={data.persistence} /></Card>
              <Card title="Sources"><KeyValueTable value={data.sources} /></Card>
              <Card title="Transport"><KeyValueTable value={{ websocketCompression: data.websocketCompression, asyncQueue: data.asyncQueue }} /></Card>
            </div>
          </>
        )}
      </ViewState>
    </>
  );
}
