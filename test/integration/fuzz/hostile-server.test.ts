/**
 * The hostile-server fuzzer: every endpoint against generated hostile answers (odd statuses,
 * 1xx, redirects to another origin, duplicated and oversized headers, lying framing, bodies of
 * any shape and size, drips, stalls, resets, early answers). Each call must settle in time with a
 * valid value or a MessagingError, without stalling the loop, leaking a handle, letting anything
 * go unhandled, or connecting to another origin.
 *
 * A long soak: FUZZ_RUNS=2000 npx vitest run test/integration/fuzz (FUZZ_SEED replays a reported seed).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answers } from './arbitraries.js';
import { ENDPOINT_NAMES } from './endpoints.js';
import { fuzzSettings, type HostileServer, type ProcessWatch, startHostileServer, watchProcess } from './harness.js';
import { runCase, runTwiceIfStalled, warmUp } from './run-case.js';

const knobs = fuzzSettings(60);
const { seed, numRuns } = knobs;

let server: HostileServer;
let watch: ProcessWatch;
beforeAll(async () => {
  server = await startHostileServer();
});
afterAll(async () => {
  watch?.stop();
  await server?.close();
});

describe(`hostile servers (seed ${seed}, ${numRuns} runs; FUZZ_SEED / FUZZ_RUNS to change)`, () => {
  it('every endpoint settles in time with a valid value or a MessagingError, and leaves nothing behind', async () => {
    // The baseline of open handles is taken here, with the hostile server up and vitest's timers set.
    watch = watchProcess();
    await warmUp({ server, watch });
    const settings = fc.record({
      timeout: fc.integer({ min: 300, max: 800 }),
      maxRetries: fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, { weight: 2, arbitrary: fc.constantFrom(1, 2) }),
      waitTimeout: fc.integer({ min: 300, max: 1_200 }),
      interval: fc.integer({ min: 20, max: 200 }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ENDPOINT_NAMES),
        answers,
        settings,
        async (endpoint, planned, callSettings) => {
          const problems = await runTwiceIfStalled(() =>
            runCase({ server, watch }, { endpoint, answers: planned, settings: callSettings }),
          );
          expect(problems).toEqual([]);
        },
      ),
      knobs,
    );
  }, 600_000);
});
