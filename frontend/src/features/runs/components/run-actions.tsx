import { ErrorAlert } from '@/components/ui/error-alert';
import type { Run, RunStatus } from '@/types/api';

import { useCancelRun } from '../api/cancel-run';
import { isRunCancellable, isRunRetryable } from '../api/get-run';
import { useRetryRun } from '../api/retry-run';

type RunActionsProps = {
  run: { id: string; status: RunStatus };
  /** Words that tell this run's buttons apart from others on the page, e.g. "run 3". */
  name?: string;
  /** The run was cancelled, or a retry of it queued (the retry is given). */
  onChanged?: (run: Run) => void;
  onRetried?: (retry: Run) => void;
};

/** Cancel a queued or active run; retry a failed or cancelled one. The server's refusals are shown as they are. */
export const RunActions = ({ run, name, onChanged, onRetried }: RunActionsProps) => {
  const cancel = useCancelRun({ mutationConfig: { onSuccess: (cancelled) => onChanged?.(cancelled) } });
  const retry = useRetryRun({
    mutationConfig: {
      onSuccess: (retried) => {
        onChanged?.(retried);
        onRetried?.(retried);
      },
    },
  });
  const suffix = name ? ` ${name}` : '';
  return (
    <span className="run-actions">
      {isRunCancellable(run.status) ? (
        <button
          type="button"
          className="button button-small"
          disabled={cancel.isPending}
          aria-label={`Cancel${suffix}`}
          onClick={() => cancel.mutate({ runId: run.id })}
        >
          Cancel
        </button>
      ) : null}
      {isRunRetryable(run.status) ? (
        <button
          type="button"
          className="button button-small"
          disabled={retry.isPending}
          aria-label={`Retry${suffix}`}
          onClick={() => retry.mutate({ runId: run.id })}
        >
          Retry
        </button>
      ) : null}
      {cancel.isError ? <ErrorAlert error={cancel.error} title="The run could not be cancelled." /> : null}
      {retry.isError ? <ErrorAlert error={retry.error} title="The run could not be retried." /> : null}
    </span>
  );
};
