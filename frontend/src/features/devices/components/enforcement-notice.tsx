import { useDevices } from '../api/get-devices';

import { emulationStatus } from './device-facts';

/**
 * Says plainly when network profiles cannot be enforced: from what each device's agent
 * reported at start (`facts.network_emulation`). Nothing while loading, without devices, or
 * when every device that said can enforce them; devices that did not say are not counted.
 */
export const EnforcementNotice = () => {
  const devices = useDevices();
  const reported = (devices.data ?? []).flatMap((device) => {
    const status = emulationStatus(device.facts.network_emulation);
    return status === null ? [] : [{ name: device.name, ...status }];
  });
  const unable = reported.filter((d) => d.working.length === 0);
  if (unable.length === 0) return null;
  const reasons = unable.map((d) => `${d.name}: ${d.reason}`).join('; ');
  const none = unable.length === reported.length;
  return (
    <div role="status" className="alert alert-warning">
      <strong>
        {none
          ? 'Network profiles cannot be enforced here. '
          : `Network profiles cannot be enforced on ${unable.length} of your ${reported.length} devices. `}
      </strong>
      {none ? 'No device can shape its traffic' : 'These cannot'} ({reasons}). A run under a profile on such a device is
      refused before it starts, never run unshaped. Run the agent as root on Linux with /dev/net/tun (the local
      testbed of <code>make up</code> does when started as root).
    </div>
  );
};
