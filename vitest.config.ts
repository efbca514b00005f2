import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

export default defineConfig({
  resolve: {
    // Tests import the package by its name, as users do; the names point at the sources.
    alias: [
      { find: /^tenant-messaging\/sandbox$/, replacement: src('sandbox/index.ts') },
      { find: /^tenant-messaging\/testing$/, replacement: src('testing.ts') },
      { find: /^tenant-messaging\/otel$/, replacement: src('otel/index.ts') },
      { find: /^tenant-messaging\/bullmq$/, replacement: src('bullmq/index.ts') },
      { find: /^tenant-messaging$/, replacement: src('index.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts', 'examples/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    reporters: ['default', 'json'],
    outputFile: { json: '.vitest-report.json' },
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      reporter: ['text-summary', 'json-summary'],
      thresholds: { lines: 90 },
    },
  },
});
