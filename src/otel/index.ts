/**
 * tenant-messaging/otel: OpenTelemetry spans and metrics for every SDK call, made from what the
 * SDK publishes on `node:diagnostics_channel` (see `CHANNEL_NAMES`). Needs `@opentelemetry/api`,
 * an optional peer dependency, loaded when `instrument()` is called (the main entry never loads it).
 *
 * One span per logical call (`messages.send`, whatever its retries). The per-attempt HTTP spans are
 * left to `@opentelemetry/instrumentation-undici`: they nest under the SDK's span.
 *
 * @example
 * ```ts
 * import { instrument } from 'tenant-messaging/otel'
 * const stop = instrument() // the global tracer and meter providers
 * // ... on shutdown:
 * stop()
 * ```
 *
 * @packageDocumentation
 */
import { subscribe, tracingChannel, unsubscribe } from 'node:diagnostics_channel';
import type { MeterProvider, TracerProvider } from '@opentelemetry/api';
import { type Issue, ValidationError } from '../errors.js';
import { checkKnownKeys, type KnownKeys } from '../internal/values/checks.js';
import { describeValue } from '../internal/values/describe-value.js';
import { readOptionalFields } from '../internal/values/input.js';
import {
  CHANNEL_NAMES,
  type OutcomeUnknownMessage,
  type RateLimitedMessage,
  type RetryMessage,
} from '../types/diagnostics.js';
import { VERSION } from '../version.js';
import { loadOtelApi, type OtelApiModule } from './load-api.js';
import { clientMetrics, SCOPE_NAME } from './metrics.js';
import { perProvider } from './per-provider.js';
import { requestSubscriber } from './spans.js';

/** Where `instrument()` sends spans and metrics. */
export interface InstrumentOptions {
  /**
   * The provider of the tracer (scope `tenant-messaging`) that makes the SDK's spans.
   * @default trace.getTracerProvider() — the global provider (e.g. the one NodeSDK registers), read
   * at each call, so one registered after `instrument()` is used too
   * @example
   * ```ts
   * instrument({ tracerProvider: new NodeTracerProvider({ spanProcessors: [processor] }) })
   * ```
   */
  tracerProvider?: TracerProvider | undefined;
  /**
   * The provider of the meter (scope `tenant-messaging`) that records the SDK's metrics.
   * @default metrics.getMeterProvider() — the global provider, read at each recording, so one
   * registered after `instrument()` is used too
   * @example
   * ```ts
   * instrument({ meterProvider: new MeterProvider({ readers: [reader] }) })
   * ```
   */
  meterProvider?: MeterProvider | undefined;
}

const OPTIONS: KnownKeys<InstrumentOptions> = { tracerProvider: true, meterProvider: true };

/**
 * Subscribes to the SDK's diagnostics channels and turns them into OpenTelemetry spans and
 * metrics. Returns a function that unsubscribes (calling it again does nothing): after it, nothing
 * is recorded, no subscriber is left and spans of calls still under way are ended.
 *
 * Spans (CLIENT, child of the caller's active span): `client.me`, `client.subscription`,
 * `client.usage`, `senderNumbers.list`, `contacts.lookup`, `messages.send`, `messages.get`,
 * `messages.list`, `client.request`, with `url.template`, `http.request.method`, `server.address`,
 * `server.port`, `http.response.status_code`, `http.request.resend_count`, `error.type` and
 * `tenant_messaging.request_id`. Never the API key, a filled path, or a body.
 *
 * Metrics (meter `tenant-messaging`): the histogram `tenant_messaging.request.duration` (s) and the
 * counters `tenant_messaging.retries`, `tenant_messaging.rate_limit.waits` and
 * `tenant_messaging.outcome_unknown`.
 *
 * Throws `ValidationError` for bad options and `MessagingError` saying what to install when
 * `@opentelemetry/api` is not installed.
 *
 * @param options the providers to use
 * @default the global tracer and meter providers
 * @example
 * ```ts
 * import { NodeSDK } from '@opentelemetry/sdk-node'
 * import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici'
 * import { instrument } from 'tenant-messaging/otel'
 *
 * const sdk = new NodeSDK({ instrumentations: [new UndiciInstrumentation()] })
 * sdk.start()
 * const stop = instrument()
 * process.on('SIGTERM', () => { stop(); void sdk.shutdown() })
 * ```
 */
export function instrument(options?: InstrumentOptions): () => void {
  const { tracerProvider, meterProvider } = checkOptions(options);
  const api = loadOtelApi();
  const tracer = perProvider(
    () => tracerProvider ?? api.trace.getTracerProvider(),
    (provider) => provider.getTracer(SCOPE_NAME, VERSION),
  );
  const guard = guardWith(api);
  const metrics = clientMetrics(() => meterProvider ?? api.metrics.getMeterProvider());
  const request = requestSubscriber(api, tracer, guard('duration', metrics.duration), guard);

  const plain: [string, (message: unknown) => void][] = [
    [CHANNEL_NAMES.retry, guard('retry', (m: unknown) => metrics.retry(m as RetryMessage))],
    [CHANNEL_NAMES.rateLimited, guard('rate-limited', (m: unknown) => metrics.rateLimited(m as RateLimitedMessage))],
    [
      CHANNEL_NAMES.outcomeUnknown,
      guard('outcome-unknown', (m: unknown) => metrics.outcomeUnknown(m as OutcomeUnknownMessage)),
    ],
  ];
  const traced = tracingChannel(CHANNEL_NAMES.request);
  traced.subscribe(request.handlers);
  for (const [name, handler] of plain) subscribe(name, handler);

  let subscribed = true;
  return () => {
    if (!subscribed) return;
    subscribed = false;
    traced.unsubscribe(request.handlers);
    for (const [name, handler] of plain) unsubscribe(name, handler);
    request.close();
  };
}

function checkOptions(given: unknown): InstrumentOptions {
  const what = 'Invalid instrument() options';
  const options = readOptionalFields(given, what, '{ tracerProvider, meterProvider }') ?? {};
  const issues: Issue[] = [];
  checkKnownKeys(options, OPTIONS, ' of instrument()', issues);
  const { tracerProvider, meterProvider } = options;
  if (tracerProvider !== undefined && !hasMethod(tracerProvider, 'getTracer')) {
    issues.push({
      path: 'tracerProvider',
      message: `must be an OpenTelemetry TracerProvider (with getTracer()), got ${describeValue(tracerProvider)}`,
    });
  }
  if (meterProvider !== undefined && !hasMethod(meterProvider, 'getMeter')) {
    issues.push({
      path: 'meterProvider',
      message: `must be an OpenTelemetry MeterProvider (with getMeter()), got ${describeValue(meterProvider)}`,
    });
  }
  if (issues.length > 0) throw new ValidationError(what, issues, { code: 'validation.options' });
  return options as InstrumentOptions;
}

function hasMethod(value: unknown, name: string): boolean {
  try {
    return (
      typeof value === 'object' && value !== null && typeof (value as Record<string, unknown>)[name] === 'function'
    );
  } catch {
    return false;
  }
}

/**
 * Wraps a channel handler so that it never throws: diagnostics_channel would rethrow a
 * subscriber's error as an uncaught exception, so a failing exporter or provider would crash the
 * process. The error goes to OpenTelemetry's own diagnostic logger instead.
 */
function guardWith(api: OtelApiModule) {
  return <A extends unknown[]>(what: string, fn: (...args: A) => void) =>
    (...args: A): void => {
      try {
        fn(...args);
      } catch (error) {
        api.diag.error(`tenant-messaging/otel: the ${what} handler failed`, error);
      }
    };
}
