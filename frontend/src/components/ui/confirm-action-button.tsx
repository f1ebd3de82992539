import { useState } from 'react';

import { ErrorAlert } from './error-alert';

type ConfirmDeleteButtonProps = {
  /** The first button's text, e.g. "Delete trace". */
  label: string;
  /** The question the second click answers, e.g. "Delete this trace and its raw file?". */
  question: string;
  /** Starts the deletion (a mutation's `mutate`). */
  onConfirm: () => void;
  isPending: boolean;
  error: unknown;
};

/** Delete with a second, explicit click: what is deleted cannot be brought back. */
export const ConfirmDeleteButton = ({ label, question, onConfirm, isPending, error }: ConfirmDeleteButtonProps) => {
  const [confirming, setConfirming] = useState(false);
  return (
    <div className="actions">
      {error ? <ErrorAlert error={error} /> : null}
      {confirming ? (
        <>
          <span>{question}</span>
          <button type="button" className="button button-danger" disabled={isPending} onClick={onConfirm}>
            Yes, delete
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
