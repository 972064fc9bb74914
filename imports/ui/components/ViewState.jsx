/**
 * Loading, error and empty states around a block of content. With data on screen an error is
 * a banner above it (the last good data stays); without data it replaces it.
 */
import React from 'react';

export function ViewState({ loading, error, empty, emptyText = 'Nothing here yet.', hasData = !empty, children }) {
  if (error && !hasData) {
    return <div className="state state-error" role="alert">Could not load: {error.message}</div>;
  }
  if (loading && !hasData) {
    return <div className="state state-loading" aria-busy="true"><span className="spinner" /> Loading…</div>;
  }
  return (
    <>
      {error && <div className="banner banner-error" role="alert">Showing older data: {error.message}</div>}
      {empty ? <div className="state state-empty">{emptyText}</div> : children}
    </>
  );
}
