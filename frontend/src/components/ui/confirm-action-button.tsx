import { useState } from 'react';

import { ErrorAlert } from './error-alert';

type ConfirmActionButtonProps = {
  /** The first button's text, e.g. "Delete trace". */
  label: string;
  /** The question the second click answers, e.g. "Delete this trace and its raw file?". */
  question: string;
  /** The second button's text, e.g. "Yes, delete". */
  confirmLabel: string;
  /** Starts the action (a mutation's `mutate`). */
  onConfirm: () => void;
  isPending: boolean;
  error: unknown;
};

/**
 * An action that cannot be undone (delete, revoke), taken with a second, explicit click.
 * The server's message is shown if it refuses.
 */
export const ConfirmActionButton = ({
  label,
  question,
  confirmLabel,
  onConfirm,
  isPending,
  error,
}: ConfirmActionButtonProps) => {
  const [confirming, setConfirming] = useState(false);
  return (
    <div className="actions">
      {error ? <ErrorAlert error={error} /> : null}
      {confirming ? (
        <>
          <span>{question}</span>
          <button type="button" className="button button-danger" disabled={isPending} onClick={onConfirm}>
            {confirmLabel}
          </button>
          <button type="button" className="button" onClick={() => setConfirming(false)} disabled={isPending}>
            Keep it
          </button>
        </>
      ) : (
        <button type="button" className="button" onClick={() => setConfirming(true)}>
          {label}
        </button>
      )}
    </div>
  );
};
