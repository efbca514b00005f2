/**
 * A client with lanes against the in-process sandbox, under vitest's fake timers: the lanes, the
 * sandbox's request log and any hold below all follow the one fake clock, so the gaps a test reads
 * are exact and no load on the machine moves them (docs/testing.md, "Testing code that waits").
 */
import { MessagingClient, type SendMessageParams } from 'tenant-messaging';
import { createSandbox, type Sandbox } from 'tenant-messaging/sandbox';
import { vi } from 'vitest';

type RateLimit = NonNullable<ConstructorParameters<typeof MessagingClient>[0]>['rateLimit'];

/**
 * How long the nth request (from 0) is held on its way to the service, and its answer on the way
 * back (a busy proxy): the lanes must hold where the service counts, however long either takes.
 */
export type Holds = (nth: number) => readonly [before: number, after: number];

const wait = (ms: number) => (ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve());

export interface LanesSandbox {
  readonly sandbox: Sandbox<'lanes'>;
  readonly client: MessagingClient;
  /** The fake time (ms) each stored send reached the service, oldest first; a filter as the log takes it. */
  sends(filter?: { sender?: string; recipient?: string }): number[];
}

/**
 * Installs fake timers (put back by `vi.useRealTimers()` in the file's afterEach) and makes a
 * sandbox whose one tenant owns `senders`, and a client of it with `rateLimit`.
 */
export function lanesSandbox(rateLimit: RateLimit, senders: readonly string[], holds?: Holds): LanesSandbox {
  vi.useFakeTimers();
  const sandbox = createSandbox({ tenants: [{ slug: 'lanes', senderNumbers: senders.map((phone) => ({ phone })) }] });
  const { baseUrl, keys } = sandbox.tenants.lanes;
  let nth = 0;
  const fetch: typeof globalThis.fetch = holds
    ? async (input, init) => {
        const [before, after] = holds(nth++);
        await wait(before);
        const response = await sandbox.fetch(input, init);
        await wait(after);
        return response;
      }
    : sandbox.fetch;
  const client = new MessagingClient({ baseUrl, apiKey: keys.full, fetch, logLevel: 'off', rateLimit });
  return {
    sandbox,
    client,
    sends: (filter = {}) => sandbox.requestLog.acceptedAt({ route: 'POST /messages', ...filter }),
  };
}

/**
 * Settles `promise`, moving the fake clock `step` ms at a time, and says how much fake time it
 * took (0: it settled with no time moved). A wait the fake clock never ends fails after `limitMs`.
 */
export async function settle<T>(
  promise: Promise<T>,
  step = 1,
  limitMs = 600_000,
): Promise<{ value: T; tookMs: number }> {
  const started = Date.now();
  let done = false;
  const watched = promise.then(
    () => (done = true),
    () => (done = true),
  );
  await vi.advanceTimersByTimeAsync(0);
  while (!done) {
    if (Date.now() - started > limitMs) throw new Error(`not settled after ${limitMs} fake ms`);
    await vi.advanceTimersByTimeAsync(step);
  }
  await watched;
  return { value: await promise, tookMs: Date.now() - started };
}

/** What `promise` came to, as text: 'done', or its error as `String()` gives it. */
export const outcome = (promise: Promise<unknown>): Promise<string> =>
  promise.then(
    () => 'done',
    (error: unknown) => String(error),
  );

/** A text send from `sender` to `to`. */
export const text = (sender: string, to: string): SendMessageParams => ({
  sender_phone: sender,
  to_phone: to,
  type: 'text',
  content: 'hi',
});
