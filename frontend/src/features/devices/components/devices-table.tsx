import { formatDateTime } from '@/lib/format';
import type { Device } from '@/types/api';

import { deviceFacts } from './device-facts';
import { DeviceHealthCell } from './device-health';
import { RevokeDeviceButton } from './revoke-device-button';

type DevicesTableProps = { devices: Device[] };

export const DevicesTable = ({ devices }: DevicesTableProps) => {
  if (devices.length === 0) {
    return <p className="empty">No devices enrolled yet. Create an enrollment token to add one.</p>;
  }
  return (
    <div className="table-wrap">
      <table className="table">
        <caption className="visually-hidden">Enrolled devices</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Status</th>
            <th scope="col">Hostname</th>
            <th scope="col">CPU</th>
            <th scope="col">Cores</th>
            <th scope="col">RAM</th>
            <th scope="col">OS</th>
            <th scope="col">Python</th>
            <th scope="col">Network profiles</th>
            <th scope="col">Last seen</th>
            <th scope="col">Health</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {devices.map((device) => {
            const facts = deviceFacts(device.facts);
            return (
              <tr key={device.id}>
                <th scope="row">{device.name}</th>
                <td>
                  <span className={device.online ? 'badge badge-online' : 'badge badge-offline'}>
                    {device.online ? 'Online' : 'Offline'}
                  </span>
                </td>
                <td>{facts.hostname}</td>
                <td>{facts.cpu}</td>
                <td className="num">{facts.cores}</td>
                <td className="num">{facts.ram}</td>
                <td>{facts.os}</td>
                <td>{facts.python}</td>
                <td>{facts.networkEmulation}</td>
                <td>{formatDateTime(device.last_seen_at)}</td>
                <td>
                  <DeviceHealthCell device={device} />
                </td>
                <td>
                  <RevokeDeviceButton device={device} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
};
