/**
 * Every write of a queued send's data goes through the state table (src/bullmq/send/states.ts), whatever
 * the service answers and wherever a worker dies. A property test drives the processor itself
 * against the in-process sandbox, as BullMQ would drive it: an answer chosen per request (accepted,
 * refused, 422, 429, 500, a reset after the service stored the send, a connection never made), and
 * crashes (the worker dies after writing, or after the service stored the send and before its
 * answer came), each followed by a re-run from what the datastore holds. It holds:
 * - every write moves the phase along a transition of the table;
 * - a write that leaves `queued` for `in-flight` is followed, in the same run, by the POST (or the
 *   worker's death): `in-flight` always means a POST may have started;
 * - nothing is sent twice, and every send ends as the table says: `sent` stored once, `failed`
 *   stored never, `unknown` stored once or never.
 */
import fc from 'fast-check';
import { MessagingClient } from 'tenant-messaging';
import { createSandbox, SANDBOX_PHONES } from 'tenant-messaging/sandbox';
import { describe, expect, it } from 'vitest';
import { openGate } from '../../../../src/bullmq/fleet/gate.js';
import type { SendJobData } from '../../../../src/bullmq/send/job-data.js';
import { storedParams } from '../../../../src/bullmq/send/params.js';
import { createProcessor } from '../../../../src/bullmq/send/process.js';
import { type Phase, TRANSITIONS } from '../../../../src/bullmq/send/states.js';

/** What one request meets. */
type Answer = 'ok' | 'refused-connection' | 'reset-after-stored' | '500' | '429' | '422' | 'crash-after-stored';
/** Whether the worker dies right after a write of the job's data. */
type WriteFate = 'live' | 'crash-after-write';

class Unrecoverable extends Error {}
class Waiting extends Error {}
class Delayed extends Error {}
class RateLimited extends Error {}
const bull = {
  Worker: { RateLimitError: () => new RateLimited() },
  UnrecoverableError: Unrecoverable,
  WaitingError: Waiting,
  DelayedError: Delayed,
} as never;

type Trace = (
  | { kind: 'write'; from: Phase; to: Phase; run: number }
  | { kind: 'post' | 'crash' | 'parse'; run: number }
)[];

const legal = (from: Phase, to: Phase) => Object.values(TRANSITIONS[from]).includes(to);

/** What the lanes answer a send (fleet/lanes.ts): go, wait (the job is delayed), or, when renewed, a place lost. */
type LaneAnswer = 'go' | 'wait' | 'lost';
/** What the replicas say of a mark (mark.ts): confirmed, or not yet (then asked again: late, or never). */
type MarkAnswer = 'go' | 'late' | 'never';

async function drive(
  answers: Answer[],
  fates: WriteFate[],
  attempts: number,
  lanes: LaneAnswer[] = [],
  marks: MarkAnswer[] = [],
) {
  const sandbox = createSandbox({ delivery: { deliveredAfterMs: 0, readAfterMs: 0 } });
  const { baseUrl, keys } = sandbox.tenants.acme;
  const trace: Trace = [];
  let run = 0;
  let crashed: (() => void) | undefined;
  const die = () => {
    trace.push({ kind: 'crash', run });
    crashed?.();
  };
  let request = 0;
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const method = init?.method ?? 'GET';
    const isPost = method === 'POST' && String(input).endsWith('/messages');
    const answer = isPost ? (answers[request++ % answers.length] ?? 'ok') : 'ok';
    if (isPost) trace.push({ kind: 'post', run });
    if (answer === 'refused-connection') {
      throw new TypeError('fetch failed', {
        cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
      });
    }
    if (answer === '500') return new Response('{"message":"Server Error"}', { status: 500 });
    if (answer === '429')
      return new Response('{"message":"Too Many Attempts."}', { status: 429, headers: { 'retry-after': '1' } });
    if (answer === '422') {
      return new Response('{"message":"The to phone field is invalid.","errors":{"to_phone":["invalid"]}}', {
        status: 422,
      });
    }
    const response = await sandbox.fetch(input, init);
    if (answer === 'reset-after-stored') {
      throw new TypeError('fetch failed', {
        cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }),
      });
    }
    if (answer === 'crash-after-stored') {
      die();
      return new Promise<never>(() => undefined); // the dead worker never sees the answer
    }
    return response;
  };
  const client = new MessagingClient({
    baseUrl,
    apiKey: keys.full,
    fetch,
    maxRetries: 0,
    rateLimit: { adaptive: false },
  });

  let laneAsks = 0;
  let markAsks = 0;
  let markAnswer: MarkAnswer = 'go';
  let data: SendJobData = { v: 1, params: await storedParams(text()), phase: 'queued' };
  let writes = 0;
  const job = {
    id: 'order-1',
    // Enqueued at a past moment: the reconcile walk's window, which starts there, holds every log.
    timestamp: Date.UTC(2026, 0, 1),
    attemptsMade: 0,
    opts: { attempts },
    get data() {
      return data;
    },
    // A worker that died is stuck for good (its promise never settles): it writes nothing more.
    async updateData(next: SendJobData) {
      trace.push({ kind: 'write', from: data.phase, to: next.phase, run });
      data = next;
      if (fates[writes++ % fates.length] === 'crash-after-write') {
        die();
        await new Promise<never>(() => undefined);
      }
    },
    async moveToWait() {},
    async moveToDelayed() {},
    async log() {},
  };
  const processor = createProcessor({
    bull,
    client,
    queue: { rateLimit: async () => undefined } as never,
    updates: {
      publish: async () => undefined,
      position: async () => '0',
      read: async function* () {},
      close: async () => {},
    },
    gate: openGate,
    track: undefined,
    logger: undefined,
    requestsPerSecond: undefined,
    clockSkewMs: 60_000,
    ...(lanes.length === 0
      ? {}
      : {
          lanes: {
            // Parsed only when the job holds no canonical number; the processor stores it.
            admit: async (data: SendJobData) => {
              if (data.recipient === undefined) trace.push({ kind: 'parse', run });
              const recipient = data.recipient ?? '+15550000002';
              return lanes[laneAsks++ % lanes.length] === 'wait'
                ? { waitMs: 10, recipient }
                : { held: HELD, recipient };
            },
            renew: async () => lanes[laneAsks++ % lanes.length] !== 'lost',
            settle: async () => undefined,
            release: async () => undefined,
          },
        }),
    ...(marks.length === 0
      ? {}
      : {
          marks: {
            confirm: async () => {
              markAnswer = marks[markAsks++ % marks.length] ?? 'go';
              return markAnswer === 'go' ? 'go' : 'unconfirmed';
            },
            settle: async () => markAnswer === 'late',
          },
        }),
  });

  let end: 'sent' | 'failed' | 'unknown' | 'gave-up-by-bullmq' | 'too-many-runs' = 'too-many-runs';
  for (run = 1; run <= 40; run++) {
    const dead = new Promise<'crashed'>((resolve) => {
      crashed = () => resolve('crashed');
    });
    const outcome = await Promise.race([
      processor(job as never, 'token').then(
        () => 'completed' as const,
        (error: unknown) => error,
      ),
      dead,
    ]);
    if (outcome === 'crashed') continue; // BullMQ re-runs a stalled job from what the datastore holds
    if (outcome === 'completed') {
      end = 'sent';
      break;
    }
    if (outcome instanceof Unrecoverable) {
      end = data.phase === 'failed' ? 'failed' : 'unknown';
      break;
    }
    if (outcome instanceof Waiting || outcome instanceof Delayed || outcome instanceof RateLimited) continue;
    job.attemptsMade++; // any other error: BullMQ counts an attempt, and retries while any are left
    if (job.attemptsMade >= attempts) {
      end = 'gave-up-by-bullmq';
      break;
    }
  }
  crashed = undefined;
  return { trace, end, phase: data.phase, stored: sandbox.messages('acme').length };
}

function text() {
  return {
    sender_phone: '+15550001001',
    to_phone: SANDBOX_PHONES.reads,
    type: 'text' as const,
    content: 'Order shipped',
  };
}

const answer = fc.constantFrom<Answer>(
  'ok',
  'refused-connection',
  'reset-after-stored',
  '500',
  '429',
  '422',
  'crash-after-stored',
);
const fate = fc.constantFrom<WriteFate>('live', 'live', 'live', 'crash-after-write');
const HELD = { places: [], member: 'm' };

describe('the processor writes a job only through the state table', () => {
  it('under any answers and crashes: every write is a transition, in-flight always precedes a POST, nothing is sent twice', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(answer, { minLength: 1, maxLength: 6 }),
        fc.array(fate, { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 1, max: 3 }),
        // Per-sender and per-recipient lanes that may make a send wait, and replicas that may not
        // acknowledge its mark in time (then asked again: late, or never): none, or a mix.
        fc.array(fc.constantFrom<LaneAnswer>('go', 'go', 'wait', 'lost'), { maxLength: 4 }),
        fc.array(fc.constantFrom<MarkAnswer>('go', 'late', 'never'), { maxLength: 4 }),
        async (answers, fates, attempts, lanes, marks) => {
          const { trace, end, phase, stored } = await drive(answers, fates, attempts, lanes, marks);
          for (const step of trace) {
            if (step.kind === 'write') expect(legal(step.from, step.to), `${step.from} -> ${step.to}`).toBe(true);
          }
          trace.forEach((step, i) => {
            if (step.kind !== 'write' || step.from !== 'queued' || step.to !== 'in-flight') return;
            const after = trace.slice(i + 1).find((s) => s.run === step.run);
            // A mark the replicas did not confirm is given back (in-flight -> queued) without a POST.
            const givenBack = after?.kind === 'write' && after.from === 'in-flight' && after.to === 'queued';
            if (!givenBack)
              expect(after?.kind, 'in-flight is written only right before a POST').toMatch(/^(post|crash)$/);
          });
          expect(stored, 'sent twice').toBeLessThanOrEqual(1);
          // The number is parsed only before the job's first start: the start's write keeps it, so
          // no later start (a retry, a give-back, a 429) parses it again.
          const started = trace.findIndex((step) => step.kind === 'write' && step.to === 'in-flight');
          if (started >= 0) expect(trace.slice(started).filter((step) => step.kind === 'parse')).toEqual([]);
          if (end === 'sent') expect(stored).toBe(1);
          if (end === 'failed') expect(stored).toBe(0);
          if (end !== 'too-many-runs' && end !== 'gave-up-by-bullmq') expect(phase).toBe(end);
        },
      ),
      { numRuns: 150 },
    );
  }, 60_000);
});
