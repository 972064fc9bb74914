/** Reactive / Method switch (shown on every page), with a refresh button in method mode. */
import React from 'react';
import { useDataMode } from '../hooks/use-data-mode';

export function DataModeSwitch() {
  const { mode, setMode, refreshMs, refreshNow } = useDataMode();
  return (
    <div className="mode-switch" role="group" aria-label="Data mode">
      <button type="button" data-mode="reactive" className={mode === 'reactive' ? 'on' : ''} aria-pressed={mode === 'reactive'}
        onClick={() => setMode('reactive')} title="Subscriptions: the server pushes changes">
        Reactive
      </button>
      <button type="button" data-mode="method" className={mode === 'method' ? 'on' : ''} aria-pressed={mode === 'method'}
        onClick={() => setMode('method')} title={`Method calls every ${refreshMs / 1000} s and after each action`}>
        Method
      </button>
      {mode === 'method' && (
        <button type="button" className="refresh" onClick={refreshNow} title="Call the server now" aria-label="Refresh now">↻</button>
      )}
    </div>
  );
}
