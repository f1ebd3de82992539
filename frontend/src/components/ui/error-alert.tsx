import { isApiError } from '@/lib/api-client';

/** The text to show for any thrown value: the server's `message` for API errors. */
export const errorMessage = (error: unknown): string => {
  if (isApiError(error)) return error.message;
  if (error instanceof Error && error.message) return error.message;
  return 'Something went wrong.';
};

type ErrorAlertProps = { error?: unknown; message?: string; title?: string };

export const ErrorAlert = ({ error, message, title }: ErrorAlertProps) => (
  <div role="alert" className="alert alert-error">
    {title ? <strong className="alert-title">{title} </strong> : null}
    {message ?? errorMessage(error)}
  </div>
);
