import { useState, type FormEvent } from 'react';

import { ErrorAlert } from '@/components/ui/error-alert';
import { InputField } from '@/components/ui/form-field';
import { isApiError, type FieldErrors } from '@/lib/api-client';
import type { User } from '@/types/api';

import { loginInputSchema, useLogin } from '../api/login';

type LoginFormProps = { onSuccess: (user: User) => void };

export const LoginForm = ({ onSuccess }: LoginFormProps) => {
  const [clientErrors, setClientErrors] = useState<FieldErrors>({});
  const loginMutation = useLogin({ mutationConfig: { onSuccess: (user) => onSuccess(user) } });
  const serverFieldErrors = isApiError(loginMutation.error) ? loginMutation.error.fieldErrors : {};

  const handleSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const parsed = loginInputSchema.safeParse({
      username: form.get('username') ?? '',
      password: form.get('password') ?? '',
    });
    if (!parsed.success) {
      loginMutation.reset();
      setClientErrors(
        Object.fromEntries(
          parsed.error.issues.map((issue) => [String(issue.path[0]), [issue.message]]),
        ),
      );
      return;
    }
    setClientErrors({});
    loginMutation.mutate(parsed.data);
  };

  const errors = { ...serverFieldErrors, ...clientErrors };

  return (
    <form className="form" onSubmit={handleSubmit} noValidate>
      {loginMutation.isError ? <ErrorAlert error={loginMutation.error} /> : null}
      {Object.keys(clientErrors).length > 0 ? (
        <ErrorAlert message={Object.values(clientErrors).flat().join(' ')} />
      ) : null}
      <InputField
        label="Username"
        name="username"
        type="text"
        autoComplete="username"
        error={errors.username}
      />
      <InputField
        label="Password"
        name="password"
        type="password"
        autoComplete="current-password"
        error={errors.password}
      />
      <button type="submit" className="button button-primary" disabled={loginMutation.isPending}>
        Sign in
      </button>
    </form>
  );
};
