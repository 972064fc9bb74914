/**
 * Perf: the server's health and performance (`perf` view), live. Which data path this browser
 * uses, headline figures, charts of the same figures over time (kept in this tab since it first
 * opened Perf: the server sends only the current values), then input health (what was refused
 * and why, the memory account against its budget, the node directory, publish failures, MQTT
 * sources), and the remaining sections as tables.
 */
import React from 'react';
import { usePerfHistory } from '../hooks/use-perf-history';
import { useDataMode } from '../hooks/use-data-mode';
import { useNow } from '../hooks/use-now';
import { PageHeader } from '../components/PageHeader';
import { ViewState } from '../components/ViewState';
import { Card } from '../components/Card';
import { StatTile } from '../components/StatTile';
import { TimeSeriesChart } from '../components/TimeSeriesChart';
import { HBarList } from '../components/HBarList';
import { KeyValueTable } from '../components/KeyValueTable';
import { Clip } from '../components/Clip';
import { formatAgo, formatBytes, formatDecimal, formatDuration, formatNumber, formatPct } from '../lib/format';
import { seriesOf, rejectRows, memoryPartRows } from '../lib/perf-series';

const MS = (value) => `${formatDecimal(value, 1)} ms`;
const MB = (value) => `${formatNumber(value)} MB`;
const PER_SECOND = (value) => `${formatDecimal(value, 1)}/s`;
const PCT = (value) => formatPct(value, 0);

function Chart({ history, lines, yFormat, zeroBased = true }) {
  if (history.length < 2) return <div className="chart-empty">Collecting samples…</div>;
  return (
    <TimeSeriesChart height={130} yFormat={yFormat} zeroBased={zeroBased}
      series={lines.map(([field, name, color]) => ({ name, color, points: seriesOf(history, field) }))} />
  );
}

/** Label/value pairs on a grid, values formatted by the caller. */
function Figures({ items }) {
  return (
    <div className="kv-grid">
      {items.map(([label, value, tone]) => (
        <div key={label}><Clip as="span">{label}</Clip><span className={`num${tone ? ` tone-${tone}-text` : ''}`}>{value}</span></div>
      ))}
    </div>
  );
}

function PathInUse({ mode }) {
  return (
    <span className="perf-path" data-testid="perf-path">
      data path in use:
      <span className={`tag${mode === 'reactive' ? ' on' : ''}`}>reactive (publications)</span>
      <span className={`tag${mode === 'method' ? ' on' : ''}`}>method (polling)</span>
    </span>
  );
}

function Rejections({ store, ingest }) {
  const rows = rejectRows(store, ingest);
  return (
    <>
      <Figures items={[
        ['rejected by the store', formatNumber(store.rejected), store.rejected > 0 ? 'warn' : null],
        ['rejected before the store', formatNumber(ingest.rejected), ingest.rejected > 0 ? 'warn' : null],
        ['adverts with a bad signature', formatNumber((store.rejectReasons || {}).bad_signature || 0), (store.rejectReasons || {}).bad_signature > 0 ? 'bad' : null],
        ['advert signatures checked with', store.advertVerification || 'unknown', store.advertVerification === 'off' ? 'warn' : null],
        ['adverts from the future', formatNumber(store.advertsFromFuture), store.advertsFromFuture > 0 ? 'warn' : null],
        ['adverts not newer', formatNumber(store.advertsNotNewer)],
        ['duplicates', formatNumber(store.duplicates)],
        ['observations dropped', formatNumber(store.observationsDropped)],
        ['view updates that threw', formatNumber(store.viewErrors || 0), store.viewErrors > 0 ? 'bad' : null],
      ]} />
      {store.lastViewError ? (
        <div className="perf-note" data-testid="last-view-error">
          Last view error: {store.lastViewError.view || 'a view'} on packet <span className="mono">{store.lastViewError.hash || 'unknown'}</span>: {store.lastViewError.reason}
          {' '}(that update skipped; the other views and later packets went on)
        </div>
      ) : null}
      {rows.length === 0 ? <div className="perf-note">Nothing refused so far.</div> : (
        <table className="table nowrap-table" data-testid="reject-reasons">
          <thead><tr><th>Reason</th><th>Where</th><th className="num">Count</th></tr></thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.key}><td className="mono">{row.reason}</td><td className="muted">{row.where}</td><td className="num">{formatNumber(row.count)}</td></tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

function MemoryAccount({ store }) {
  const used = store.estimatedBytes;
  const budget = store.memoryBudgetBytes;
  return (
    <>
      <div className="perf-note">
        {formatBytes(used)} of {formatBytes(budget)} budget ({formatPct(budget ? (100 * used) / budget : null)})
      </div>
      <HBarList items={memoryPartRows(store).map((row) => ({ key: row.part, label: row.part, value: row.bytes, sub: formatPct(row.budgetPct, 2) }))}
        valueFormat={formatBytes} color="var(--accent-3)" empty="No memory account" wide />
    </>
  );
}

function Directory({ directory }) {
  const d = directory || {};
  return (
    <Figures items={[
      ['nodes', `${formatNumber(d.nodes)} of ${formatNumber(d.maxNodes)}`],
      ['observers', formatNumber(d.observers)],
      ['idle observers', `${formatNumber(d.idleObservers)} of ${formatNumber(d.maxIdleObservers)}`],
      ['prefix stubs', formatNumber(d.stubs)],
      ['nodes aged out', formatNumber(d.nodesAgedOut)],
      ['nodes over cap', formatNumber(d.nodesOverCap), d.nodesOverCap > 0 ? 'warn' : null],
      ['observers aged out', formatNumber(d.observersAgedOut)],
      ['observers over cap', formatNumber(d.observersOverCap), d.observersOverCap > 0 ? 'warn' : null],
    ]} />
  );
}

function PublishFailures({ publish, now }) {
  const p = publish || {};
  const failing = Object.entries(p.perView || {}).filter(([, entry]) => entry.failing > 0 || entry.failures > 0);
  return (
    <>
      <Figures items={[
        ['groups', formatNumber(p.groups)],
        ['subscribers', formatNumber(p.subscribers)],
        ['failing groups', formatNumber(p.failingGroups), p.failingGroups > 0 ? 'bad' : null],
        ['snapshot errors', formatNumber(p.errors), p.errors > 0 ? 'warn' : null],
        ['tick errors', formatNumber(p.tickErrors), p.tickErrors > 0 ? 'bad' : null],
        ['subscribe errors', formatNumber(p.subscribeErrors)],
        ['sink errors', formatNumber(p.sinkErrors)],
        ['recoveries', formatNumber(p.recoveries)],
        ['refused', formatNumber(p.refused)],
      ]} />
      <div className="perf-note" data-testid="publish-last-error">
        {p.lastError
          ? <Clip as="span" className="tone-bad-text">{`last error ${formatAgo(p.lastError.at, now)} in ${p.lastError.view || '?'}: ${p.lastError.message || ''}`}</Clip>
          : 'No publish error since start.'}
      </div>
      {failing.length > 0 && (
        <table className="table nowrap-table">
          <thead><tr><th>View</th><th className="num">Failing groups</th><th className="num">Failed snapshots</th></tr></thead>
          <tbody>{failing.map(([view, entry]) => <tr key={view}><td>{view}</td><td className="num">{formatNumber(entry.failing)}</td><td className="num">{formatNumber(entry.failures)}</td></tr>)}</tbody>
        </table>
      )}
    </>
  );
}

function brokerDrops(broker) {
  if (!broker || broker.sys === 'off') return 'not read ($SYS off)';
  if (broker.sys === 'refused') return 'not read ($SYS refused)';
  if (broker.droppedSinceStart === null || broker.droppedSinceStart === undefined) {
    // The broker answered on $SYS (its version) but sent no drop counter: mosquitto publishes it
    // only when it changes, and one that has not changed for minutes is not sent to a late
    // subscriber (seen with 2.0.11). No change seen is what we know, so say that, not "—".
    return broker.sys === 'waiting' ? 'waiting for $SYS' : 'none seen';
  }
  return formatNumber(broker.droppedSinceStart);
}

function Sources({ sources, now }) {
  const mqtt = (sources && sources.mqtt) || [];
  const simulator = (sources && sources.simulator) || {};
  return (
    <>
      <div className="perf-note">
        Simulator: {simulator.running ? `running at ${formatNumber(simulator.ratePerSecond)}/s, ${formatNumber(simulator.emitted)} sent` : 'off'}
      </div>
      {mqtt.length === 0 ? <div className="perf-note">No MQTT broker configured (settings: sources.mqtt).</div> : (
        <div className="table-wrap">
          <table className="table nowrap-table" data-testid="mqtt-sources">
            <thead>
              <tr><th>Broker</th><th>Connected</th><th>Session</th><th className="num">Msgs/s</th><th className="num">Messages</th><th className="num">Redelivered</th><th className="num">Broker drops</th><th className="num">Reconnects</th><th>Last error</th></tr>
            </thead>
            <tbody>
              {mqtt.map((source, i) => (
                <tr key={`${source.url}-${i}`}>
                  <td><Clip as="span" className="cell-clip wide mono">{source.url}</Clip></td>
                  <td className={source.connected ? '' : 'tone-bad-text'}>
                    {source.connected ? `yes, ${formatAgo(source.lastConnectedAt, now)}`
                      : `no${Number.isFinite(source.nextReconnectMs) ? `, retry in ${formatDuration(source.nextReconnectMs)}` : ''}`}
                  </td>
                  <td>{`${source.session || '—'}${source.sessionPresent ? ' (resumed)' : ''}, QoS ${formatNumber(source.qos)}`}</td>
                  <td className="num">{formatDecimal(source.messagesPerSecond, 1)}</td>
                  <td className="num">{formatNumber(source.messages)}</td>
                  <td className="num">{formatNumber(source.redelivered)}</td>
                  <td className="num">{brokerDrops(source.broker)}</td>
                  <td className="num">{formatNumber(source.reconnects)}</td>
                  <td><Clip as="span" className="cell-clip">{source.lastError ? String(source.lastError.message || source.lastError) : '—'}</Clip></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

export function PerfPage() {
  const { data, loading, error, history } = usePerfHistory();
  const { mode } = useDataMode();
  const now = useNow(5000);
  const perf = data && data.perf;
  const ingest = (data && data.ingest) || {};
  const store = (data && data.store) || {};
  const publish = (data && data.publish) || {};
  const last = history.length ? history[history.length - 1] : {};
  const methodCalls = perf && perf.methodMs ? perf.methodMs.count : 0;
  return (
    <>
      <PageHeader title="Server performance"
        subtitle={data ? `Meteor ${data.meteorRelease || '?'} · status ${data.status} · up ${formatDuration(perf ? perf.uptimeS * 1000 : null)}` : 'Health of the MeshPulse server.'}>
        <PathInUse mode={mode} />
      </PageHeader>
      <ViewState loading={loading} error={error} hasData={Boolean(data)}>
        {data && perf && (
          <>
            <div className="stat-grid" data-testid="perf-stats">
              <StatTile label="Ingest (10 s)" value={PER_SECOND(ingest.ratePerSecond && ingest.ratePerSecond.last10s)} sub={`${formatNumber(ingest.accepted)} accepted`} />
              <StatTile label="Queue depth" value={formatNumber(ingest.queue && ingest.queue.depth)} sub={`${formatNumber(ingest.queue && ingest.queue.dropped)} dropped`} />
              <StatTile label="Memory (RSS)" value={MB(perf.memory.rssMB)} sub={`heap ${MB(perf.memory.heapUsedMB)} of ${MB(perf.memory.heapTotalMB)}`} />
              <StatTile label="CPU" value={PCT(last.cpuPct)} sub="of one core, since the last sample" />
              <StatTile label="Event loop p99" value={MS(perf.eventLoopDelayMs.p99)} sub={`p50 ${MS(perf.eventLoopDelayMs.p50)}`} />
              {mode === 'reactive'
                ? <StatTile label="Publish p95" value={MS(publish.snapshotMs && publish.snapshotMs.p95)} sub={`snapshot per group, ${formatNumber(publish.groups)} groups`} />
                : <StatTile label="Method p95" value={MS(perf.methodMs.p95)} sub={`${formatNumber(methodCalls)} calls`} />}
              <StatTile label="Sessions" value={formatNumber(data.sessions)} sub={`${formatNumber(publish.subscribers)} subscribers`} />
              <StatTile label="Store memory" value={formatPct(store.memoryBudgetBytes ? (100 * store.estimatedBytes) / store.memoryBudgetBytes : null)}
                sub={`${formatBytes(store.estimatedBytes)} of ${formatBytes(store.memoryBudgetBytes)}`} />
            </div>
            <div className="grid-3" data-testid="perf-charts">
              <Card title="Memory" subtitle="MB">
                <Chart history={history} yFormat={MB} lines={[['rssMB', 'RSS', 'var(--accent)'], ['heapUsedMB', 'heap used', 'var(--accent-2)']]} />
              </Card>
              <Card title="CPU" subtitle="% of one core">
                <Chart history={history} yFormat={PCT} lines={[['cpuPct', 'CPU', 'var(--accent-3)']]} />
              </Card>
              <Card title="Event-loop delay" subtitle="ms">
                <Chart history={history} yFormat={MS} lines={[['loopP50Ms', 'p50', 'var(--accent)'], ['loopP99Ms', 'p99', 'var(--bad)']]} />
              </Card>
              <Card title="Ingest rate" subtitle="accepted reports/s, 10 s mean">
                <Chart history={history} yFormat={PER_SECOND} lines={[['ingestPerSecond', 'ingest', 'var(--accent)']]} />
              </Card>
              <Card title="Ingest queue" subtitle="reports waiting">
                <Chart history={history} yFormat={formatNumber} lines={[['queueDepth', 'depth', 'var(--accent-2)']]} />
              </Card>
              {mode === 'reactive' ? (
                <Card title="Publish latency" subtitle="ms per view snapshot (the reactive path)">
                  <Chart history={history} yFormat={MS} lines={[['publishP50Ms', 'p50', 'var(--accent)'], ['publishP95Ms', 'p95', 'var(--accent-2)']]} />
                </Card>
              ) : (
                <Card title="Method latency" subtitle="ms per view call (the method path)">
                  {methodCalls > 0 ? <Chart history={history} yFormat={MS} lines={[['methodP50Ms', 'p50', 'var(--accent)'], ['methodP95Ms', 'p95', 'var(--accent-2)']]} />
                    : <div className="perf-note">No method call answered yet.</div>}
                </Card>
              )}
            </div>
            <div className="perf-note">
              {mode === 'reactive'
                ? `This browser uses publications, so the method path's figures are left out${methodCalls > 0 ? ` (other clients made ${formatNumber(methodCalls)} calls, p95 ${MS(perf.methodMs.p95)})` : ''}.`
                : `This browser polls with methods; publish latency (other clients' subscriptions): p95 ${MS(publish.snapshotMs && publish.snapshotMs.p95)}.`}
            </div>
            <h2 className="section-title">Input health</h2>
            <div className="grid-3" data-testid="input-health">
              <Card title="Refused input" subtitle="by reason"><Rejections store={store} ingest={ingest} /></Card>
              <Card title="Memory account" subtitle="estimated bytes by part"><MemoryAccount store={store} /></Card>
              <div className="stack">
                <Card title="Node directory"><Directory directory={store.directory} /></Card>
                <Card title="Publish hub"><PublishFailures publish={publish} now={now} /></Card>
              </div>
            </div>
            <Card title="Sources" subtitle="simulator and MQTT brokers"><Sources sources={data.sources} now={now} /></Card>
            <details className="perf-details">
              <summary>More: persistence, method cache, transport</summary>
              <div className="grid-3">
                <Card title="Persistence"><KeyValueTable value={data.persistence} /></Card>
                <Card title="Method cache"><KeyValueTable value={data.cache && { ...data.cache, views: undefined }} /></Card>
                <Card title="Transport"><KeyValueTable value={{ websocketCompression: data.websocketCompression, sharedSend: data.sharedSend, sharedDeflate: data.sharedDeflate, asyncQueue: data.asyncQueue }} /></Card>
              </div>
            </details>
          </>
        )}
      </ViewState>
    </>
  );
}
