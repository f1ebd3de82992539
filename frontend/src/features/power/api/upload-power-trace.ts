import * as z from 'zod';

import { api, type UploadProgress } from '@/lib/api-client';
import { formatBytes } from '@/lib/format';
import type { MutationConfig } from '@/lib/react-query';
import { useInvalidatingMutation } from '@/lib/use-invalidating-mutation';
import type { PowerTrace } from '@/types/api';

import { powerTraceQueryKey } from './get-power-trace';
import { POWER_TRACES_QUERY_KEY } from './get-power-traces';

/** The server keeps raw files up to 200 MB (docs/power-traces.md); larger ones are refused. */
export const TRACE_FILE_MAX_BYTES = 200 * 1024 * 1024;

// The backend's column sizes (PowerTraceUpload in openapi.yaml).
export const TRACE_NAME_MAX = 200;
export const BASELINE_NAME_MAX = 100;

const optionalText = (label: string, max: number) =>
  z
    .string()
    .trim()
    .max(max, { error: `${label} can be at most ${max} characters.` })
    .transform((value) => value || undefined)
    .optional();

const optionalId = z
  .string()
  .transform((value) => value || undefined)
  .optional();

export const uploadPowerTraceInputSchema = z.object({
  file: z
    .custom<File>((value) => value instanceof File, { error: 'Choose a trace file.' })
    .refine((file) => file.size <= TRACE_FILE_MAX_BYTES, {
      error: (issue) =>
        `This file is ${formatBytes((issue.input as File).size)}; ` +
        `traces can be at most ${formatBytes(TRACE_FILE_MAX_BYTES)}.`,
    }),
  name: optionalText('The name', TRACE_NAME_MAX),
  device: optionalId,
  run: optionalId,
  /** Makes the trace a baseline (kind `baseline`), e.g. "pi3 idle, wifi on". */
  baseline_name: optionalText('The baseline name', BASELINE_NAME_MAX),
});

export type UploadPowerTraceInput = z.infer<typeof uploadPowerTraceInputSchema>;

/** POST /api/power-traces/ (multipart) → 201 PowerTrace with its detection, or `failed` with its error. */
export const uploadPowerTrace = ({
  input,
  onProgress,
  signal,
}: {
  input: UploadPowerTraceInput;
  onProgress?: (progress: UploadProgress) => void;
  signal?: AbortSignal;
}): Promise<PowerTrace> => {
  const form = new FormData();
  form.append('file', input.file);
  for (const key of ['name', 'device', 'run', 'baseline_name'] as const) {
    const value = input[key];
    if (value) form.append(key, value);
  }
  return api.upload<PowerTrace>('/api/power-traces/', form, { onProgress, signal });
};

type UseUploadPowerTraceOptions = { mutationConfig?: MutationConfig<typeof uploadPowerTrace> };

export const useUploadPowerTrace = ({ mutationConfig }: UseUploadPowerTraceOptions = {}) => {
  // The trace page opens next: give it the trace without another round trip.
  return useInvalidatingMutation({
    mutationFn: uploadPowerTrace,
    invalidates: [[...POWER_TRACES_QUERY_KEY, 'list']],
    update: (queryClient, trace) => queryClient.setQueryData(powerTraceQueryKey(trace.id), trace),
    mutationConfig,
  });
};
