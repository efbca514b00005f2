import { causeSentence } from '../cause-sentence.js';
import type { WebhookEndpoint } from './endpoints.js';
import { scrubbedText } from './shown-url.js';
import { signWebhook } from './sign.js';

/**
 * How one attempt ended: the endpoint's status, or why no answer came, in a text that never holds
 * the endpoint's query, fragment or credentials (it is logged, reported, and kept in the datastore).
 */
export type AttemptOutcome = { readonly status: number } | { readonly failure: string };

/**
 * One signed POST of an event. Never follows a redirect (the signed event goes only where it was
 * configured to go), never reads the answer's body (released at once, however large or slow),
 * and ends within `timeout` whatever the endpoint does. The failure text never holds the secret
 * (the secret only enters the HMAC), and fetch's own words are scrubbed of the URL's query,
 * fragment and credentials: an error of fetch may quote the URL whole.
 */
export async function attempt(
  endpoint: WebhookEndpoint,
  id: string,
  body: string,
  timeout: number,
  signal?: AbortSignal,
): Promise<AttemptOutcome> {
  const deadline = AbortSignal.timeout(timeout);
  try {
    const headers = await signWebhook(body, endpoint.secret, { id });
    const response = await fetch(endpoint.url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'user-agent': 'tenant-messaging-webhooks' },
      body,
      redirect: 'manual',
      signal: signal ? AbortSignal.any([signal, deadline]) : deadline,
    });
    await response.body?.cancel().catch(() => undefined);
    return { status: response.status };
  } catch (error) {
    if (deadline.aborted) return { failure: `no answer within ${timeout} ms` };
    // fetch says only "fetch failed": the reason (ECONNREFUSED, a reset...) is its cause's.
    const cause = (error as { cause?: unknown } | null)?.cause;
    const reason = cause instanceof Error ? cause : error;
    return { failure: `no answer: ${causeSentence(scrubbedText(reasonText(reason), endpoint.url))}` };
  }
}

/** An error's words: its message, or its code when it has none (an AggregateError of every address refused). */
function reasonText(reason: unknown): string {
  if (!(reason instanceof Error)) return String(reason);
  const code = (reason as { code?: unknown }).code;
  return reason.message || (typeof code === 'string' ? code : reason.name);
}

/** Whether an outcome ends the delivery as delivered. */
export const isDelivered = (outcome: AttemptOutcome): outcome is { readonly status: number } =>
  'status' in outcome && outcome.status >= 200 && outcome.status < 300;

/** Whether the endpoint said it is gone for good (410): nothing more is sent to it. */
export const isGone = (outcome: AttemptOutcome): boolean => 'status' in outcome && outcome.status === 410;

/**
 * The wait before retry `n` (1 for the first retry): "full jitter", a uniformly random share of
 * `first × 2^(n−1)` capped at `longest`, so that endpoints coming back from an outage are not met
 * by every pending delivery in the same instant.
 */
export function retryDelay(n: number, first: number, longest: number, random: () => number = Math.random): number {
  return Math.round(random() * Math.min(longest, first * 2 ** Math.max(0, n - 1)));
}
