/**
 * The `perf` view (server health), plus a rolling history of its figures (lib/perf-series.js),
 * one sample per document, bounded to `maxSamples`. The history is kept for the browser tab,
 * not the page: leaving Perf and coming back keeps the charts (the server keeps no history).
 */
import { useEffect, useState } from 'react';
import { useView } from './use-view';
import { appendSample } from '../lib/perf-series';

let kept = [];

export function usePerfHistory(maxSamples = 240) {
  const perf = useView('perf', {});
  const [history, setHistory] = useState(kept);
  const { data } = perf;
  useEffect(() => {
    const next = appendSample(kept, data, maxSamples);
    if (next === kept) return;
    kept = next;
    setHistory(next);
  }, [data, maxSamples]);
  return { ...perf, history };
}
