import { env } from '@/config/env';

/**
 * GET /api/runs/{id}/export/<file>: downloads, not queries. The browser fetches them through
 * plain links (same-origin session cookie), so a streamed 270 MB CSV never passes through JS.
 * Every kind of run: messages of a messaging run, samples of a cipher benchmark or throughput run.
 */
export const RUN_EXPORT_FILES = ['records.csv', 'records.parquet', 'summary.csv', 'summary.parquet'] as const;

export type RunExportFile = (typeof RUN_EXPORT_FILES)[number];

export const runExportHref = (runId: string, file: RunExportFile): string =>
  `${env.API_URL}/api/runs/${encodeURIComponent(runId)}/export/${file}`;
