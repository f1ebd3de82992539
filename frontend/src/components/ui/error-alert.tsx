import { isApiError, type FieldErrors } from '@/lib/api-client';

/** The text to show for any thrown value: the server's `message` for API errors. */
export const errorMessage = (error: unknown): string => {
  if (isApiError(error)) return error.message;
  if (error instanceof Error && error.message) return error.message;
  return 'Something went wrong.';
};

/**
 * What a form shows when its submit threw: with field errors from the server, those the form
 * has fields for (`split` sorts them) and a message that adds the others; otherwise the message.
 */
export const submitErrorOf = <ByField,>(
  error: unknown,
  split: (fieldErrors: FieldErrors) => { byField: ByField; other: readonly string[] },
): { byField: ByField | null; message: string } => {
  if (isApiError(error) && Object.keys(error.fieldErrors).length > 0) {
    const { byField, other } = split(error.fieldErrors);
    return { byField, message: [error.message, ...other].join(' ') };
  }
  return { byField: null, message: errorMessage(error) };
};

type ErrorAlertProps = { error?: unknown; message?: string; title?: string };

export const ErrorAlert = ({ error, message, title }: ErrorAlertProps) => (
  <div role="alert" className="alert alert-error">
    {title ? <strong className="alert-title">{title} </strong> : null}
    {message ?? errorMessage(error)}
  </div>
);
