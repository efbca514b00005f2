import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { useScratchDir } from './test/setup/scratch-dir.js';

// Before anything of the run makes a temporary file: its TMPDIR, on a tmpfs where there is one.
useScratchDir();

// Every Node process of the run (vitest's workers, and the bins, examples and children the
// integration tier starts by the hundred) reuses the code V8 compiled once, kept beside the
// install: each process compiled the same modules again. Keyed by file content and Node version.
process.env['NODE_COMPILE_CACHE'] ??= fileURLToPath(new URL('./node_modules/.cache/node-compile', import.meta.url));

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

export default defineConfig({
  // The datastore's SQL and Lua live in files of their own (src/bullmq/store/): imported as text,
  // as tsup's loader does for the build.
  plugins: [
    {
      name: 'text-files',
      transform(code, id) {
        if (!/\.(sql|lua)$/.test(id)) return undefined;
        return { code: `export default ${JSON.stringify(code)};`, map: null };
      },
    },
  ],
  resolve: {
    // Tests import the package by its name, as users do; the names point at the sources.
    alias: [
      { find: /^tenant-messaging\/sandbox$/, replacement: src('sandbox/index.ts') },
      { find: /^tenant-messaging\/testing$/, replacement: src('testing.ts') },
      { find: /^tenant-messaging\/otel$/, replacement: src('otel/index.ts') },
      { find: /^tenant-messaging\/bullmq$/, replacement: src('bullmq/index.ts') },
      { find: /^tenant-messaging\/webhooks$/, replacement: src('webhooks/index.ts') },
      { find: /^tenant-messaging$/, replacement: src('index.ts') },
    ],
  },
  test: {
    // Why more workers than cores: most integration files wait on sockets, child processes and
    // datastores, not the CPU; vitest's default on 2 cores (one worker) ran them one after another.
    maxWorkers: 6,
    // Files share their worker (isolate: false below): one that leaves fake timers installed fails.
    setupFiles: ['./test/setup/real-timers.ts'],
    // A hang detector, not a measure.
    testTimeout: 60_000,
    // Files share workers (isolate: false below): what a test stubs is put back after it.
    unstubEnvs: true,
    unstubGlobals: true,
    hookTimeout: 30_000,
    // Three tiers (CONTRIBUTING.md, "The suite"): `unit` is deterministic by construction (fake
    // timers, the in-process sandbox, no process, socket or datastore: test/unit/tier-guard.test.ts
    // holds every file of it to that), `integration` runs real components and waits on conditions,
    // `bench` is the bench's smoke run, apart from `npm test` (`npm run bench:smoke`).
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'packages/*/test/unit/**/*.test.ts', 'examples/**/*.test.ts'],
          // Files share their worker process, one after another: a fresh process per file
          // re-imported the SDK, vitest and their dependencies every time. Each file still puts
          // back what it changes of the process (the environment, a global dispatcher).
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'packages/*/test/integration/**/*.test.ts'],
          // Folders for what several files pack and install once (test/helpers/pack.ts), and for
          // the run's pristine PostgreSQL cluster (test/helpers/postgres.ts).
          globalSetup: [
            './test/setup/pack-dir.ts',
            './test/setup/postgres-template.ts',
            './test/setup/reap-servers.ts',
          ],
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'bench',
          include: ['bench/**/*.test.ts'],
          globalSetup: ['./test/setup/pack-dir.ts'],
        },
      },
    ],
    // failures-last names every failure again in the run's last lines (CI logs keep their end).
    reporters: ['default', 'json', './test/reporters/failures-last.ts'],
    outputFile: { json: '.vitest-report.json' },
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      // The SDK's own sources: the command line and the MCP server (packages/) run mostly as built
      // bins in child processes, where this process's coverage cannot see them.
      reporter: ['text-summary', 'json-summary'],
      thresholds: { lines: 90 },
    },
  },
});
