import { ErrorAlert } from '@/components/ui/error-alert';

import { useWorkspaces } from '../api/get-workspaces';
import { useSelectWorkspace } from '../api/select-workspace';

/** The user's workspaces (when more than one): switch which one the app works in. */
export const WorkspaceSwitcher = () => {
  const workspaces = useWorkspaces();
  const select = useSelectWorkspace();
  if (!workspaces.data || workspaces.data.length < 2) return null;
  return (
    <section aria-labelledby="workspaces-title">
      <h2 id="workspaces-title">Your workspaces</h2>
      {select.isError ? <ErrorAlert error={select.error} /> : null}
      <ul className="plain-list">
        {workspaces.data.map((workspace) => (
          <li key={workspace.id}>
            <span className="break-anywhere">{workspace.name}</span>{' '}
            <span className="muted">({workspace.role})</span>{' '}
            {workspace.current ? (
              <strong>current</strong>
            ) : (
              <button
                type="button"
                className="button button-small"
                disabled={select.isPending}
                onClick={() => select.mutate({ workspaceId: workspace.id })}
              >
                Switch to {workspace.name}
              </button>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
};
