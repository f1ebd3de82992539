import { useEffect, useState } from 'react';

// The same hook as features/power's: features do not import each other (eslint.config.js),
// and the shared layer has no hooks folder yet. Move both there when a third needs it.

/** `value`, once it has stayed the same for `delayMs` (e.g. a search while the user types). */
export const useDebouncedValue = <T>(value: T, delayMs: number): T => {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(value), delayMs);
    return () => clearTimeout(timer);
  }, [value, delayMs]);
  return debounced;
};
