/** Subpaths: the most frequent runs of consecutive hops, and one run in detail when chosen. */
import React, { useRef, useState } from 'react';
import { useView } from '../../hooks/use-view';
import { ViewState } from '../../components/ViewState';
import { Card } from '../../components/Card';
import { Select } from '../../components/Select';
import { HopPath } from '../../components/HopPath';
import { HopLabel } from '../../components/HopLabel';
import { HBarList } from '../../components/HBarList';
import { formatDateTime, formatNumber, formatPct } from '../../lib/format';
import { useRevealOn } from '../../hooks/use-reveal';

const LENGTHS = [2, 3, 4, 5, 6, 7, 8].map((n) => ({ value: String(n), label: String(n) }));

function SubpathDetail({ subpath, onClose }) {
  const { data, loading, error } = useView('subpaths', { subpath });
  const detail = data && data.detail;
  return (
    <Card title={<>Subpath <span className="mono">{subpath}</span></>} actions={<button type="button" className="btn" onClick={onClose}>Close</button>}>
      <ViewState loading={loading} error={error} hasData={Boolean(detail)}>
        {detail && (
          <>
            <p className="num">{formatNumber(detail.count)} paths ({formatPct(100 * detail.share, 2)}) · first {formatDateTime(detail.firstSeen)} · last {formatDateTime(detail.lastSeen)}</p>
            <p>{detail.hops.map((hop, i) => <React.Fragment key={i}>{i > 0 && ' › '}<HopLabel hop={hop} /></React.Fragment>)}</p>
            <div className="grid-3">
              <div><h3>Heard by</h3><HBarList items={detail.observers.map((o) => ({ key: o.id, label: o.name || o.id.slice(0, 8), value: o.count }))} /></div>
              <div><h3>Hop before</h3><HBarList items={detail.previous.map((p) => ({ key: String(p.hop), label: p.hop === null ? '(path start)' : <span className="mono">{p.hop}</span>, value: p.count }))} /></div>
              <div><h3>Hop after</h3><HBarList items={detail.next.map((p) => ({ key: String(p.hop), label: p.hop === null ? '(path end)' : <span className="mono">{p.hop}</span>, value: p.count }))} /></div>
            </div>
          </>
        )}
      </ViewState>
    </Card>
  );
}

export function SubpathsTab() {
  const [minLength, setMinLength] = useState('2');
  const [maxLength, setMaxLength] = useState('8');
  const [chosen, setChosen] = useState(null);
  // The detail opens above the table: a row clicked far down brings it into view (every click,
  // the same row's again too, once the reader has scrolled away from it).
  const detailRef = useRef(null);
  const [clicks, setClicks] = useState(0);
  useRevealOn(detailRef, chosen ? clicks : null);
  const low = Math.min(Number(minLength), Number(maxLength));
  const high = Math.max(Number(minLength), Number(maxLength));
  const { data, loading, error } = useView('subpaths', { minLength: low, maxLength: high, limit: 50 });
  return (
    <>
      <div className="filters">
        <Select label="Min length" name="minLength" value={minLength} onChange={setMinLength} options={LENGTHS} anyLabel={null} />
        <Select label="Max length" name="maxLength" value={maxLength} onChange={setMaxLength} options={LENGTHS} anyLabel={null} />
        {data && <span className="hint num">{formatNumber(data.distinct)} distinct runs in {formatNumber(data.totalPaths)} paths of 2+ hops</span>}
      </div>
      <div ref={detailRef} data-testid="subpath-detail">{chosen && <SubpathDetail subpath={chosen} onClose={() => setChosen(null)} />}</div>
      <ViewState loading={loading} error={error} hasData={Boolean(data)} empty={data && data.subpaths.length === 0} emptyText="No multi-hop paths yet.">
        {data && (
          <Card title="Most frequent subpaths" subtitle={data.unit}>
            <table className="table">
              <thead><tr><th>Hops</th><th>Names</th><th className="num">Length</th><th className="num">Paths</th><th className="num">Share</th></tr></thead>
              <tbody>
                {data.subpaths.map((s) => (
                  <tr key={s.subpath} className="clickable" onClick={() => { setChosen(s.subpath); setClicks((n) => n + 1); }}>
                    <td><HopPath hops={s.hops} /></td>
                    <td className="small">{s.names.map((name) => name || '?').join(' › ')}</td>
                    <td className="num">{s.length}</td>
                    <td className="num">{formatNumber(s.count)}</td>
                    <td className="num">{formatPct(100 * s.share, 2)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Card>
        )}
      </ViewState>
    </>
  );
}
