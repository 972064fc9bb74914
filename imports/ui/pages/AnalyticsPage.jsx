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

const TABS = [
  { id: 'rf', label: 'RF', component: RfTab },
  { id: 'topology', label: 'Topology', component: TopologyTab },
  { id: 'channels', label: 'Channels', component: ChannelAnalyticsTab },
  { id: 'hash-sizes', label: 'Hash sizes', component: HashSizesTab },
  { id: 'subpaths', label: 'Subpaths', component: SubpathsTab },
  { id: 'observers', label: 'Observers', component: ObserversTab },
].map((tab) => ({ ...tab, to: `/analytics/${tab.id}` }));

export function AnalyticsPage({ tab = 'rf' }) {
  const current = TABS.find((t) => t.id === tab);
  const Tab = current ? current.component : null;
  return (
    <>
      <PageHeader title={`Analytics${current ? ` · ${current.label}` : ''}`} />
      <Tabs tabs={TABS} current={tab} />
      {Tab ? <Tab /> : <div className="state state-empty">No tab “{tab}”.</div>}
    </>
  );
}
