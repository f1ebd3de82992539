import { ConfirmActionButton } from '@/components/ui/confirm-action-button';

import { useDeletePowerTrace } from '../api/delete-power-trace';

type DeleteTraceButtonProps = { traceId: string; onDeleted: () => void };

/** Delete with a second, explicit click: the raw file goes too and cannot be brought back. */
export const DeleteTraceButton = ({ traceId, onDeleted }: DeleteTraceButtonProps) => {
  const remove = useDeletePowerTrace({ mutationConfig: { onSuccess: onDeleted } });
  return (
    <ConfirmActionButton
      label="Delete trace"
      question="Delete this trace, its samples and its raw file?"
      confirmLabel="Yes, delete"
      onConfirm={() => remove.mutate({ traceId })}
      isPending={remove.isPending}
      error={remove.isError ? remove.error : null}
    />
  );
};
