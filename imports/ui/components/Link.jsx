/** An <a> that navigates inside the app without a page load (modified clicks still open tabs). */
import React from 'react';
import { navigate } from '../lib/router';

export function Link({ to, children, className, title, ...rest }) {
  const onClick = (event) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return <a href={to} onClick={onClick} className={className} title={title} {...rest}>{children}</a>;
}
