import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { errorResponse } from '@/testing/mocks/handlers';
import { server } from '@/testing/mocks/server';

import { api, ApiError, CSRF_HEADER_NAME, setUnauthenticatedHandler } from './api-client';

describe('api client', () => {
  let unregister: (() => void) | undefined;
  afterEach(() => unregister?.());

  it('should surface the envelope message and field errors of a validation error', async () => {
    server.use(
      http.post('/api/things/', () =>
        errorResponse(400, 'validation_error', 'Invalid input.', {
          fields: { payload_size: ['Too big.'] },
        }),
      ),
    );

    const error = await api.post('/api/things/', {}).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, code: 'validation_error', message: 'Invalid input.' });
    expect((error as ApiError).fieldErrors).toEqual({ payload_size: ['Too big.'] });
  });

  it('should flatten the per-item errors DRF gives for list fields', async () => {
    server.use(
      http.post('/api/things/', () =>
        errorResponse(400, 'validation_error', 'Invalid input.', {
          fields: {
            data_sizes: { '1': ['Ensure this value is greater than or equal to 1.'] },
            mechanisms: { '0': ['"rot13" is not a valid choice.'], '2': ['"none" is not a valid choice.'] },
            name: ['This field is required.'],
          },
        }),
      ),
    );

    const error = (await api.post('/api/things/', {}).catch((e: unknown) => e)) as ApiError;

    expect(error.fieldErrors).toEqual({
      data_sizes: ['Item 2: Ensure this value is greater than or equal to 1.'],
      mechanisms: ['Item 1: "rot13" is not a valid choice.', 'Item 3: "none" is not a valid choice.'],
      name: ['This field is required.'],
    });
  });

  it('should surface the field errors of a missing TLS broker, but not those of other codes', async () => {
    server.use(
      http.post('/api/things/', () =>
        errorResponse(400, 'tls_broker_not_configured', 'No TLS broker.', {
          fields: { transport: ['No TLS broker.'] },
        }),
      ),
      http.post('/api/other-things/', () =>
        errorResponse(409, 'devices_offline', 'Offline.', { fields: { device_ids: ['Offline.'] } }),
      ),
    );

    const tls = (await api.post('/api/things/', {}).catch((e: unknown) => e)) as ApiError;
    const offline = (await api.post('/api/other-things/', {}).catch((e: unknown) => e)) as ApiError;

    expect(tls.fieldErrors).toEqual({ transport: ['No TLS broker.'] });
    expect(offline.fieldErrors).toEqual({});
  });

  it('should fetch a CSRF token first and send it on unsafe requests', async () => {
    let header: string | null = null;
    server.use(
      http.post('/api/things/', ({ request }) => {
        header = request.headers.get(CSRF_HEADER_NAME);
        return new HttpResponse(null, { status: 204 });
      }),
    );

    await expect(api.post('/api/things/')).resolves.toBeUndefined();
    expect(header).toBe('test-csrf-token');
  });

  it('should call the registered handler on not_authenticated', async () => {
    const handler = vi.fn();
    unregister = setUnauthenticatedHandler(handler);

    await expect(api.get('/api/devices/')).resolves.toBeDefined();
    expect(handler).not.toHaveBeenCalled();

    server.use(
      http.get('/api/devices/', () => errorResponse(403, 'not_authenticated', 'Please sign in.')),
    );
    await expect(api.get('/api/devices/')).rejects.toMatchObject({ code: 'not_authenticated' });
    expect(handler).toHaveBeenCalledTimes(1);

    await expect(api.get('/api/devices/', { skipAuthRedirect: true })).rejects.toThrow('Please sign in.');
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('should give a readable error when the body is not our envelope', async () => {
    server.use(http.get('/api/broken/', () => new HttpResponse('<h1>Bad Gateway</h1>', { status: 502 })));

    await expect(api.get('/api/broken/')).rejects.toMatchObject({
      status: 502,
      code: 'http_error',
      message: 'The server answered with an unexpected error (HTTP 502).',
    });
  });

  describe('upload', () => {
    const form = () => {
      const data = new FormData();
      data.append('file', new File(['t,i\n0,1\n'], 'trace.csv', { type: 'text/csv' }));
      data.append('name', 'bench');
      return data;
    };

    it('should send the form with the CSRF header, report progress and return the body', async () => {
      let received: { csrf: string | null; name: FormDataEntryValue | null; file: string | null } | null =
        null;
      server.use(
        http.post('/api/uploads/', async ({ request }) => {
          const body = await request.formData();
          const file = body.get('file');
          received = {
            csrf: request.headers.get(CSRF_HEADER_NAME),
            name: body.get('name'),
            // Only that a file part arrived: jsdom's File loses its name and bytes on the way
            // into Node's Request (a test-environment limit; browsers send both).
            file: file === null || typeof file === 'string' ? null : 'a file',
          };
          return HttpResponse.json({ id: 'u1' }, { status: 201 });
        }),
      );
      const onProgress = vi.fn();

      await expect(api.upload('/api/uploads/', form(), { onProgress })).resolves.toEqual({ id: 'u1' });

      expect(received).toEqual({ csrf: 'test-csrf-token', name: 'bench', file: 'a file' });
      expect(onProgress).toHaveBeenCalled();
      const last = onProgress.mock.lastCall?.[0] as { loaded: number; total: number };
      expect(last.total).toBeGreaterThan(0);
      expect(last.loaded).toBe(last.total);
    });

    it('should turn the error envelope into an ApiError with field errors', async () => {
      server.use(
        http.post('/api/uploads/', () =>
          errorResponse(400, 'validation_error', 'Invalid input.', { fields: { file: ['Too large.'] } }),
        ),
      );

      const error = (await api.upload('/api/uploads/', form()).catch((e: unknown) => e)) as ApiError;

      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ status: 400, code: 'validation_error', message: 'Invalid input.' });
      expect(error.fieldErrors).toEqual({ file: ['Too large.'] });
    });

    it('should call the not_authenticated handler and read non-envelope errors like the fetch client', async () => {
      const handler = vi.fn();
      unregister = setUnauthenticatedHandler(handler);
      server.use(
        http.post('/api/uploads/', () => errorResponse(403, 'not_authenticated', 'Please sign in.')),
        http.post('/api/broken-uploads/', () => new HttpResponse('<h1>Bad Gateway</h1>', { status: 502 })),
      );

      await expect(api.upload('/api/uploads/', form())).rejects.toMatchObject({ code: 'not_authenticated' });
      expect(handler).toHaveBeenCalledTimes(1);
      await expect(api.upload('/api/broken-uploads/', form())).rejects.toMatchObject({
        status: 502,
        code: 'http_error',
        message: 'The server answered with an unexpected error (HTTP 502).',
      });
    });

    it('should report a network failure as a network_error', async () => {
      server.use(http.post('/api/uploads/', () => HttpResponse.error()));

      await expect(api.upload('/api/uploads/', form())).rejects.toMatchObject({ status: 0, code: 'network_error' });
    });

    it('should reject with an AbortError when cancelled', async () => {
      const controller = new AbortController();
      controller.abort();

      await expect(api.upload('/api/uploads/', form(), { signal: controller.signal })).rejects.toMatchObject({
        name: 'AbortError',
      });
    });
  });
});
