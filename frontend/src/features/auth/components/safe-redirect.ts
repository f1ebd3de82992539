/**
 * Where to go after login. Only same-app paths are accepted: "/x" but not "//evil.com"
 * or "https://evil.com", so a crafted ?redirectTo= cannot send users off-site.
 */
export const safeRedirectPath = (value: string | null | undefined, fallback = '/'): string => {
  if (!value || !value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) {
    return fallback;
  }
  return value;
};
