/** A labelled text input (the caller debounces what it does with the value). */
import React from 'react';

export function SearchBox({ label, value, onChange, placeholder, name, width }) {
  return (
    <label className="field">
      <span>{label}</span>
      <input type="search" name={name || label} value={value} placeholder={placeholder} spellCheck={false}
        style={width ? { width } : undefined} onChange={(event) => onChange(event.target.value)} />
    </label>
  );
}
