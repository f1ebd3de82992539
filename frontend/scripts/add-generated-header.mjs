// Prepends a "generated, do not edit" header to the file openapi-typescript wrote,
// saying how to regenerate it (house style: generated files name their command).
// Usage: node scripts/add-generated-header.mjs src/types/api.gen.ts
import { readFileSync, writeFileSync } from 'node:fs';

const HEADER = `/**
 * GENERATED FILE - DO NOT EDIT BY HAND.
 * Source: frontend/openapi.yaml (the backend's drf-spectacular schema).
 * Regenerate from frontend/: npm run gen:api
 */
`;

const target = process.argv[2];
if (!target) {
  console.error('usage: node scripts/add-generated-header.mjs <file>');
  process.exit(1);
}

const text = readFileSync(target, 'utf8');
// Idempotent: running the script twice must not stack headers.
writeFileSync(target, text.startsWith(HEADER) ? text : HEADER + text);
