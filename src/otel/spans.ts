import type { Attributes, Span, Tracer } from '@opentelemetry/api';
import type { RequestTrace } from '../types/diagnostics.js';
import { errorMessageOf, failed, outcomeAttributes, serverAttributes, spanNameOf } from './attributes.js';
import type { OtelApiModule } from './load-api.js';

/** The handlers of a `tenant-messaging:request` TracingChannel subscription. */
export interface RequestHandlers {
  start(trace: object): void;
  end(trace: object): void;
  asyncStart(trace: object): void;
  asyncEnd(trace: object): void;
  error(trace: object): void;
}

/** A call under way: its span and when it started (for the duration metric). */
interface InFlight {
  readonly span: Span;
  readonly startedAt: number;
}

/** Records one call's duration with the attributes of its outcome. */
export type DurationRecorder = (trace: RequestTrace, seconds: number) => void;

/**
 * One CLIENT span per logical call (`messages.send` with all its retries), child of the caller's
 * active context, made active for the call so spans made during it (undici's per-attempt HTTP
 * spans) nest under it. `close()` ends the spans of calls still under way, so unsubscribing
 * leaves no span open.
 */
export function requestSubscriber(
  api: OtelApiModule,
  tracer: () => Tracer,
  recordDuration: DurationRecorder,
  guard: <A extends unknown[]>(what: string, fn: (...args: A) => void) => (...args: A) => void,
): { handlers: RequestHandlers; close(): void } {
  // Strong references, removed when the call ends: the spans close() must still be able to end.
  const inFlight = new Map<object, InFlight>();

  const start = guard('start', (ctx: object) => {
    const trace = ctx as RequestTrace;
    // `start` runs synchronously inside the caller's call, so the active context is the caller's.
    const parent = api.context.active();
    const attributes: Attributes = {
      'url.template': trace.urlTemplate,
      'http.request.method': trace.method,
      ...serverAttributes(trace.serverAddress),
    };
    const span = tracer().startSpan(spanNameOf(trace.endpoint), { kind: api.SpanKind.CLIENT, attributes }, parent);
    inFlight.set(ctx, { span, startedAt: performance.now() });
    const active = api.trace.setSpan(parent, span);
    // Another subscriber may have set its own context first: run inside both, ours outermost.
    const previous = trace.bindContext;
    trace.bindContext = <T>(run: () => T): T => api.context.with(active, previous ? () => previous(run) : run);
  });

  const asyncEnd = guard('asyncEnd', (ctx: object) => {
    const call = inFlight.get(ctx);
    if (!call) return;
    inFlight.delete(ctx);
    const trace = ctx as RequestTrace;
    const seconds = (performance.now() - call.startedAt) / 1000;
    try {
      finish(api, call.span, trace);
    } finally {
      recordDuration(trace, seconds);
    }
  });

  const handlers: RequestHandlers = {
    start,
    // The call ends in `asyncEnd`, which diagnostics_channel publishes on success and after
    // `error` on failure (the SDK's traced function is async, so it never throws synchronously).
    end: () => undefined,
    asyncStart: () => undefined,
    asyncEnd,
    error: () => undefined,
  };

  return {
    handlers,
    close() {
      for (const { span } of inFlight.values()) span.end();
      inFlight.clear();
    },
  };
}

/** Sets the outcome of the call on its span and ends it. */
function finish(api: OtelApiModule, span: Span, trace: RequestTrace): void {
  try {
    span.setAttributes(outcomeAttributes(trace));
    if (trace.attempts > 1) span.setAttribute('http.request.resend_count', trace.attempts - 1);
    if (typeof trace.requestId === 'string') span.setAttribute('tenant_messaging.request_id', trace.requestId);
    if (failed(trace)) {
      const message = errorMessageOf(trace.error);
      span.setStatus(
        message === undefined ? { code: api.SpanStatusCode.ERROR } : { code: api.SpanStatusCode.ERROR, message },
      );
    }
  } finally {
    span.end();
  }
}
