/**
 * Ctrl+K (Cmd+K) search palette: pages, nodes by name or key prefix, packets by hash, channels
 * (lib/palette.js). Arrow keys move, Enter opens, Esc or a click outside closes. The header's
 * search button opens it too (phones have no Ctrl key).
 */
import React, { useEffect, useRef, useState } from 'react';
import { useView } from '../hooks/use-view';
import { useDebounced } from '../hooks/use-debounced';
import { navigate } from '../lib/router';
import { paletteRequests, paletteResults, moveSelection, isPaletteShortcut } from '../lib/palette';

const KIND_LABEL = { page: 'page', node: 'node', packet: 'packet', channel: 'channel' };

function PaletteDialog({ onClose }) {
  const [text, setText] = useState('');
  const [selected, setSelected] = useState(0);
  const inputRef = useRef(null);
  const requests = paletteRequests(useDebounced(text, 150));
  const nodes = useView('nodes', requests.nodes || {}, { enabled: Boolean(requests.nodes) });
  const packets = useView('packets', requests.packets || {}, { enabled: Boolean(requests.packets) });
  const channels = useView('channels', {});
  const results = paletteResults(requests.query, {
    nodes: requests.nodes && nodes.data ? nodes.data.nodes : [],
    packets: requests.packets && packets.data ? packets.data.packets : [],
    channels: channels.data ? channels.data.channels : [],
  });
  const index = moveSelection(selected, null, results.length);
  const searching = requests.query !== text.trim().toLowerCase() || (requests.nodes && nodes.loading) || (requests.packets && packets.loading);

  useEffect(() => { inputRef.current && inputRef.current.focus(); }, []);
  useEffect(() => setSelected(0), [requests.query]);

  const open = (result) => {
    if (!result) return;
    onClose();
    navigate(result.to);
  };
  const onKeyDown = (event) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      onClose();
    } else if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      setSelected(moveSelection(index, event.key, results.length));
    } else if (event.key === 'Enter') {
      event.preventDefault();
      open(results[index]);
    }
  };
  return (
    <div className="palette-backdrop" onMouseDown={(event) => { if (event.target === event.currentTarget) onClose(); }}>
      <div className="palette" role="dialog" aria-modal="true" aria-label="Search" data-testid="palette">
        <input ref={inputRef} type="search" className="palette-input" value={text} spellCheck={false} autoComplete="off"
          placeholder="Search nodes, packet hashes, channels, pages…" aria-label="Search" data-testid="palette-input"
          role="combobox" aria-expanded="true" aria-controls="palette-results" aria-activedescendant={results[index] ? `palette-${index}` : undefined}
          onChange={(event) => setText(event.target.value)} onKeyDown={onKeyDown} />
        <ul className="palette-results" id="palette-results" role="listbox">
          {results.map((result, i) => (
            <li key={result.key} id={`palette-${i}`} role="option" aria-selected={i === index} data-kind={result.kind}
              className={i === index ? 'palette-item selected' : 'palette-item'}
              onMouseEnter={() => setSelected(i)} onMouseDown={(event) => { event.preventDefault(); open(result); }}>
              <span className="tag palette-kind">{KIND_LABEL[result.kind]}</span>
              <span className="palette-label clip-text" title={result.label}>{result.label}</span>
              <span className="palette-sub muted small clip-text" title={result.sub}>{result.sub}</span>
            </li>
          ))}
          {results.length === 0 && <li className="palette-empty muted">{searching ? 'Searching…' : 'Nothing matches.'}</li>}
        </ul>
        <div className="palette-foot muted small">↑↓ to move · Enter to open · Esc to close</div>
      </div>
    </div>
  );
}

export function CommandPalette() {
  const [open, setOpen] = useState(false);
  useEffect(() => {
    const onKey = (event) => {
      // Esc closes even when the focus has left the search box (a click inside the dialog).
      if (event.key === 'Escape') setOpen(false);
      if (!isPaletteShortcut(event)) return;
      event.preventDefault(); // the browser's own Ctrl+K (search bar)
      setOpen((was) => !was);
    };
    const onOpen = () => setOpen(true);
    window.addEventListener('keydown', onKey);
    window.addEventListener('meshpulse:open-palette', onOpen);
    return () => {
      window.removeEventListener('keydown', onKey);
      window.removeEventListener('meshpulse:open-palette', onOpen);
    };
  }, []);
  return open ? <PaletteDialog onClose={() => setOpen(false)} /> : null;
}

export function openPalette() {
  window.dispatchEvent(new Event('meshpulse:open-palette'));
}
