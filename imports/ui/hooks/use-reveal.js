/**
 * Scrolling a block back into view: revealTop(element) when a click changed a block out of sight
 * (the Nodes list's next page), useRevealOn(ref, key) when a block appears or changes with `key`
 * (the Subpaths detail). The sticky header's height is measured, so the top is not left under it.
 */
import { useEffect } from 'react';
import { revealScrollTop } from '../lib/scroll';

export function revealTop(element) {
  if (!element || typeof window === 'undefined') return;
  const header = document.querySelector('.topbar');
  const inset = header ? Math.max(0, header.getBoundingClientRect().bottom) : 0;
  const top = revealScrollTop({ top: element.getBoundingClientRect().top, scrollY: window.scrollY, viewportHeight: window.innerHeight, inset });
  if (top !== null) window.scrollTo({ top });
}

/** revealTop(ref.current) after a render in which `key` changed to something (not null). */
export function useRevealOn(ref, key) {
  useEffect(() => {
    if (key !== null && key !== undefined) revealTop(ref.current);
  }, [key]); // eslint-disable-line react-hooks/exhaustive-deps
}
