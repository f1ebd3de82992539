import { Link } from 'react-router';

import { paths } from '@/config/paths';
import { EnforcementNotice } from '@/features/devices/components/enforcement-notice';
import { NetworkProfilesList } from '@/features/network-profiles/components/network-profiles-list';

const NetworkProfilesRoute = () => (
  <>
    <div className="page-head">
      <h1>Network profiles</h1>
      <Link to={paths.newNetworkProfile.getHref()} className="button button-primary">
        New profile
      </Link>
    </div>
    <p className="muted">
      What a device’s link does to packets, per direction: the SRUP paper’s conditions and the measured cellular
      tables are built in and read-only; copy one to change it, or create your own.
    </p>
    <EnforcementNotice />
    <NetworkProfilesList />
  </>
);

export default NetworkProfilesRoute;
