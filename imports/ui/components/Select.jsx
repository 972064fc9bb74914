/** A labelled <select>; options are [{ value, label }], '' meaning "any". */
import React from 'react';

export function Select({ label, value, onChange, options, anyLabel = 'any', name }) {
  return (
    <label className="field">
      <span>{label}</span>
      <select name={name || label} value={value} onChange={(event) => onChange(event.target.value)}>
        {anyLabel !== null && <option value="">{anyLabel}</option>}
        {options.map((option) => <option key={option.value} value={option.value}>{option.label}</option>)}
      </select>
    </label>
  );
}
