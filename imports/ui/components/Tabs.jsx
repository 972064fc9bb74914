/** Tabs as links (each tab is a URL), so a tab can be bookmarked and the back button works. */
import React from 'react';
import { Link } from './Link';

export function Tabs({ tabs, current }) {
  return (
    <div className="tabs" role="tablist">
      {tabs.map((tab) => (
        <Link key={tab.id} to={tab.to} role="tab" aria-selected={tab.id === current} className={tab.id === current ? 'tab current' : 'tab'}>
          {tab.label}
        </Link>
      ))}
    </div>
  );
}
