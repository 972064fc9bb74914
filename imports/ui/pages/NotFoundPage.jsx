/** Any path outside the route table. */
import React from 'react';
import { Link } from '../components/Link';
import { PageHeader } from '../components/PageHeader';

export function NotFoundPage() {
  return (
    <>
      <PageHeader title="Not found" />
      <div className="state state-empty">No page here. <Link to="/">Back to the overview</Link>.</div>
    </>
  );
}
