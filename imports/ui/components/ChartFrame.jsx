/** Measures its width and renders `children(width)`: charts draw at true pixel size, crisp text. */
import React from 'react';
import { useElementWidth } from '../hooks/use-element-width';

export function ChartFrame({ children, className = '' }) {
  const [ref, width] = useElementWidth();
  return <div ref={ref} className={`chart ${className}`}>{children(width)}</div>;
}
