/** Analytics: one tab per analytics view family; the tab is part of the URL (/analytics/:tab). */
import React from 'react';
import { PageHeader } from '../components/PageHeader';
import { Tabs } from '../components/Tabs';
import { RfTab } from './analytics/RfTab';
import { TopologyTab } from './analytics/TopologyTab';
import { ChannelAnalyticsTab } from './analytics/ChannelAnalyticsTab';
import { HashSizesTab } from './analytics/HashSizesTab';
import { SubpathsTab } from './analytics/SubpathsTab';
import { ObserversTab } from './analytics/ObserversTab';
import { DistancesTab } from './analytics/DistancesTab';
import { ANALYTICS_TABS } from '../lib/pages';

// Each tab's component; the tabs themselves (ids, labels, order) are lib/pages.js's.
const COMPONENTS = {
  rf: RfTab,
  topology: TopologyTab,
  channels: ChannelAnalyticsTab,
  'hash-sizes': HashSizesTab,
  subpaths: SubpathsTab,
  distances: DistancesTab,
  observers: ObserversTab,
};

const TABS = ANALYTICS_TABS.map((tab) => ({ ...tab, component: COMPONENTS[tab.id] || null }));

export function AnalyticsPage({ tab = 'rf' }) {
  const current = TABS.find((t) => t.id === tab);
  const Tab = current ? current.component : null; // a tab without a component shows as missing
  return (
    <>
      <PageHeader title={`Analytics${current ? ` · ${current.label}` : ''}`} />
      <Tabs tabs={TABS} current={tab} />
      {Tab ? <Tab /> : <div className="state state-empty">No tab “{tab}”.</div>}
    </>
  );
}
