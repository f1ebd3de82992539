import { config } from 'zod';

/*
 * Zod 4 compiles fast object parsers with `new Function`, after probing whether eval is
 * allowed. Our Content-Security-Policy has no 'unsafe-eval' (backend/config/settings/csp.py),
 * so the probe fails; parsing still works, but the browser reports a CSP violation on every
 * page. Jitless mode skips both. main.tsx imports this module first, before any schema is
 * parsed; e2e/test_browser.py fails on any violation.
 */
config({ jitless: true });
