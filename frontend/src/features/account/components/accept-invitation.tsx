import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';

import { ErrorAlert } from '@/components/ui/error-alert';
import { InputField } from '@/components/ui/form-field';
import { Loading } from '@/components/ui/loading';
import { isApiError } from '@/lib/api-client';
import { formatDateTime } from '@/lib/format';

import { useAcceptInvitation, useInvitation } from '../api/invitation';

import { formText } from './form-text';

type AcceptInvitationProps = {
  token: string;
  /** The signed-in user's name; null when nobody is signed in (then the form signs up). */
  username: string | null;
  /** Where "sign in first" leads (the login page, back here afterwards). */
  loginHref: string;
  onJoined: () => void;
};

/** An invitation link's page: what it opens, then join (signed in) or sign up (signed out). */
export const AcceptInvitation = ({ token, username, loginHref, onJoined }: AcceptInvitationProps) => {
  const invitation = useInvitation(token);
  const accept = useAcceptInvitation({ mutationConfig: { onSuccess: () => onJoined() } });
  const [missing, setMissing] = useState<Record<string, string>>({});
  const fieldErrors = isApiError(accept.error) ? accept.error.fieldErrors : {};

  if (invitation.isPending) return <Loading label="Opening the invitation…" />;
  if (invitation.isError) {
    return (
      <>
        <ErrorAlert error={invitation.error} title="This invitation cannot be used." />
        <p>
          <Link to="/">Go to IoTSecBench</Link>
        </p>
      </>
    );
  }
  const { workspace_name: workspace, invited_by: inviter, role, expires_at: expiresAt } = invitation.data;

  const onSignUp = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const values = { username: formText(form, 'username').trim(), password: formText(form, 'password') };
    const empty = Object.fromEntries(
      Object.entries(values)
        .filter(([, value]) => value === '')
        .map(([field]) => [field, 'Required to create your account.']),
    );
    setMissing(empty);
    if (Object.keys(empty).length === 0) accept.mutate({ token, ...values });
  };

  return (
    <>
      <p>
        <strong>{inviter}</strong> invites you to the workspace <strong className="break-anywhere">{workspace}</strong> as{' '}
        {role === 'owner' ? 'an owner' : 'a member'}. The link works once and expires {formatDateTime(expiresAt)}.
      </p>
      {accept.isError ? <ErrorAlert error={accept.error} /> : null}
      {username ? (
        <p className="actions">
          <button
            type="button"
            className="button button-primary"
            disabled={accept.isPending}
            onClick={() => accept.mutate({ token })}
          >
            Join {workspace} as {username}
          </button>
        </p>
      ) : (
        <>
          <form className="form" aria-label="Create your account" onSubmit={onSignUp} noValidate>
            <InputField
              label="Username"
              name="username"
              autoComplete="username"
              error={missing.username ?? fieldErrors.username}
            />
            <InputField
              label="Password"
              name="password"
              type="password"
              autoComplete="new-password"
              error={missing.password ?? fieldErrors.password}
              hint="At least 8 characters, not only digits, not a common password."
            />
            <button type="submit" className="button button-primary" disabled={accept.isPending}>
              Create account and join
            </button>
          </form>
          <p>
            Already have an account? <Link to={loginHref}>Sign in first</Link>: you come back to this page.
          </p>
        </>
      )}
    </>
  );
};
