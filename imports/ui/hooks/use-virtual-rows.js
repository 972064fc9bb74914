/**
 * Windowed rendering for a long list of fixed-height rows inside a scrolling container: only
 * the rows in view (plus `overscan` above and below) are rendered; spacers keep the scrollbar
 * true. Returns { ref (for the container), start, end }.
 */
import { useEffect, useRef, useState } from 'react';

export function useVirtualRows(count, rowHeight, overscan = 8) {
  const ref = useRef(null);
  const [view, setView] = useState({ top: 0, height: 800 });
  useEffect(() => {
    const element = ref.current;
    if (!element) return undefined;
    const update = () => setView((previous) => (previous.top === element.scrollTop && previous.height === element.clientHeight
      ? previous : { top: element.scrollTop, height: element.clientHeight }));
    update();
    element.addEventListener('scroll', update, { passive: true });
    window.addEventListener('resize', update);
    return () => {
      element.removeEventListener('scroll', update);
      window.removeEventListener('resize', update);
    };
  }, []);
  const start = Math.max(0, Math.floor(view.top / rowHeight) - overscan);
  const end = Math.min(count, Math.ceil((view.top + view.height) / rowHeight) + overscan);
  return { ref, start, end };
}
