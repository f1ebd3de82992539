import { formatBytes, formatDecimal } from '@/lib/format';
import type { RunDeviceResources } from '@/types/api';

/**
 * One device's resources as the run page shows them (Quincozes et al., Figures 4 and 5):
 * CPU time in seconds (user + system, and what share of the window it is), peak memory in
 * MiB, bytes sent / received in kB (the paper's units) with the exact byte counts.
 */
export type ResourceFigures = {
  cpuTime: string;
  peakMemory: string;
  bytes: string;
};

const NS_PER_S = 1e9;
const KIB_PER_MIB = 1024;
const BYTES_PER_KB = 1000;

export const resourceFigures = (resources: RunDeviceResources): ResourceFigures => {
  const cpuNs = resources.cpu_user_ns + resources.cpu_system_ns;
  const share = resources.window_ns > 0 ? (cpuNs / resources.window_ns) * 100 : null;
  const scope = resources.peak_rss_scope === 'run' ? 'during the run' : 'since the agent started';
  const kb = (bytes: number) => formatDecimal(bytes / BYTES_PER_KB, 1);
  return {
    cpuTime:
      `${formatDecimal(cpuNs / NS_PER_S, 3)} s` +
      ` (user ${formatDecimal(resources.cpu_user_ns / NS_PER_S, 3)} s, system ${formatDecimal(resources.cpu_system_ns / NS_PER_S, 3)} s;` +
      ` ${formatDecimal(share, 1)} % of ${formatDecimal(resources.window_ns / NS_PER_S, 3)} s)`,
    peakMemory: `${formatDecimal(resources.peak_rss_kb / KIB_PER_MIB, 1)} MiB (${scope})`,
    bytes:
      `${kb(resources.bytes_sent)} kB / ${kb(resources.bytes_received)} kB` +
      ` (${formatBytes(resources.bytes_sent)} / ${formatBytes(resources.bytes_received)})`,
  };
};
