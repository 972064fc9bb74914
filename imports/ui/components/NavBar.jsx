/** The page links; the current section is highlighted. */
import React from 'react';
import { Link } from './Link';
import { usePath } from '../hooks/use-location';

const SECTIONS = [
  { to: '/', label: 'Overview', match: (path) => path === '/' },
  { to: '/live', label: 'Live' },
  { to: '/packets', label: 'Packets' },
  { to: '/nodes', label: 'Nodes' },
  { to: '/map', label: 'Map' },
  { to: '/channels', label: 'Channels' },
  { to: '/analytics/rf', label: 'Analytics', prefix: '/analytics' },
  { to: '/perf', label: 'Perf' },
];

export function NavBar() {
  const path = usePath();
  return (
    <nav className="nav" id="main-nav">
      {SECTIONS.map((section) => {
        const prefix = section.prefix || section.to;
        const current = section.match ? section.match(path) : path === prefix || path.startsWith(`${prefix}/`);
        return (
          <Link key={section.to} to={section.to} className={current ? 'nav-link current' : 'nav-link'} aria-current={current ? 'page' : undefined}>
            {section.label}
          </Link>
        );
      })}
    </nav>
  );
}
