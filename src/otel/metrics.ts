import type { Attributes, Counter, Histogram, MeterProvider } from '@opentelemetry/api';
import type { OutcomeUnknownMessage, RateLimitedMessage, RequestTrace, RetryMessage } from '../types/diagnostics.js';
import { VERSION } from '../version.js';
import { outcomeAttributes } from './attributes.js';
import { perProvider } from './per-provider.js';

/** The meter's (and the tracer's) instrumentation scope name. */
export const SCOPE_NAME = 'tenant-messaging';

/**
 * The semantic conventions' advised buckets for `http.client.request.duration`, in seconds: a
 * logical call is one or more HTTP requests, so the same range fits.
 */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

interface Instruments {
  readonly duration: Histogram;
  readonly retries: Counter;
  readonly rateLimitWaits: Counter;
  readonly outcomeUnknown: Counter;
}

function createInstruments(provider: MeterProvider): Instruments {
  const meter = provider.getMeter(SCOPE_NAME, VERSION);
  return {
    duration: meter.createHistogram('tenant_messaging.request.duration', {
      unit: 's',
      description: 'Duration of one logical SDK call (messages.send, ...), all its attempts and waits included.',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    }),
    retries: meter.createCounter('tenant_messaging.retries', {
      unit: '{retry}',
      description: 'Failed attempts the SDK retried.',
    }),
    rateLimitWaits: meter.createCounter('tenant_messaging.rate_limit.waits', {
      unit: '{wait}',
      description: 'Waits before a retry because the service answered 429.',
    }),
    outcomeUnknown: meter.createCounter('tenant_messaging.outcome_unknown', {
      unit: '{call}',
      description: 'Calls that changed something and may or may not have been processed (OutcomeUnknownError).',
    }),
  };
}

/**
 * The SDK's metrics. The provider is read at each recording and the instruments are made again
 * when it changed (see `perProvider`), so a global provider registered after `instrument()` (an
 * SDK started later) receives them.
 */
export function clientMetrics(provider: () => MeterProvider) {
  const instruments = perProvider(provider, createInstruments);
  return {
    duration(trace: RequestTrace, seconds: number): void {
      instruments().duration.record(seconds, {
        'tenant_messaging.endpoint': trace.endpoint,
        'http.request.method': trace.method,
        ...outcomeAttributes(trace),
      });
    },
    retry(message: RetryMessage): void {
      instruments().retries.add(1, endpointAttributes(message));
    },
    rateLimited(message: RateLimitedMessage): void {
      instruments().rateLimitWaits.add(1, {
        'tenant_messaging.endpoint': message.endpoint,
        'tenant_messaging.rate_limit.source': message.source,
      });
    },
    outcomeUnknown(message: OutcomeUnknownMessage): void {
      instruments().outcomeUnknown.add(1, endpointAttributes(message));
    },
  };
}

function endpointAttributes(message: { readonly endpoint: string; readonly method: string }): Attributes {
  return { 'tenant_messaging.endpoint': message.endpoint, 'http.request.method': message.method };
}
