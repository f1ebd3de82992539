import { useMemo } from 'react';

import type { NetworkProfileDetail } from '@/types/api';

import { parseLinkSpec, tablesOf } from '../api/link-spec';

import { CopyProfileButton } from './copy-profile-button';
import { DelayFiguresPanel } from './delay-figures-panel';
import { DeleteProfileButton } from './delete-profile-button';
import { KIND_LABELS } from './labels';
import { LinkSpecPanel } from './link-spec-panel';
import { ProfileForm } from './profile-form';
import { SourcePanel } from './source-panel';
import { shapedDirections } from './spec-format';

type ProfileViewProps = {
  profile: NetworkProfileDetail;
  onCopied: (copy: NetworkProfileDetail) => void;
  onDeleted: () => void;
};

/**
 * One profile: its spec per direction, its source, the delay it delivers; copy it, and for
 * the workspace's own profiles change or delete it (built-ins are read-only for everyone).
 */
export const ProfileView = ({ profile, onCopied, onDeleted }: ProfileViewProps) => {
  const spec = useMemo(() => parseLinkSpec(profile.spec), [profile.spec]);
  const directions = useMemo(() => (spec ? shapedDirections(spec) : []), [spec]);

  return (
    <>
      <div className="page-head">
        <h1>Network profile: {profile.name}</h1>
        <div className="actions">
          <CopyProfileButton profileId={profile.id} onCopied={onCopied} />
        </div>
      </div>
      <p>
        <span className="badge badge-kind">{KIND_LABELS[profile.kind]}</span>{' '}
        {profile.builtin ? (
          <span className="muted">
            Read-only: a built-in profile, the same for every workspace. Copy it to your workspace to change it.
          </span>
        ) : null}
      </p>
      {profile.description ? <p className="profile-description">{profile.description}</p> : null}

      <LinkSpecPanel spec={spec} rawSpec={profile.spec} />
      <DelayFiguresPanel delays={profile.delays} directions={directions} />
      <SourcePanel profile={profile} usesTables={tablesOf(spec).length > 0} />

      {profile.builtin ? null : (
        <>
          <section className="panel" aria-labelledby="edit-heading">
            <h2 id="edit-heading" className="panel-title">
              Change this profile
            </h2>
            <ProfileForm key={profile.id} profile={profile} />
          </section>
          <DeleteProfileButton profileId={profile.id} name={profile.name} onDeleted={onDeleted} />
        </>
      )}
    </>
  );
};
