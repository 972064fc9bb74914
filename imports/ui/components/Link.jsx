/**
 * An <a> that navigates inside the app without a page load (modified clicks still open tabs).
 * The href carries the sticky query params (the region scope), so a new tab opens the same scope.
 */
import React from 'react';
import { navigate, withStickyParams } from '../lib/router';
import { useSearch } from '../hooks/use-location';

export function Link({ to, children, className, title, ...rest }) {
  const href = withStickyParams(to, useSearch());
  const onClick = (event) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(href);
  };
  return <a href={href} onClick={onClick} className={className} title={title} {...rest}>{children}</a>;
}
