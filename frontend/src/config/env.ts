import * as z from 'zod';

// Same-origin by default: Django serves both the app and /api. Set
// VITE_APP_API_URL only to point the app at an API on another origin.
const EnvSchema = z.object({
  API_URL: z
    .union([z.literal(''), z.url().refine((u) => !u.endsWith('/'), 'must not end with "/"')])
    .default(''),
});

export type Env = z.infer<typeof EnvSchema>;

export const parseEnv = (vars: Record<string, unknown>): Env => {
  const prefixed = Object.fromEntries(
    Object.entries(vars)
      .filter(([key]) => key.startsWith('VITE_APP_'))
      .map(([key, value]) => [key.replace('VITE_APP_', ''), value]),
  );
  const parsed = EnvSchema.safeParse(prefixed);
  if (!parsed.success) {
    // Fail fast at start-up rather than with a confusing network error later.
    throw new Error(`Invalid env provided:\n${z.prettifyError(parsed.error)}`);
  }
  return parsed.data;
};

export const env = parseEnv(import.meta.env);
