import { ConfirmDeleteButton } from '@/components/ui/confirm-delete-button';

import { useDeleteNetworkProfile } from '../api/delete-network-profile';

type DeleteProfileButtonProps = { profileId: string; name: string; onDeleted: () => void };

/** Delete with a second, explicit click: a deleted profile cannot be brought back. */
export const DeleteProfileButton = ({ profileId, name, onDeleted }: DeleteProfileButtonProps) => {
  const remove = useDeleteNetworkProfile({ mutationConfig: { onSuccess: onDeleted } });
  return (
    <ConfirmDeleteButton
      label="Delete profile"
      question={`Delete “${name}”?`}
      onConfirm={() => remove.mutate({ profileId })}
      isPending={remove.isPending}
      error={remove.isError ? remove.error : null}
    />
  );
};
