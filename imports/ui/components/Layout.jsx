/** The frame of every page: brand, navigation, connection, data mode and data age, then the page. */
import React from 'react';
import { Link } from './Link';
import { NavBar } from './NavBar';
import { DataModeSwitch } from './DataModeSwitch';
import { DataFreshness } from './DataFreshness';
import { ConnectionBadge } from './ConnectionBadge';

export function Layout({ children }) {
  return (
    <div className="app">
      <header className="topbar">
        <Link to="/" className="brand"><span className="brand-mark">◉</span> MeshPulse</Link>
        <NavBar />
        <div className="topbar-status">
          <ConnectionBadge />
          <DataFreshness />
          <DataModeSwitch />
        </div>
      </header>
      <main className="page">{children}</main>
    </div>
  );
}
