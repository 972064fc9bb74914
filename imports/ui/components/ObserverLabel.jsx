/** An observer's name from the observers view, or its id prefix while unknown. */
import React from 'react';
import { shortKey } from '../lib/format';

export function ObserverLabel({ id, observers }) {
  const observer = observers && observers.get(id);
  return (
    <span className="observer" title={id}>
      {observer && observer.name ? observer.name : <span className="mono">{shortKey(id)}</span>}
      {observer && observer.region && <span className="region">{observer.region}</span>}
    </span>
  );
}
