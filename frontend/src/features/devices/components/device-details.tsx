import { StatusBadge } from '@/components/ui/status-badge';
import { formatDateTime } from '@/lib/format';
import type { Device } from '@/types/api';

import { deviceFacts } from './device-facts';

/** Everything the agent reports about its device, and its latest health check in full. */
export const DeviceDetails = ({ device }: { device: Device }) => {
  const facts = deviceFacts(device.facts);
  const { health } = device;
  return (
    <div className="device-details">
      <dl className="facts" aria-label={`Facts of ${device.name}`}>
        <dt>Hardware model</dt>
        <dd>{facts.hardwareModel}</dd>
        <dt>CPU</dt>
        <dd>
          {facts.cpu} ({facts.cores} cores)
        </dd>
        <dt>RAM</dt>
        <dd>{facts.ram}</dd>
        <dt>Hostname</dt>
        <dd>{facts.hostname}</dd>
        <dt>OS</dt>
        <dd>{facts.os}</dd>
        <dt>Kernel</dt>
        <dd>{facts.kernel}</dd>
        <dt>Python</dt>
        <dd>{facts.python}</dd>
        <dt>Agent</dt>
        <dd>{facts.agentVersion}</dd>
        <dt>Libraries</dt>
        <dd>{facts.libraries.length > 0 ? facts.libraries.join(', ') : '—'}</dd>
        <dt>Network emulation</dt>
        <dd>
          {facts.emulationBackends.length > 0 ? (
            <ul className="plain-list">
              {facts.emulationBackends.map((backend) => (
                <li key={backend.name}>
                  <strong>{backend.name}</strong>: {backend.available ? 'available' : 'unavailable'}
                  {backend.reason ? ` (${backend.reason})` : ''}
                </li>
              ))}
            </ul>
          ) : (
            '—'
          )}
        </dd>
        <dt>Enrolled</dt>
        <dd>{formatDateTime(device.enrolled_at)}</dd>
      </dl>
      <section aria-label={`Last health check of ${device.name}`}>
        <h3>Last health check</h3>
        {health ? (
          <>
            <p>
              <StatusBadge status={health.status} />{' '}
              {health.status === 'pending'
                ? `requested ${formatDateTime(health.requested_at)}`
                : `at ${formatDateTime(health.checked_at ?? health.requested_at)}`}
            </p>
            {health.error ? <p className="field-error">{health.error}</p> : null}
            {health.checks && health.checks.length > 0 ? (
              <ul className="health-checks" aria-label={`Health checks of ${device.name}`}>
                {health.checks.map((item) => (
                  <li key={item.name}>
                    {item.ok ? '✓' : '✗'} <strong>{item.name}</strong>
                    {item.detail ? `: ${item.detail}` : ''}
                  </li>
                ))}
              </ul>
            ) : null}
          </>
        ) : (
          <p className="muted">Not checked yet.</p>
        )}
      </section>
    </div>
  );
};
