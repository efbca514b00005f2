/**
 * The fleet gate keeps a request's place one second past its answer, because the service counts
 * it in its second; a request that stopped before its POST (a lost lock, an unconfirmed mark, a
 * lost lane place) reached nothing and gives its place back at once. After a datastore freeze
 * that cost 6 locks at 1/s, the fleet sent nothing for about 6 s while those places were kept.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createFleetGate } from '../../../../src/bullmq/fleet/gate.js';
import type { PlaceStore } from '../../../../src/bullmq/store/types.js';

class Unsent extends Error {}

/** A datastore that admits every request at once and records how long each place is kept. */
function recordingPlaces() {
  const kept: number[] = [];
  const places = {
    admit: async () => 0,
    settle: async (_member: string, windowMs: number) => {
      kept.push(windowMs);
    },
  } as unknown as PlaceStore;
  return { places, kept };
}

describe('the fleet gate, after its request', () => {
  it('keeps the place a second after an answer or a failure, and not at all after a request that never went out', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom('answer', 'failure', 'unsent'), { minLength: 1, maxLength: 20 }),
        async (ends) => {
          const { places, kept } = recordingPlaces();
          const gate = createFleetGate({ places, limit: 5, requestTimeout: 10_000 });
          for (const end of ends) {
            const request = async () => {
              if (end === 'failure') throw new Error('HTTP 500');
              if (end === 'unsent') throw new Unsent();
              return 'log';
            };
            await gate.run(request, (error) => error instanceof Unsent).catch(() => undefined);
          }
          expect(kept).toEqual(ends.map((end) => (end === 'unsent' ? 0 : 1_000)));
        },
      ),
    );
  });

  it('keeps every place a second when no request says it never went out', async () => {
    const { places, kept } = recordingPlaces();
    const gate = createFleetGate({ places, limit: 5, requestTimeout: 10_000 });
    await gate.run(async () => Promise.reject(new Unsent())).catch(() => undefined);
    expect(kept).toEqual([1_000]);
  });
});
