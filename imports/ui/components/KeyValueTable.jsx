/** Any plain object as a two-column table, nested objects flattened to "a.b" keys. */
import React from 'react';

function flatten(value, prefix, rows, depth) {
  if (value && typeof value === 'object' && !Array.isArray(value) && depth < 3) {
    for (const [key, inner] of Object.entries(value)) if (inner !== undefined) flatten(inner, prefix ? `${prefix}.${key}` : key, rows, depth + 1);
  } else {
    rows.push([prefix, value]);
  }
  return rows;
}

function show(value) {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'number') return Number.isInteger(value) ? value.toLocaleString('en-US') : value.toFixed(2);
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (Array.isArray(value)) return value.length === 0 ? '[]' : JSON.stringify(value).slice(0, 120);
  if (typeof value === 'object') return JSON.stringify(value).slice(0, 120);
  return String(value);
}

export function KeyValueTable({ value }) {
  const rows = flatten(value, '', [], 0);
  if (rows.length === 0) return <div className="muted">—</div>;
  return (
    <table className="table kv">
      <tbody>
        {rows.map(([key, inner]) => (
          <tr key={key}><th>{key}</th><td className="num">{show(inner)}</td></tr>
        ))}
      </tbody>
    </table>
  );
}
