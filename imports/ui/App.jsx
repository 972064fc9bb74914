/** The dashboard: data-mode provider, page frame, and the route table. */
import React from 'react';
import { DataModeProvider } from './hooks/use-data-mode';
import { useRoute } from './hooks/use-location';
import { Layout } from './components/Layout';
import { HomePage } from './pages/HomePage';
import { LivePage } from './pages/LivePage';
import { PacketsPage } from './pages/PacketsPage';
import { PacketPage } from './pages/PacketPage';
import { NodesPage } from './pages/NodesPage';
import { NodePage } from './pages/NodePage';
import { MapPage } from './pages/MapPage';
import { ChannelsPage } from './pages/ChannelsPage';
import { AnalyticsPage } from './pages/AnalyticsPage';
import { PerfPage } from './pages/PerfPage';
import { ObserverPage } from './pages/ObserverPage';
import { NotFoundPage } from './pages/NotFoundPage';

export const ROUTES = [
  { path: '/', page: HomePage },
  { path: '/live', page: LivePage },
  { path: '/packets', page: PacketsPage },
  { path: '/packets/:hash', page: PacketPage },
  { path: '/nodes', page: NodesPage },
  { path: '/nodes/:pubKey', page: NodePage },
  { path: '/map', page: MapPage },
  { path: '/channels', page: ChannelsPage },
  { path: '/channels/:hash', page: ChannelsPage },
  { path: '/analytics', page: AnalyticsPage },
  { path: '/analytics/:tab', page: AnalyticsPage },
  { path: '/perf', page: PerfPage },
  { path: '/observers/:id', page: ObserverPage },
];

function Router() {
  const { route, params, path } = useRoute(ROUTES);
  const Page = route ? route.page : NotFoundPage;
  // Keyed by route pattern: moving between two packets keeps page state, another page resets it.
  return <Page key={route ? route.path : path} {...params} />;
}

export function App() {
  return (
    <DataModeProvider>
      <Layout>
        <Router />
      </Layout>
    </DataModeProvider>
  );
}
