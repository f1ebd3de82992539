import { Link, useNavigate, useParams } from 'react-router';

import { ErrorAlert } from '@/components/ui/error-alert';
import { Loading } from '@/components/ui/loading';
import { isNotFoundError, NotFound } from '@/components/ui/not-found';
import { paths } from '@/config/paths';
import { useNetworkProfile } from '@/features/network-profiles/api/get-network-profile';
import { ProfileView } from '@/features/network-profiles/components/profile-view';

const NetworkProfileRoute = () => {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const profile = useNetworkProfile({ profileId: id });

  const back = (
    <p>
      <Link to={paths.networkProfiles.getHref()}>← All network profiles</Link>
    </p>
  );

  if (profile.data) {
    return (
      <>
        {back}
        <ProfileView
          profile={profile.data}
          onCopied={(copy) => void navigate(paths.networkProfile.getHref(copy.id))}
          onDeleted={() => void navigate(paths.networkProfiles.getHref(), { replace: true })}
        />
      </>
    );
  }
  if (profile.isError) {
    if (isNotFoundError(profile.error)) return <NotFound />;
    return (
      <>
        {back}
        <ErrorAlert title="This profile could not be loaded." error={profile.error} />
      </>
    );
  }
  return <Loading label="Loading the profile…" />;
};

export default NetworkProfileRoute;
