/**
 * The frame of every page: brand, navigation (collapsed behind a menu button on a phone),
 * region scope, search (Ctrl+K), theme, connection, data mode and data age, then the page
 * (under a notice when the scope names a region no observer reports).
 */
import React, { useEffect, useState } from 'react';
import { Link } from './Link';
import { NavBar } from './NavBar';
import { DataModeSwitch } from './DataModeSwitch';
import { DataFreshness } from './DataFreshness';
import { ConnectionBadge } from './ConnectionBadge';
import { RegionPicker } from './RegionPicker';
import { RegionNotice } from './RegionNotice';
import { ThemeToggle } from './ThemeToggle';
import { CommandPalette, openPalette } from './CommandPalette';
import { usePath } from '../hooks/use-location';

export function Layout({ children }) {
  const [menuOpen, setMenuOpen] = useState(false);
  const path = usePath();
  useEffect(() => setMenuOpen(false), [path]); // a chosen page closes the phone menu
  return (
    <div className="app">
      <header className={menuOpen ? 'topbar menu-open' : 'topbar'}>
        <Link to="/" className="brand"><span className="brand-mark">◉</span> MeshPulse</Link>
        <button type="button" className="icon-btn menu-toggle" data-testid="menu-toggle" aria-expanded={menuOpen} aria-controls="main-nav"
          aria-label={menuOpen ? 'Close the menu' : 'Open the menu'} title="Menu" onClick={() => setMenuOpen(!menuOpen)}>
          {menuOpen ? '✕' : '☰'}
        </button>
        <NavBar />
        <div className="topbar-tools">
          <RegionPicker />
          <button type="button" className="icon-btn search-btn" data-testid="palette-open" onClick={openPalette} title="Search (Ctrl+K)" aria-label="Search (Ctrl+K)">
            ⌕<span className="search-btn-hint">Ctrl K</span>
          </button>
          <ThemeToggle />
        </div>
        <div className="topbar-status">
          <ConnectionBadge />
          <DataFreshness />
          <DataModeSwitch />
        </div>
      </header>
      <main className="page"><RegionNotice />{children}</main>
      <CommandPalette />
    </div>
  );
}
