/** `value`, once it has stopped changing for `delayMs`: typing does not resubscribe per keystroke. */
import { useEffect, useState } from 'react';

export function useDebounced(value, delayMs = 300) {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), delayMs);
    return () => clearTimeout(timer);
  }, [value, delayMs]);
  return settled;
}
