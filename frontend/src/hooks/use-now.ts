import { useEffect, useState } from 'react';

/** The current time (ms since the epoch), refreshed every `intervalMs` while mounted. */
export const useNow = (intervalMs: number): number => {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
};
