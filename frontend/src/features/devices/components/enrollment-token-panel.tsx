import { ErrorAlert } from '@/components/ui/error-alert';
import { env } from '@/config/env';
import { formatDateTime } from '@/lib/format';

import { useCreateEnrollmentToken } from '../api/create-enrollment-token';

import { enrollCommand, raspberryPiCommands } from './device-facts';

// The agent talks to the same server that serves this app (or to VITE_APP_API_URL).
const serverOrigin = () => env.API_URL || window.location.origin;

export const EnrollmentTokenPanel = () => {
  const createToken = useCreateEnrollmentToken();
  const token = createToken.data;

  return (
    <section className="panel" aria-labelledby="enrollment-heading">
      <h2 id="enrollment-heading" className="panel-title">
        Enroll a device
      </h2>
      <p className="muted">
        Create a one-time token, then run the command on the device (a Raspberry Pi, for example).
      </p>
      <button
        type="button"
        className="button button-primary"
        onClick={() => createToken.mutate(undefined)}
        disabled={createToken.isPending}
      >
        New enrollment token
      </button>
      {createToken.isError ? <ErrorAlert error={createToken.error} /> : null}
      {token ? (
        <div className="token-box">
          <p>
            Enrollment token (shown only once, expires {formatDateTime(token.expires_at)}):
          </p>
          <p>
            <code className="token">{token.token}</code>
          </p>
          <p>Run this on the device:</p>
          <pre className="command">
            <code>{enrollCommand(serverOrigin(), token.token)}</code>
          </pre>
          <p>
            On a Raspberry Pi, from a checkout of this repository (the platform must be reachable from the Pi:
            use its LAN address, not 127.0.0.1):
          </p>
          <pre className="command" aria-label="Commands for a Raspberry Pi">
            <code>{raspberryPiCommands(serverOrigin(), token.token).join('\n')}</code>
          </pre>
        </div>
      ) : null}
    </section>
  );
};
