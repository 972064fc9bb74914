/**
 * An observer's name from the observers view, or its id prefix while unknown, linked to its
 * observer page (/observers/:id, keeping the region scope) as node names link to theirs: the
 * node and packet pages list observers, and an operator reading one wants its page a click away.
 */
import React from 'react';
import { shortKey } from '../lib/format';
import { Link } from './Link';

/** An observer's page (ids are free text from the feed: encoded). */
export function observerPath(id) {
  return `/observers/${encodeURIComponent(id)}`;
}

export function ObserverLabel({ id, observers }) {
  const observer = observers && observers.get(id);
  return (
    <span className="observer" title={id}>
      <Link to={observerPath(id)} className="observer-link">
        {observer && observer.name ? observer.name : <span className="mono">{shortKey(id)}</span>}
      </Link>
      {observer && observer.region && <span className="region">{observer.region}</span>}
    </span>
  );
}
