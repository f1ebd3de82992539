import { useState } from 'react';

import { ErrorAlert } from '@/components/ui/error-alert';

import { useDeletePowerTrace } from '../api/delete-power-trace';

type DeleteTraceButtonProps = { traceId: string; onDeleted: () => void };

/** Delete with a second, explicit click: the raw file goes too and cannot be brought back. */
export const DeleteTraceButton = ({ traceId, onDeleted }: DeleteTraceButtonProps) => {
  const [confirming, setConfirming] = useState(false);
  const remove = useDeletePowerTrace({ mutationConfig: { onSuccess: onDeleted } });

  return (
    <div className="actions">
      {remove.isError ? <ErrorAlert error={remove.error} /> : null}
      {confirming ? (
        <>
          <span>Delete this trace, its samples and its raw file?</span>
          <button
            type="button"
            className="button button-danger"
            disabled={remove.isPending}
            onClick={() => remove.mutate({ traceId })}
          >
            Yes, delete
          </button>
          <button type="button" className="button" onClick={() => setConfirming(false)} disabled={remove.isPending}>
            Keep it
          </button>
        </>
      ) : (
        <button type="button" className="button" onClick={() => setConfirming(true)}>
          Delete trace
        </button>
      )}
    </div>
  );
};
