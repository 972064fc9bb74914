/**
 * The `perf` view (server health), plus a rolling history of its figures (lib/perf-series.js):
 * the server's own history (one sample per 5 s for the last hour, sent with the document) so
 * the charts are full when the page opens, then one sample per document, bounded to
 * `maxSamples`. Kept for the browser tab, not the page: leaving Perf and coming back keeps it.
 */
import { useEffect, useState } from 'react';
import { useView } from './use-view';
import { appendSample, mergeServerHistory } from '../lib/perf-series';

let kept = [];

export function usePerfHistory(maxSamples = 1500) {
  const perf = useView('perf', {});
  const [history, setHistory] = useState(kept);
  const { data } = perf;
  useEffect(() => {
    const next = appendSample(mergeServerHistory(kept, data, maxSamples), data, maxSamples);
    if (next === kept) return;
    kept = next;
    setHistory(next);
  }, [data, maxSamples]);
  return { ...perf, history };
}
