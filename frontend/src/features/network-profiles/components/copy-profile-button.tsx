import { ErrorAlert } from '@/components/ui/error-alert';
import type { NetworkProfileDetail } from '@/types/api';

import { useCopyNetworkProfile } from '../api/copy-network-profile';

type CopyProfileButtonProps = { profileId: string; onCopied: (copy: NetworkProfileDetail) => void };

/** Copies any profile (built-in or not) into the workspace; the server names the copy. */
export const CopyProfileButton = ({ profileId, onCopied }: CopyProfileButtonProps) => {
  const copy = useCopyNetworkProfile({ mutationConfig: { onSuccess: onCopied } });
  return (
    <>
      <button
        type="button"
        className="button button-primary"
        disabled={copy.isPending}
        onClick={() => copy.mutate({ profileId })}
      >
        {copy.isPending ? 'Copying…' : 'Copy to my workspace'}
      </button>
      {copy.isError ? <ErrorAlert title="The profile could not be copied." error={copy.error} /> : null}
    </>
  );
};
