/**
 * One queued send driven through the processor as BullMQ would drive it, against the in-process
 * sandbox behind `answer` (a hook per request), with what the datastore side records: every write
 * of the job's data and whether it was made under the lock, the queue's pauses, the updates and
 * the log lines.
 */
import { MessagingClient } from 'tenant-messaging';
import { createSandbox, SANDBOX_PHONES } from 'tenant-messaging/sandbox';
import { openGate } from '../../../../src/bullmq/fleet/gate.js';
import type { SendJobData } from '../../../../src/bullmq/send/job-data.js';
import { storedParams } from '../../../../src/bullmq/send/params.js';
import { createProcessor } from '../../../../src/bullmq/send/process.js';
import type { Unpublished } from '../../../../src/bullmq/store/update-log.js';

class RateLimited extends Error {}
const bull = {
  Worker: { RateLimitError: () => new RateLimited() },
  UnrecoverableError: class Unrecoverable extends Error {},
  WaitingError: class Waiting extends Error {},
  DelayedError: class Delayed extends Error {},
} as never;

export interface OneJobOptions {
  /** The answer to a request, or undefined to let the sandbox answer it. */
  readonly answer?: (method: string, url: string) => Response | undefined;
  /** What the datastore answers the job's n-th write under its lock (0-based): written by default. */
  readonly owned?: (n: number) => 'written' | 'lost' | 'gone';
  /** The replicas confirm the mark late (mark.ts): the POST goes in a second pass, after a wait. */
  readonly lateMark?: boolean;
}

/** The processor, a job of one text send, and what they did. */
export async function oneJob(options: OneJobOptions = {}) {
  const sandbox = createSandbox({ delivery: { deliveredAfterMs: 0, readAfterMs: 0 } });
  const { baseUrl, keys } = sandbox.tenants.acme;
  const events: string[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const method = init?.method ?? 'GET';
    const path = new URL(String(input)).pathname.replace(/^.*\/api\/v1/, '');
    events.push(`${method} ${path}`);
    return options.answer?.(method, path) ?? sandbox.fetch(input, init);
  };
  const client = new MessagingClient({
    baseUrl,
    apiKey: keys.full,
    fetch,
    maxRetries: 0,
    rateLimit: { adaptive: false },
  });
  const params = await storedParams({
    sender_phone: '+15550001001',
    to_phone: SANDBOX_PHONES.reads,
    type: 'text',
    content: 'hello',
  });
  const job = {
    id: 'order-1',
    token: 'token-1',
    // Enqueued at a past moment: the reconcile walk's window, which starts there, holds every log.
    timestamp: Date.UTC(2026, 0, 1),
    attemptsMade: 0,
    opts: { attempts: 3 },
    data: { v: 1, params, phase: 'queued' } as SendJobData,
    async updateData(): Promise<void> {
      throw new Error('written without its lock');
    },
    async moveToWait() {},
    async moveToDelayed() {},
    async log() {},
  };
  const pauses: number[] = [];
  const updates: Unpublished[] = [];
  const warnings: { message: string; fields?: Record<string, unknown> }[] = [];
  const errors: string[] = [];
  let writes = 0;
  const processor = createProcessor({
    bull,
    client,
    queue: { rateLimit: async (ms: number) => void pauses.push(ms) } as never,
    updates: {
      publish: async (update) => {
        updates.push(update);
        events.push(`publish ${update.status}`);
      },
      position: async () => '0',
      read: async function* () {},
      close: async () => {},
    },
    gate: openGate,
    track: undefined,
    logger: {
      debug() {},
      info() {},
      warn: (message, fields) => void warnings.push({ message, ...(fields ? { fields } : {}) }),
      error: (message) => void errors.push(message),
    },
    requestsPerSecond: undefined,
    clockSkewMs: 60_000,
    ...(options.lateMark
      ? {
          marks: {
            confirm: async () => {
              events.push('mark unconfirmed');
              return 'unconfirmed' as const;
            },
            settle: async () => {
              events.push('mark confirmed late');
              return true;
            },
          },
        }
      : {}),
    owned: {
      write: async (id, token, data) => {
        const answer = options.owned?.(writes++) ?? 'written';
        events.push(`write ${(data as SendJobData).phase} ${answer}`);
        if (id !== 'order-1' || token !== 'token-1') throw new Error('written for another job or token');
        return answer;
      },
    },
  });
  /** One start of the job: its result, or the error it ended with. */
  const start = () =>
    processor(job as never, job.token).then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
  return { job, start, events, pauses, updates, warnings, errors, sandbox, RateLimited };
}
