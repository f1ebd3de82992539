import { useEffect, useState } from 'react';

/**
 * `value`, once it has stayed the same for `delayMs`: a search while the user types, a zoom
 * range while they drag, a design while they edit it.
 */
export const useDebouncedValue = <T>(value: T, delayMs: number): T => {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(value), delayMs);
    return () => clearTimeout(timer);
  }, [value, delayMs]);
  return debounced;
};
