import { useState, type FormEvent } from 'react';

import { ErrorAlert } from '@/components/ui/error-alert';
import { InputField } from '@/components/ui/form-field';
import { isApiError } from '@/lib/api-client';

import { useChangePassword } from '../api/change-password';

import { formText } from './form-text';

/** Change one's password: the current one is required; the server applies Django's validators. */
export const PasswordForm = () => {
  const [done, setDone] = useState(false);
  const [mismatch, setMismatch] = useState(false);
  const change = useChangePassword({ mutationConfig: { onSuccess: () => setDone(true) } });
  const fieldErrors = isApiError(change.error) ? change.error.fieldErrors : {};

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const next = formText(form, 'new_password');
    setDone(false);
    if (next !== formText(form, 'repeat')) {
      setMismatch(true);
      return;
    }
    setMismatch(false);
    change.mutate(
      { current_password: formText(form, 'current_password'), new_password: next },
      { onSuccess: () => formElement.reset() },
    );
  };

  return (
    <form className="form" aria-label="Change password" onSubmit={onSubmit} noValidate>
      {change.isError ? <ErrorAlert error={change.error} /> : null}
      {done ? <p role="status">Password changed. Your other sessions are signed out.</p> : null}
      <InputField
        label="Current password"
        name="current_password"
        type="password"
        autoComplete="current-password"
        required
        error={fieldErrors.current_password}
      />
      <InputField
        label="New password"
        name="new_password"
        type="password"
        autoComplete="new-password"
        required
        error={fieldErrors.new_password}
        hint="At least 8 characters, not only digits, not a common password, not like your username."
      />
      <InputField
        label="Repeat the new password"
        name="repeat"
        type="password"
        autoComplete="new-password"
        required
        error={mismatch ? 'The two new passwords differ.' : undefined}
      />
      <button type="submit" className="button button-primary" disabled={change.isPending}>
        Change password
      </button>
    </form>
  );
};
