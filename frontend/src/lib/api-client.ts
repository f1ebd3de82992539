import * as z from 'zod';

import { env } from '@/config/env';
import type { CsrfToken } from '@/types/api';

/**
 * The one HTTP client of the app. Every endpoint file in features/<x>/api calls it.
 *
 * Contract with the backend (see openapi.yaml):
 * - same-origin session-cookie auth; unsafe requests carry `X-CSRFToken` with the
 *   value of the `csrftoken` cookie (Django's defaults);
 * - every error body is `{"message", "code", "extra"}`. The client turns it into an
 *   `ApiError` whose `message` is the server's message (what components show the user)
 *   and branches on `code`: `not_authenticated` calls the handler the app registered
 *   (which sends the user to /login); `validation_error` (and the few other codes about
 *   one field, see FIELD_ERROR_CODES) exposes `fieldErrors` so forms can show them next to
 *   their fields.
 * - `api.upload` sends multipart forms (files) over XMLHttpRequest, for upload progress,
 *   with the same CSRF header and the same errors.
 */

export const CSRF_COOKIE_NAME = 'csrftoken';
export const CSRF_HEADER_NAME = 'X-CSRFToken';
const CSRF_ENDPOINT = '/api/auth/csrf/';
const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export const ERROR_CODES = {
  notAuthenticated: 'not_authenticated',
  validation: 'validation_error',
  invalidCredentials: 'invalid_credentials',
  notFound: 'not_found',
  tlsBrokerNotConfigured: 'tls_broker_not_configured',
  // Client-side codes, for failures that never produced an envelope.
  network: 'network_error',
  http: 'http_error',
} as const;

export type FieldErrors = Record<string, string[]>;

/** The codes whose `extra.fields` holds per-field messages, like a `validation_error`'s. */
const FIELD_ERROR_CODES: ReadonlySet<string> = new Set([
  ERROR_CODES.validation,
  // A TLS transport on a platform without a TLS broker: the message belongs to that field.
  ERROR_CODES.tlsBrokerNotConfigured,
]);

const EnvelopeSchema = z.object({
  message: z.string(),
  code: z.string(),
  extra: z.record(z.string(), z.unknown()).catch({}),
});

const FieldErrorsSchema = z.record(z.string(), z.unknown());

/**
 * The messages of one field. DRF nests the errors of list items under their index
 * (`{"data_sizes": {"1": ["Ensure this value is ..."]}}`) and those of nested objects under
 * their keys; flatten them so a form can show them next to the list's field. Item indexes
 * become "Item <n>: " (1-based), which is what a user counts.
 */
const fieldMessages = (value: unknown, prefix = ''): string[] => {
  if (typeof value === 'string') return [prefix + value];
  if (Array.isArray(value)) return value.flatMap((item) => fieldMessages(item, prefix));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, nested]) =>
      fieldMessages(nested, /^\d+$/.test(key) ? `${prefix}Item ${Number(key) + 1}: ` : prefix),
    );
  }
  return [];
};

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly extra: Record<string, unknown>;

  constructor({
    status,
    code,
    message,
    extra = {},
  }: {
    status: number;
    code: string;
    message: string;
    extra?: Record<string, unknown>;
  }) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.extra = extra;
  }

  /** Per-field messages (`extra.fields`) of a `validation_error` or another FIELD_ERROR_CODES code, else `{}`. */
  get fieldErrors(): FieldErrors {
    if (!FIELD_ERROR_CODES.has(this.code)) return {};
    const parsed = FieldErrorsSchema.safeParse(this.extra.fields);
    if (!parsed.success) return {};
    const fields: FieldErrors = {};
    for (const [field, value] of Object.entries(parsed.data)) {
      const messages = fieldMessages(value);
      if (messages.length > 0) fields[field] = messages;
    }
    return fields;
  }
}

export const isApiError = (error: unknown): error is ApiError => error instanceof ApiError;

// --- not_authenticated branch ------------------------------------------------

type UnauthenticatedHandler = (error: ApiError) => void;
let unauthenticatedHandler: UnauthenticatedHandler | null = null;

/** The app registers what "go to /login" means (it owns the router). Returns an unregister function. */
export const setUnauthenticatedHandler = (handler: UnauthenticatedHandler): (() => void) => {
  unauthenticatedHandler = handler;
  return () => {
    if (unauthenticatedHandler === handler) unauthenticatedHandler = null;
  };
};

// --- CSRF ------------------------------------------------------------------

// Token from the last GET /api/auth/csrf/ body: a fallback for when the cookie is not
// readable from JS (CSRF_COOKIE_HTTPONLY). The cookie wins because Django rotates the
// token on login and only the cookie follows that rotation.
let lastCsrfToken: string | null = null;

const readCookie = (name: string): string | null => {
  const prefix = `${name}=`;
  for (const part of document.cookie.split(';')) {
    const item = part.trim();
    if (item.startsWith(prefix)) return decodeURIComponent(item.slice(prefix.length));
  }
  return null;
};

const currentCsrfToken = (): string | null => readCookie(CSRF_COOKIE_NAME) ?? lastCsrfToken;

/** GET /api/auth/csrf/: sets the `csrftoken` cookie. Called before login. */
export const refreshCsrfToken = async (): Promise<string> => {
  const body = await request<CsrfToken>('GET', CSRF_ENDPOINT);
  lastCsrfToken = body.csrf_token;
  return currentCsrfToken() ?? body.csrf_token;
};

// --- requests ----------------------------------------------------------------

export type RequestOptions = {
  signal?: AbortSignal;
  /** Do not call the not_authenticated handler (used by GET /api/auth/me/, where 401 is an answer). */
  skipAuthRedirect?: boolean;
};

const buildUrl = (path: string): string => new URL(env.API_URL + path, window.location.origin).toString();

/** An error body (already parsed, or null when it was not JSON) as an ApiError. */
const envelopeToApiError = (status: number, body: unknown): ApiError => {
  const envelope = EnvelopeSchema.safeParse(body);
  if (envelope.success) {
    return new ApiError({ status, ...envelope.data });
  }
  return new ApiError({
    status,
    code: ERROR_CODES.http,
    message: `The server answered with an unexpected error (HTTP ${status}).`,
  });
};

const toApiError = async (response: Response): Promise<ApiError> => {
  let body: unknown = null;
  try {
    body = await response.json();
  } catch {
    // Not JSON (a proxy's HTML error page, for instance): fall through to the generic error.
  }
  return envelopeToApiError(response.status, body);
};

const networkError = () =>
  new ApiError({
    status: 0,
    code: ERROR_CODES.network,
    message: 'Could not reach the server. Check your connection and try again.',
  });

/** Both clients below: tell the app about a lost session, then hand the error back to throw. */
const reportError = (error: ApiError, options: RequestOptions): ApiError => {
  if (error.code === ERROR_CODES.notAuthenticated && !options.skipAuthRedirect) {
    unauthenticatedHandler?.(error);
  }
  return error;
};

const csrfHeader = async (): Promise<string> => currentCsrfToken() ?? (await refreshCsrfToken());

async function request<T>(
  method: string,
  path: string,
  body?: unknown,
  options: RequestOptions = {},
): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (UNSAFE_METHODS.has(method)) headers[CSRF_HEADER_NAME] = await csrfHeader();

  let response: Response;
  try {
    response = await fetch(buildUrl(path), {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
      signal: options.signal,
    });
  } catch (error) {
    // Cancellation is TanStack Query's business, not an error to show.
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw networkError();
  }

  if (!response.ok) throw reportError(await toApiError(response), options);

  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

// --- uploads -----------------------------------------------------------------

/** How much of a request body has been sent, in bytes. */
export type UploadProgress = { loaded: number; total: number };

export type UploadOptions = RequestOptions & {
  /** Called as the body goes out; `loaded === total` once it has all been sent. */
  onProgress?: (progress: UploadProgress) => void;
};

/** The body of a finished XMLHttpRequest as JSON, or null when it is empty or not JSON. */
const xhrJson = (xhr: XMLHttpRequest): unknown => {
  if (!xhr.responseText) return null;
  try {
    return JSON.parse(xhr.responseText) as unknown;
  } catch {
    return null;
  }
};

/**
 * POST a multipart form and report upload progress. fetch() cannot report how much of a
 * request body has been sent, so this one helper uses XMLHttpRequest; it keeps the
 * contract of `request` (CSRF header, session cookie, error envelope → ApiError, the
 * not_authenticated handler, AbortError on cancel).
 */
async function upload<T>(path: string, form: FormData, options: UploadOptions = {}): Promise<T> {
  const token = await csrfHeader();
  return new Promise<T>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', buildUrl(path));
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.setRequestHeader(CSRF_HEADER_NAME, token);
    // The browser sets the multipart Content-Type with its boundary; never set it here.
    // Same-origin requests carry the session cookie without withCredentials.

    const { onProgress, signal } = options;
    if (onProgress) {
      xhr.upload.addEventListener('progress', (event) => {
        // Without a known length, report what has been sent as the whole so far.
        onProgress({ loaded: event.loaded, total: event.lengthComputable ? event.total : event.loaded });
      });
    }

    const abort = () => xhr.abort();
    signal?.addEventListener('abort', abort, { once: true });
    const settle = () => signal?.removeEventListener('abort', abort);

    xhr.addEventListener('load', () => {
      settle();
      const body = xhrJson(xhr);
      if (xhr.status >= 200 && xhr.status < 300) {
        resolve((xhr.status === 204 ? undefined : body) as T);
      } else {
        reject(reportError(envelopeToApiError(xhr.status, body), options));
      }
    });
    xhr.addEventListener('error', () => {
      settle();
      reject(networkError());
    });
    xhr.addEventListener('abort', () => {
      settle();
      // The same rejection fetch gives on abort: cancellation, not an error to show.
      reject(new DOMException('The upload was cancelled.', 'AbortError'));
    });

    if (signal?.aborted) {
      settle();
      reject(new DOMException('The upload was cancelled.', 'AbortError'));
      return;
    }
    xhr.send(form);
  });
}

export const api = {
  get: <T>(path: string, options?: RequestOptions) => request<T>('GET', path, undefined, options),
  post: <T>(path: string, body?: unknown, options?: RequestOptions) =>
    request<T>('POST', path, body, options),
  patch: <T>(path: string, body: unknown, options?: RequestOptions) =>
    request<T>('PATCH', path, body, options),
  delete: <T = void>(path: string, options?: RequestOptions) =>
    request<T>('DELETE', path, undefined, options),
  /** multipart POST with upload progress (see `upload`). */
  upload: <T>(path: string, form: FormData, options?: UploadOptions) => upload<T>(path, form, options),
};
