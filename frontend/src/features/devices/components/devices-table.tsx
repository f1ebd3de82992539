import { Fragment, useState } from 'react';

import { ScrollTable } from '@/components/ui/scroll-table';
import { formatDateTime } from '@/lib/format';
import type { Device } from '@/types/api';

import { DeviceDetails } from './device-details';
import { deviceFacts } from './device-facts';
import { DeviceHealthCell } from './device-health';
import { RevokeDeviceButton } from './revoke-device-button';

type DevicesTableProps = { devices: Device[] };

const COLUMNS = 6;

/**
 * One short row per device (name, status, model, last seen, health); its facts and its last
 * health check in full open below it, so long values never widen the page.
 */
export const DevicesTable = ({ devices }: DevicesTableProps) => {
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  if (devices.length === 0) {
    return <p className="empty">No devices enrolled yet. Create an enrollment token to add one.</p>;
  }
  const toggle = (id: string) =>
    setOpen((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const show = (id: string) => setOpen((current) => (current.has(id) ? current : new Set([...current, id])));
  return (
    <ScrollTable label="Enrolled devices" chooserKey="devices">
      <table className="table table-devices">
        <caption className="visually-hidden">Enrolled devices</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Status</th>
            <th scope="col">Model</th>
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
            const expanded = open.has(device.id);
            const detailsId = `device-details-${device.id}`;
            return (
              <Fragment key={device.id}>
                <tr>
                  <th scope="row" className="break-anywhere">
                    {device.name}
                  </th>
                  <td>
                    <span className={device.online ? 'badge badge-online' : 'badge badge-offline'}>
                      {device.online ? 'Online' : 'Offline'}
                    </span>
                  </td>
                  <td className="break-anywhere">{facts.hardwareModel}</td>
                  <td>{formatDateTime(device.last_seen_at)}</td>
                  <td>
                    <DeviceHealthCell device={device} onCheck={() => show(device.id)} />
                  </td>
                  <td>
                    <div className="actions">
                      <button
                        type="button"
                        className="button button-small"
                        aria-expanded={expanded}
                        aria-controls={detailsId}
                        aria-label={`Details of ${device.name}`}
                        onClick={() => toggle(device.id)}
                      >
                        {expanded ? 'Hide details' : 'Details'}
                      </button>
                      <RevokeDeviceButton device={device} />
                    </div>
                  </td>
                </tr>
                {expanded ? (
                  <tr id={detailsId} className="details-row">
                    <td colSpan={COLUMNS}>
                      <DeviceDetails device={device} />
                    </td>
                  </tr>
                ) : null}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </ScrollTable>
  );
};
