/** Set the browser tab's title while a page is shown. */
import { useEffect } from 'react';

export function useDocumentTitle(title) {
  useEffect(() => {
    document.title = title ? `${title} · MeshPulse` : 'MeshPulse';
  }, [title]);
}
