import { channel, tracingChannel } from 'node:diagnostics_channel';
import { APIError } from '../api-error.js';
import type { Route } from '../internal/requests/route.js';
import {
  CHANNEL_NAMES,
  type OutcomeUnknownMessage,
  type PollMessage,
  type RateLimitedMessage,
  type RequestTrace,
  type RetryMessage,
} from '../types/diagnostics.js';

/**
 * The part of Node's TracingChannel the SDK uses, written out here: the emitted declarations then
 * never name `TracingChannel<…>`, whose type parameters `@types/node` has reordered between majors.
 */
interface RequestTracing {
  readonly hasSubscribers?: boolean;
  readonly start: { readonly hasSubscribers: boolean };
  readonly end: { readonly hasSubscribers: boolean };
  readonly asyncStart: { readonly hasSubscribers: boolean };
  readonly asyncEnd: { readonly hasSubscribers: boolean };
  readonly error: { readonly hasSubscribers: boolean };
  tracePromise<T>(fn: () => Promise<T>, context: RequestTrace): Promise<T>;
}

/** One trace per logical call (`messages.send`), not per attempt. */
export const requestChannel: RequestTracing = tracingChannel(CHANNEL_NAMES.request);

/**
 * Whether anything listens to the request trace, asked once per call. Bun's TracingChannel has no
 * `hasSubscribers` (Node's has since 22): there, any of its five channels having one counts.
 * Which of the two applies is decided once, when this module loads.
 */
export const requestTraced: () => boolean =
  requestChannel.hasSubscribers !== undefined
    ? () => requestChannel.hasSubscribers === true
    : () => {
        const { start, end, asyncStart, asyncEnd, error } = requestChannel;
        return (
          start.hasSubscribers ||
          end.hasSubscribers ||
          asyncStart.hasSubscribers ||
          asyncEnd.hasSubscribers ||
          error.hasSubscribers
        );
      };

/**
 * The plain channels. Publishers check `hasSubscribers` before building a message, so a process
 * that does not listen pays one property read per moment.
 */
export const channels = {
  retry: channel(CHANNEL_NAMES.retry) as TypedChannel<RetryMessage>,
  rateLimited: channel(CHANNEL_NAMES.rateLimited) as TypedChannel<RateLimitedMessage>,
  outcomeUnknown: channel(CHANNEL_NAMES.outcomeUnknown) as TypedChannel<OutcomeUnknownMessage>,
  poll: channel(CHANNEL_NAMES.poll) as TypedChannel<PollMessage>,
};

interface TypedChannel<Message> {
  readonly hasSubscribers: boolean;
  publish(message: Message): void;
}

/**
 * Publishes a retry, and a rate-limited wait when the service asked for one, unless the rate gate
 * holds that wait (`heldByGate`): the gate publishes it then, once per waiting request.
 */
export function publishRetry(
  route: Route,
  attempt: number,
  delayMs: number,
  reason: string,
  error: unknown,
  heldByGate = false,
): void {
  const { name: endpoint, method, template: urlTemplate } = route;
  if (channels.retry.hasSubscribers) {
    channels.retry.publish({ endpoint, method, urlTemplate, attempt, delayMs, reason, error });
  }
  if (!heldByGate && channels.rateLimited.hasSubscribers && error instanceof APIError && error.status === 429) {
    const source = error.headers['retry-after']
      ? 'retry-after'
      : error.headers['x-ratelimit-reset']
        ? 'x-ratelimit-reset'
        : 'backoff';
    channels.rateLimited.publish({ endpoint, urlTemplate, waitMs: delayMs, source });
  }
}

/** Publishes that the rate gate makes a request wait about `waitMs` before it starts. */
export function publishRateLimited(route: Route, waitMs: number, source: RateLimitedMessage['source']): void {
  if (!channels.rateLimited.hasSubscribers) return;
  channels.rateLimited.publish({
    endpoint: route.name,
    urlTemplate: route.template,
    waitMs: Math.round(waitMs),
    source,
  });
}
