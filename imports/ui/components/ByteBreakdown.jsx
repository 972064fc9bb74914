/**
 * The raw packet byte by byte: a hex dump whose bytes are coloured by field (header,
 * transport codes, path, payload fields), beside the field list. Pointing at a field or a
 * byte highlights the field's bytes in both.
 */
import React, { useMemo, useState } from 'react';
import { byteCells, rowsOf, fieldCategory } from '../lib/packet-layout';

const ROW_BYTES = 16;

export function ByteBreakdown({ raw, fields }) {
  const [active, setActive] = useState(-1);
  const cells = useMemo(() => byteCells(raw, fields), [raw, fields]);
  const rows = rowsOf(cells, ROW_BYTES);
  const classFor = (fieldIndex) => {
    if (fieldIndex < 0) return 'byte cat-none';
    const base = `byte cat-${fieldCategory(fields[fieldIndex].name)} alt-${fieldIndex % 2}`;
    if (active < 0) return base;
    return fieldIndex === active ? `${base} active` : `${base} dim`;
  };
  return (
    <div className="bytes-layout">
      <div className="hexdump mono" onMouseLeave={() => setActive(-1)} data-testid="hexdump">
        {rows.map((row, r) => (
          <div className="hexrow" key={r}>
            <span className="offset">{(r * ROW_BYTES).toString(16).padStart(4, '0')}</span>
            {row.map((cell) => (
              <span key={cell.index} className={classFor(cell.field)} onMouseEnter={() => setActive(cell.field)}
                title={cell.field >= 0 ? `${fields[cell.field].name} (byte ${cell.index})` : `byte ${cell.index}`}>
                {cell.hex}
              </span>
            ))}
          </div>
        ))}
      </div>
      <table className="table fields" onMouseLeave={() => setActive(-1)}>
        <thead><tr><th>Field</th><th className="num">Bytes</th><th>Value</th></tr></thead>
        <tbody>
          {fields.map((field, i) => (
            <tr key={`${field.name}-${field.start}`} className={i === active ? 'active' : ''} onMouseEnter={() => setActive(i)}>
              <td><span className={`swatch cat-${fieldCategory(field.name)} alt-${i % 2}`} />{field.name}</td>
              <td className="num nowrap">{field.start === field.end ? field.start : `${field.start}–${field.end}`} <span className="muted">({field.end - field.start + 1})</span></td>
              <td className="value mono">{field.value}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
