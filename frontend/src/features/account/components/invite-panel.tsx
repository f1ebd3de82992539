import { useState, type FormEvent } from 'react';

import { ConfirmActionButton } from '@/components/ui/confirm-action-button';
import { CopyButton } from '@/components/ui/copy-button';
import { ErrorAlert } from '@/components/ui/error-alert';
import { SelectField } from '@/components/ui/form-field';
import { ScrollTable } from '@/components/ui/scroll-table';
import { formatDateTime } from '@/lib/format';
import type { Invitation, InvitationIssued } from '@/types/api';

import { useCreateInvitation } from '../api/create-invitation';
import { useInvitations } from '../api/get-invitations';
import { useRevokeInvitation } from '../api/revoke-invitation';

import { formText } from './form-text';

const ROLE_OPTIONS = [
  { value: 'member', label: 'Member (runs and reads experiments)' },
  { value: 'owner', label: 'Owner (also invites and removes people)' },
] as const;
const EXPIRY_OPTIONS = [
  { value: '1', label: '1 day' },
  { value: '7', label: '7 days' },
  { value: '30', label: '30 days' },
] as const;

const RevokeInvitationButton = ({ invitation }: { invitation: Invitation }) => {
  const revoke = useRevokeInvitation();
  return (
    <ConfirmActionButton
      label="Revoke"
      question="Revoke this link? Nobody can join with it any more."
      confirmLabel="Yes, revoke"
      onConfirm={() => revoke.mutate({ invitationId: invitation.id })}
      isPending={revoke.isPending}
      error={revoke.isError ? revoke.error : null}
    />
  );
};

const IssuedLink = ({ issued }: { issued: InvitationIssued }) => (
  <div className="issued-secret" role="region" aria-label="New invitation link">
    <p>
      <strong>Send this link to your colleague now</strong>: it is shown once, works once, and expires{' '}
      {formatDateTime(issued.expires_at)}.
    </p>
    <p>
      <code className="break-anywhere">{issued.url}</code>{' '}
      <CopyButton text={issued.url} accessibleLabel="Copy the invitation link" />
    </p>
  </div>
);

/** Owners invite colleagues with a single-use link that expires; open links can be revoked. */
export const InvitePanel = () => {
  const [issued, setIssued] = useState<InvitationIssued | null>(null);
  const invitations = useInvitations();
  const create = useCreateInvitation({ mutationConfig: { onSuccess: (data) => setIssued(data) } });

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    create.mutate({
      role: formText(form, 'role') === 'owner' ? 'owner' : 'member',
      expires_in_days: Number(formText(form, 'expires_in_days') || 7),
    });
  };

  return (
    <>
      <form className="form form-inline" aria-label="Invite a colleague" onSubmit={onSubmit}>
        {create.isError ? <ErrorAlert error={create.error} /> : null}
        <SelectField label="Role" name="role" options={ROLE_OPTIONS} defaultValue="member" />
        <SelectField label="Expires after" name="expires_in_days" options={EXPIRY_OPTIONS} defaultValue="7" />
        <button type="submit" className="button button-primary" disabled={create.isPending}>
          Create invitation link
        </button>
      </form>
      {issued ? <IssuedLink issued={issued} /> : null}
      {invitations.isError ? <ErrorAlert error={invitations.error} /> : null}
      {invitations.data && invitations.data.length > 0 ? (
        <ScrollTable label="Open invitation links">
          <table className="table">
            <caption>Open invitation links</caption>
            <thead>
              <tr>
                <th scope="col">Role</th>
                <th scope="col">Created</th>
                <th scope="col">Expires</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {invitations.data.map((invitation) => (
                <tr key={invitation.id}>
                  <td>{invitation.role === 'owner' ? 'Owner' : 'Member'}</td>
                  <td>{formatDateTime(invitation.created_at)}</td>
                  <td>{formatDateTime(invitation.expires_at)}</td>
                  <td>
                    <RevokeInvitationButton invitation={invitation} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollTable>
      ) : null}
    </>
  );
};
