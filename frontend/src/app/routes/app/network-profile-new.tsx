import { Link, useNavigate } from 'react-router';

import { paths } from '@/config/paths';
import { ProfileForm } from '@/features/network-profiles/components/profile-form';

const NewNetworkProfileRoute = () => {
  const navigate = useNavigate();
  return (
    <>
      <p>
        <Link to={paths.networkProfiles.getHref()}>← All network profiles</Link>
      </p>
      <h1>New network profile</h1>
      <p className="muted">
        It starts unshaped (a LAN); set what the link should do. To start from a built-in condition or a measured
        table, open it and copy it to your workspace instead.
      </p>
      <section className="panel" aria-label="New profile">
        <ProfileForm onSaved={(profile) => void navigate(paths.networkProfile.getHref(profile.id))} />
      </section>
    </>
  );
};

export default NewNetworkProfileRoute;
