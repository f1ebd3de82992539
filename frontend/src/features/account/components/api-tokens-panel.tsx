import { useState, type FormEvent } from 'react';

import { ConfirmActionButton } from '@/components/ui/confirm-action-button';
import { CopyButton } from '@/components/ui/copy-button';
import { ErrorAlert } from '@/components/ui/error-alert';
import { InputField } from '@/components/ui/form-field';
import { Loading } from '@/components/ui/loading';
import { ScrollTable } from '@/components/ui/scroll-table';
import { formatDateTime } from '@/lib/format';
import type { ApiToken, ApiTokenIssued } from '@/types/api';

import { createApiTokenSchema, useCreateApiToken } from '../api/create-api-token';
import { useApiTokens } from '../api/get-api-tokens';
import { useRevokeApiToken } from '../api/revoke-api-token';

const RevokeTokenButton = ({ token }: { token: ApiToken }) => {
  const revoke = useRevokeApiToken();
  return (
    <ConfirmActionButton
      label="Revoke"
      question={`Revoke “${token.name}”? Scripts using it stop working at once.`}
      confirmLabel="Yes, revoke"
      onConfirm={() => revoke.mutate({ tokenId: token.id })}
      isPending={revoke.isPending}
      error={revoke.isError ? revoke.error : null}
    />
  );
};

/** The key of a token just created: shown this once, with how a script sends it. */
const IssuedKey = ({ issued }: { issued: ApiTokenIssued }) => (
  <div className="issued-secret" role="region" aria-label="New API token">
    <p>
      <strong>Copy the key of “{issued.name}” now</strong>: it is not shown again (only its hash is stored).
    </p>
    <p>
      <code className="break-anywhere">{issued.key}</code> <CopyButton text={issued.key} accessibleLabel="Copy the key" />
    </p>
    <p className="muted">
      Scripts send it as <code>Authorization: Token {issued.key.slice(0, 10)}…</code> (docs/api.md).
    </p>
  </div>
);

/** Personal API tokens for scripts: create (named, key shown once), list, revoke. */
export const ApiTokensPanel = () => {
  const tokens = useApiTokens();
  const [issued, setIssued] = useState<ApiTokenIssued | null>(null);
  const [nameError, setNameError] = useState<string | undefined>();
  const create = useCreateApiToken({ mutationConfig: { onSuccess: (data) => setIssued(data) } });

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formElement = event.currentTarget;
    const parsed = createApiTokenSchema.safeParse({ name: new FormData(formElement).get('name') ?? '' });
    if (!parsed.success) {
      setNameError(parsed.error.issues[0]?.message);
      return;
    }
    setNameError(undefined);
    create.mutate(parsed.data, { onSuccess: () => formElement.reset() });
  };

  return (
    <>
      <form className="form form-inline" aria-label="New API token" onSubmit={onSubmit} noValidate>
        {create.isError ? <ErrorAlert error={create.error} /> : null}
        <InputField label="Token name" name="name" maxLength={80} placeholder="nightly export" error={nameError} />
        <button type="submit" className="button button-primary" disabled={create.isPending}>
          Create token
        </button>
      </form>
      {issued ? <IssuedKey issued={issued} /> : null}
      {tokens.isPending ? <Loading label="Loading your tokens…" /> : null}
      {tokens.isError ? <ErrorAlert error={tokens.error} /> : null}
      {tokens.data && tokens.data.length === 0 ? <p className="empty">No API tokens yet.</p> : null}
      {tokens.data && tokens.data.length > 0 ? (
        <ScrollTable label="Your API tokens">
          <table className="table">
            <caption className="visually-hidden">Your API tokens</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key starts</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {tokens.data.map((token) => (
                <tr key={token.id}>
                  <th scope="row" className="break-anywhere">
                    {token.name}
                  </th>
                  <td>
                    <code>{token.prefix}…</code>
                  </td>
                  <td>{formatDateTime(token.created_at)}</td>
                  <td>{token.last_used_at ? formatDateTime(token.last_used_at) : 'Never'}</td>
                  <td>
                    <RevokeTokenButton token={token} />
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
