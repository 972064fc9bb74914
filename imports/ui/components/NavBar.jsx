/** The page links (lib/pages.js); the current section is highlighted. */
import React from 'react';
import { Link } from './Link';
import { usePath } from '../hooks/use-location';
import { SECTIONS, isCurrentSection } from '../lib/pages';

export function NavBar() {
  const path = usePath();
  return (
    <nav className="nav" id="main-nav">
      {SECTIONS.map((section) => {
        const current = isCurrentSection(section, path);
        return (
          <Link key={section.to} to={section.to} className={current ? 'nav-link current' : 'nav-link'} aria-current={current ? 'page' : undefined}>
            {section.label}
          </Link>
        );
      })}
    </nav>
  );
}
