import { ConfirmActionButton } from '@/components/ui/confirm-action-button';

import { useDeleteNetworkProfile } from '../api/delete-network-profile';

type DeleteProfileButtonProps = { profileId: string; name: string; onDeleted: () => void };

/** Delete with a second, explicit click: a deleted profile cannot be brought back. */
export const DeleteProfileButton = ({ profileId, name, onDeleted }: DeleteProfileButtonProps) => {
  const remove = useDeleteNetworkProfile({ mutationConfig: { onSuccess: onDeleted } });
  return (
    <ConfirmActionButton
      label="Delete profile"
      question={`Delete “${name}”?`}
      confirmLabel="Yes, delete"
      onConfirm={() => remove.mutate({ profileId })}
      isPending={remove.isPending}
      error={remove.isError ? remove.error : null}
    />
  );
};
