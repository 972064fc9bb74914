/**
 * One line of text that may be cut: an ellipsis where it is, and its whole text as the title
 * (the tooltip), read from what it rendered so any children work (links, badges, hop labels).
 * A `title` prop wins over the rendered text.
 */
import React, { useLayoutEffect, useRef } from 'react';

export function Clip({ as: Tag = 'div', className = '', title, children, ...rest }) {
  const ref = useRef(null);
  // Every commit: the text may have changed. React leaves an attribute it was never given alone.
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element || title !== undefined) return;
    const text = element.textContent.replace(/\s+/g, ' ').trim();
    if (element.title !== text) element.title = text;
  });
  return <Tag ref={ref} className={`clip-text ${className}`} title={title} {...rest}>{children}</Tag>;
}
