import { useState, type FormEvent } from 'react';

import { CopyButton } from '@/components/ui/copy-button';
import { ErrorAlert } from '@/components/ui/error-alert';
import { InputField, SelectField } from '@/components/ui/form-field';
import { Loading } from '@/components/ui/loading';
import { isApiError } from '@/lib/api-client';
import { formatDateTime } from '@/lib/format';
import type { Share, ShareInput } from '@/types/api';

import { useCreateShare, useRevokeShare, useUpdateShare } from '../api/change-share';
import { useShares, type ShareFilter } from '../api/get-shares';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The expiries offered, in days; 0 is a link that never expires. */
export const EXPIRY_CHOICES = [
  { value: '0', label: 'Never' },
  { value: '1', label: 'In 1 day' },
  { value: '7', label: 'In 7 days' },
  { value: '30', label: 'In 30 days' },
  { value: '90', label: 'In 90 days' },
] as const;

/** The ISO time `days` from `now`, or null (never) for 0. */
export const expiryFromDays = (days: number, now: number = Date.now()): string | null =>
  days > 0 ? new Date(now + days * DAY_MS).toISOString() : null;

/** The link as a visitor types it: the page's origin and the share's path. */
export const shareUrl = (share: Share, origin: string = window.location.origin) => `${origin}${share.path}`;

const STATE_LABELS: Record<Share['state'], string> = { active: 'Active', expired: 'Expired', revoked: 'Revoked' };

const WHAT: Record<ShareInput['kind'], string> = {
  run: 'this run',
  comparison: 'this comparison',
  experiment: 'this experiment and all its runs',
};

/** One link: its address with a copy button, when it ends, and the owner's actions. */
const ShareRow = ({ share }: { share: Share }) => {
  const revoke = useRevokeShare();
  const update = useUpdateShare();
  const url = shareUrl(share);
  const active = share.state === 'active';
  const label = share.title || 'Untitled link';
  return (
    <li className="share-row">
      <div>
        <strong>{label}</strong> <span className="muted">({STATE_LABELS[share.state]})</span>
      </div>
      {active ? (
        <div className="actions">
          <input className="share-url" readOnly value={url} aria-label={`Link: ${label}`} onFocus={(e) => e.target.select()} />
          <CopyButton text={url} label="Copy link" accessibleLabel={`Copy link: ${label}`} />
        </div>
      ) : null}
      <p className="muted">
        Created {formatDateTime(share.created_at)}
        {share.created_by ? ` by ${share.created_by}` : ''} · Opened {share.views}{' '}
        {share.views === 1 ? 'time' : 'times'}
        {share.revoked_at ? ` · Revoked ${formatDateTime(share.revoked_at)}` : null}
        {!share.revoked_at ? ` · ${share.expires_at ? `Expires ${formatDateTime(share.expires_at)}` : 'Never expires'}` : null}
      </p>
      {active ? (
        <div className="actions">
          <SelectField
            label="Change expiry"
            value=""
            onChange={(event) => {
              if (event.target.value === '') return;
              update.mutate({ shareId: share.id, data: { expires_at: expiryFromDays(Number(event.target.value)) } });
            }}
            options={[{ value: '', label: 'Keep' }, ...EXPIRY_CHOICES]}
            disabled={update.isPending}
          />
          <button
            type="button"
            className="button button-small"
            disabled={revoke.isPending}
            aria-label={`Revoke link: ${label}`}
            onClick={() => revoke.mutate({ shareId: share.id })}
          >
            Revoke
          </button>
        </div>
      ) : null}
      {revoke.isError ? <ErrorAlert error={revoke.error} title="The link could not be revoked." /> : null}
      {update.isError ? <ErrorAlert error={update.error} title="The expiry could not be changed." /> : null}
    </li>
  );
};

type SharePanelProps = {
  /** What a new link shows. */
  target: Pick<ShareInput, 'kind' | 'run' | 'experiment' | 'runs'>;
  /** Which existing links to list beside it. */
  filter: ShareFilter;
};

/**
 * Public read-only links to a run, a comparison or an experiment: create one (with an
 * optional title and expiry), copy it, change its expiry, revoke it (docs/sharing.md).
 */
export const SharePanel = ({ target, filter }: SharePanelProps) => {
  const shares = useShares({ filter });
  const create = useCreateShare();
  const [title, setTitle] = useState('');
  const [days, setDays] = useState('0');

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(
      { ...target, title, expires_at: expiryFromDays(Number(days)) },
      { onSuccess: () => setTitle('') },
    );
  };
  const fieldErrors = isApiError(create.error) ? create.error.fieldErrors : undefined;
  // Errors about what is shared (an unfinished run, a run of another workspace) have no
  // field on this form: they are shown in the alert.
  const targetErrors = ['kind', 'run', 'runs', 'experiment'].flatMap((field) => fieldErrors?.[field] ?? []);
  // A comparison's links are listed by run too: show only those of exactly these runs.
  const listed = (shares.data ?? []).filter(
    (share) =>
      share.kind === target.kind &&
      (target.kind !== 'comparison' || share.run_ids.join() === (target.runs ?? []).join()),
  );

  return (
    <section className="panel" aria-labelledby="share-heading">
      <h2 id="share-heading" className="panel-title">
        Share
      </h2>
      <p className="muted">
        Anyone with a link sees {WHAT[target.kind]}, read-only and without signing in — nothing else of your
        workspace. Revoke a link to end it at once.
      </p>
      <form className="actions" onSubmit={onSubmit}>
        <InputField
          label="Title (optional)"
          value={title}
          maxLength={200}
          onChange={(event) => setTitle(event.target.value)}
          error={fieldErrors?.title}
        />
        <SelectField
          label="Expires"
          value={days}
          onChange={(event) => setDays(event.target.value)}
          options={[...EXPIRY_CHOICES]}
          error={fieldErrors?.expires_at}
        />
        <button type="submit" className="button" disabled={create.isPending}>
          Create link
        </button>
      </form>
      {create.isError && !fieldErrors?.title && !fieldErrors?.expires_at ? (
        <ErrorAlert
          error={create.error}
          message={targetErrors.length > 0 ? targetErrors.join(' ') : undefined}
          title="The link could not be created."
        />
      ) : null}
      {shares.isPending ? <Loading label="Loading links…" /> : null}
      {shares.isError ? <ErrorAlert error={shares.error} title="The links could not be loaded." /> : null}
      {listed.length > 0 ? (
        <ul className="share-list" aria-label="Links">
          {listed.map((share) => (
            <ShareRow key={share.id} share={share} />
          ))}
        </ul>
      ) : null}
    </section>
  );
};
