import { useState } from 'react';

import { ErrorAlert } from '@/components/ui/error-alert';

import { useDeleteNetworkProfile } from '../api/delete-network-profile';

type DeleteProfileButtonProps = { profileId: string; name: string; onDeleted: () => void };

/** Delete with a second, explicit click: a deleted profile cannot be brought back. */
export const DeleteProfileButton = ({ profileId, name, onDeleted }: DeleteProfileButtonProps) => {
  const [confirming, setConfirming] = useState(false);
  const remove = useDeleteNetworkProfile({ mutationConfig: { onSuccess: onDeleted } });

  return (
    <div className="actions">
      {remove.isError ? <ErrorAlert error={remove.error} /> : null}
      {confirming ? (
        <>
          <span>Delete “{name}”?</span>
          <button
            type="button"
            className="button button-danger"
            disabled={remove.isPending}
            onClick={() => remove.mutate({ profileId })}
          >
            Yes, delete
          </button>
          <button type="button" className="button" onClick={() => setConfirming(false)} disabled={remove.isPending}>
            Keep it
          </button>
        </>
      ) : (
        <button type="button" className="button" onClick={() => setConfirming(true)}>
          Delete profile
        </button>
      )}
    </div>
  );
};
