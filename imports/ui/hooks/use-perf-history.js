/**
 * The `perf` view (server health), plus a rolling history of a few of its figures kept on the
 * client since the page opened, for sparklines. History is bounded to `maxSamples`.
 */
import { useEffect, useRef, useState } from 'react';
import { useView } from './use-view';

export function usePerfHistory(maxSamples = 120) {
  const perf = useView('perf', {});
  const [history, setHistory] = useState([]);
  const lastGenerated = useRef(null);
  const { data } = perf;
  useEffect(() => {
    if (!data || data.generatedAt === lastGenerated.current) return;
    lastGenerated.current = data.generatedAt;
    const ingest = data.ingest || {};
    const sample = {
      time: data.generatedAt,
      ingestPerSecond: ingest.ratePerSecond ? ingest.ratePerSecond.last10s : null,
      heapUsedMB: data.perf && data.perf.memory ? data.perf.memory.heapUsedMB : null,
      loopP99Ms: data.perf && data.perf.eventLoopDelayMs ? data.perf.eventLoopDelayMs.p99 : null,
      queueDepth: ingest.queue ? ingest.queue.depth : null,
      transmissions: data.store ? data.store.transmissions : null,
    };
    setHistory((previous) => [...previous.slice(-(maxSamples - 1)), sample]);
  }, [data, maxSamples]);
  return { ...perf, history };
}
