import { env } from '@/config/env';
import { api } from '@/lib/api-client';
import type { MutationConfig } from '@/lib/react-query';
import { useInvalidatingMutation } from '@/lib/use-invalidating-mutation';
import type { Experiment } from '@/types/api';

import { EXPERIMENTS_QUERY_KEY } from './get-experiments';

/**
 * Design files (docs/experiment-design.md): an experiment's design as YAML, checked on
 * import against the published JSON Schema (GET /api/experiments/design-schema.json).
 */

/** GET /api/experiments/{id}/design.yaml: a download link (the session cookie authenticates it). */
export const designFileUrl = (experimentId: string): string =>
  `${env.API_URL}/api/experiments/${encodeURIComponent(experimentId)}/design.yaml`;

export const DESIGN_SCHEMA_URL = `${env.API_URL}/api/experiments/design-schema.json`;

/** POST /api/experiments/import/ (multipart `file`) → 201 Experiment; 400 names the bad line or path. */
export const importDesignFile = ({ file }: { file: File }): Promise<Experiment> => {
  const form = new FormData();
  form.append('file', file);
  return api.upload<Experiment>('/api/experiments/import/', form);
};

type UseImportDesignFileOptions = { mutationConfig?: MutationConfig<typeof importDesignFile> };

export const useImportDesignFile = ({ mutationConfig }: UseImportDesignFileOptions = {}) =>
  useInvalidatingMutation({
    mutationFn: importDesignFile,
    invalidates: [EXPERIMENTS_QUERY_KEY],
    mutationConfig,
  });
