/**
 * When a prepared message would go out, as far as this server can know before sending: the SDK
 * sends at once unless the API has asked it to wait (a 429's `Retry-After`, which this server saw
 * on its own calls), and the tenant's quota for the period (`GET /usage`, when the key may read it
 * and the answer carries `messages.remaining`) says whether the API will take it at all.
 */
import { type JsonObject, type MessagingClient, RateLimitError } from 'tenant-messaging';

/** When a send would go out, for the preview. */
export interface SendTiming {
  /** In words, for the person and the model. */
  readonly when: string;
  /** The earliest it can go (ISO 8601), or null for at once. */
  readonly not_before: string | null;
}

/**
 * What this server learnt of the API's rate limit from its own calls: until when a 429 asked it to wait.
 *
 * @example
 * ```ts
 * const watch = new RateWatch(); watch.observe(error); watch.until // ms since the epoch, or undefined
 * ```
 */
export class RateWatch {
  readonly #now: () => number;
  #until = 0;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Notes a 429 and how long it asked to wait (nothing else changes anything). */
  observe(error: unknown): void {
    if (error instanceof RateLimitError) this.#until = Math.max(this.#until, this.#now() + (error.retryAfter ?? 1_000));
  }

  /** Until when the API asked to wait, if that is still ahead. */
  get until(): number | undefined {
    return this.#until > this.#now() ? this.#until : undefined;
  }
}

/** How long the preview waits for the usage counters before saying nothing of them. */
const USAGE_TIMEOUT_MS = 5_000;

/**
 * When a send prepared now would go out.
 *
 * @example
 * ```ts
 * const { when, not_before } = await sendTiming(client, watch)
 * ```
 */
export async function sendTiming(client: MessagingClient, watch: RateWatch): Promise<SendTiming> {
  const until = watch.until;
  if (until !== undefined) {
    const at = new Date(until).toISOString();
    return {
      when: `Not before ${at}: the API answered 429 (rate limited) and asked to wait; the SDK holds the send until then.`,
      not_before: at,
    };
  }
  const quota = quotaOf(await client.usage({ timeout: USAGE_TIMEOUT_MS, maxRetries: 0 }).catch(() => undefined));
  if (quota?.remaining === 0) {
    const end = quota.periodEnd;
    return {
      when: `The tenant’s message quota for this period is used up (${quota.limit ?? '?'} messages)${end ? ` until ${end}` : ''}: the API will likely refuse it.`,
      not_before: end ?? null,
    };
  }
  const left =
    quota?.remaining === undefined ? '' : ` (${quota.remaining} messages left in the tenant’s quota this period)`;
  return {
    when: `At once when send_message is called${left}: the SDK keeps under the rate limit the API reports and waits out a 429 before sending.`,
    not_before: null,
  };
}

/** `messages.remaining`, `messages.limit` and `period.end` of a usage answer, where it has them (the spec shows no shape). */
function quotaOf(
  usage: JsonObject | undefined,
): { remaining: number | undefined; limit: number | undefined; periodEnd: string | undefined } | undefined {
  if (usage === undefined) return undefined;
  const messages = objectOf(usage['messages']);
  const period = objectOf(usage['period']);
  const number = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
  return {
    remaining: number(messages?.['remaining']),
    limit: number(messages?.['limit']),
    periodEnd: typeof period?.['end'] === 'string' ? period['end'] : undefined,
  };
}

const objectOf = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
