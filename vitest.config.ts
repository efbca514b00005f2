import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import SlowestFirst from './test/helpers/slowest-first.js';
import { useScratchDir } from './test/setup/scratch-dir.js';

// Before anything of the run makes a temporary file: its TMPDIR, on a tmpfs where there is one.
useScratchDir();

// Files that measure time or rates run after the rest of the suite, beside no other file's load,
// four at a time: the fleet test on each backend (a rate limit held by 4 worker processes; each
// file has its own datastore and sandbox, so its own limit), the fleet's per-sender and
// per-recipient lanes on each backend (the other senders not delayed behind the busy lanes, an
// order that a second of a busy machine's stall could turn), and the share of the limit the
// fleet achieves (its slots sized for a busy machine: docs/fleet.md), which starts when the first
// of the others ends. Every other file asserts counts and order (the client's lanes under fake
// timers, the 1,000-endpoint relay) or CPU time (the hostile bodies), which hold beside any load:
// a new file belongs here only if it cannot.
const ALONE = [
  'test/bullmq/fleet/fleet-redis.test.ts',
  'test/bullmq/fleet/fleet-postgres.test.ts',
  'test/bullmq/fleet/lanes-redis.test.ts',
  'test/bullmq/fleet/lanes-postgres.test.ts',
  'test/bullmq/fleet/limiter.test.ts',
];

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
    // Why more workers than cores: most files wait on sockets, child processes, timers and rate
    // limits, not the CPU (with 4 workers a third of the 2 cores stayed idle; 6 keep them busy),
    // and vitest's default on 2 cores (one worker) ran the files one after another. Files that
    // measure the loop do it in main-thread CPU time (test/helpers/loop-stall.ts), so a busy core
    // does not fail them; files that measure rates or latencies run alone (ALONE).
    maxWorkers: 6,
    // Files share their worker (isolate: false below): one that leaves fake timers installed fails.
    setupFiles: ['./test/setup/real-timers.ts'],
    // The slowest files start first, also on a fresh clone, where vitest has no timings yet.
    sequence: { sequencer: SlowestFirst },
    // A hang detector, not a measure: a test that spawns the bin several times took over 20 s
    // beside two CPU hogs.
    testTimeout: 60_000,
    // Files share workers (isolate: false below): what a test stubs is put back after it.
    unstubEnvs: true,
    unstubGlobals: true,
    hookTimeout: 30_000,
    // Why two projects: the fleet test measures a rate limit held by 4 worker processes (the
    // busiest sliding second, the rate achieved), so it runs after every other file, however many
    // workers vitest uses on the machine, beside only the other files of ALONE, side by side
    // rather than one after the other. One run still gives one report (and one coverage, with
    // `npm run coverage`).
    // (Group orders start at 1: vitest runs an order-0 project that has one worker last.)
    projects: [
      {
        extends: true,
        test: {
          name: 'suite',
          include: ['test/**/*.test.ts', 'examples/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
          exclude: ALONE,
          // Folders for what several files pack and install once (test/helpers/pack.ts), and for
          // the run's pristine PostgreSQL cluster (test/helpers/postgres.ts).
          globalSetup: ['./test/setup/pack-dir.ts', './test/setup/postgres-template.ts'],
          // Files share their worker process, one after another: a fresh process per file
          // re-imported the SDK, vitest and their dependencies every time, a quarter of the
          // suite's CPU on 2 cores (measured with isolation on and off: npm run bench is not
          // involved). Each file still closes what it opens; one that changes process-wide state
          // (the environment, a global dispatcher) puts it back in afterAll.
          isolate: false,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'fleet',
          include: ALONE,
          maxWorkers: 4,
          globalSetup: ['./test/setup/postgres-template.ts'],
          sequence: { groupOrder: 2 },
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
