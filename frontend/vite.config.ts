import { fileURLToPath, URL } from 'node:url';

import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

// Django (runserver) listens here in development; the built app is served by Django itself.
const BACKEND_ORIGIN = 'http://127.0.0.1:8000';

export default defineConfig({
  base: '/',
  plugins: [react()],
  resolve: {
    alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) },
  },
  build: {
    outDir: 'dist',
    // Django serves these at /assets/...; keep the default folder name.
    assetsDir: 'assets',
    // plotly.js-dist-min is ~4.6 MB minified. It sits alone in a lazily loaded chunk
    // (src/components/charts/lazy-plotly-figure.ts), fetched only on a completed run's
    // page, so its size does not slow the first load. Everything else stays far below.
    chunkSizeWarningLimit: 5000,
  },
  server: {
    port: 5173,
    proxy: {
      '/api': { target: BACKEND_ORIGIN, changeOrigin: false },
      '/admin': { target: BACKEND_ORIGIN, changeOrigin: false },
      // The Django admin's own CSS/JS, so /admin is usable through the dev server.
      '/static': { target: BACKEND_ORIGIN, changeOrigin: false },
    },
  },
  test: {
    environment: 'jsdom',
    // Lets Testing Library register its automatic cleanup; tests still import from 'vitest'.
    globals: true,
    setupFiles: ['./src/testing/setup-tests.ts'],
    include: ['src/**/*.test.{ts,tsx}'],
    css: false,
    restoreMocks: true,
    // Route tests click through several screens; on a loaded CI machine 5 s is too tight.
    testTimeout: 20_000,
  },
});
