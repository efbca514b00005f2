/**
 * tenant-messaging/otel over real HTTP: the spans and metrics an OpenTelemetry SDK receives, read
 * back from in-memory exporters (no mock of the SDK's internals). Unsubscribing and instrument()'s
 * own options: otel-lifecycle.test.ts.
 */
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import fc from 'fast-check';
import { MessagingClient, NotFoundError, SendOutcomeUnknownError } from 'tenant-messaging';
import { describe, expect, it } from 'vitest';
import { only, otelHarness, text } from '../helpers/otel.js';
import { json, messageLog } from '../helpers/server.js';

const { setup, serve, start, port, cleanups } = otelHarness();

describe('spans', () => {
  it("one CLIENT span per call, child of the caller's active span", async () => {
    const otel = setup();
    const client = await serve([]);
    const tracer = otel.tracerProvider.getTracer('app');
    const parent = await tracer.startActiveSpan('parent', async (span) => {
      await client.messages.get(42);
      span.end();
      return span;
    });
    const span = only(otel.spans(), 'messages.get');
    expect(span.kind).toBe(SpanKind.CLIENT);
    expect(span.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
    expect(span.spanContext().traceId).toBe(parent.spanContext().traceId);
    expect(span.instrumentationScope.name).toBe('tenant-messaging');
  });

  it('a retried read (503, then 200): resend_count 1, status 200, the template and the server', async () => {
    const otel = setup();
    const client = await serve([503], { 'retry-after': '0' });
    await client.messages.get(42);
    const span = only(otel.spans(), 'messages.get');
    expect(span.attributes).toEqual({
      'url.template': '/messages/{messageLog}',
      'http.request.method': 'GET',
      'server.address': '127.0.0.1',
      'server.port': port(),
      'http.response.status_code': 200,
      'http.request.resend_count': 1,
    });
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(await otel.count('tenant_messaging.retries')).toBe(1);
    const [duration, ...more] = await otel.points('tenant_messaging.request.duration');
    expect(more).toEqual([]);
    expect(duration?.attributes).toEqual({
      'tenant_messaging.endpoint': 'getMessage',
      'http.request.method': 'GET',
      'http.response.status_code': 200,
    });
    expect(duration?.value).toMatchObject({ count: 1 });
  });

  it('a failed call (404): error.type NotFoundError, status 404, span status ERROR with the message', async () => {
    const otel = setup();
    const client = await serve([404]);
    const error = await client.messages.get(7).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    const span = only(otel.spans(), 'messages.get');
    expect(span.attributes['error.type']).toBe('NotFoundError');
    expect(span.attributes['http.response.status_code']).toBe(404);
    expect(span.attributes['http.request.resend_count']).toBeUndefined();
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: (error as Error).message });
    // The 404 named no model, so one read of /me asked whether the base URL is wrong: a second point.
    const points = await otel.points('tenant_messaging.request.duration');
    const duration = points.find((point) => point.attributes['tenant_messaging.endpoint'] === 'getMessage');
    expect(points).toHaveLength(2);
    expect(duration?.attributes).toMatchObject({ 'error.type': 'NotFoundError', 'http.response.status_code': 404 });
  });

  it('a send whose outcome is unknown (500 on POST): SendOutcomeUnknownError and the outcome_unknown counter', async () => {
    const otel = setup();
    const client = await serve([500]);
    await expect(client.messages.send(text)).rejects.toBeInstanceOf(SendOutcomeUnknownError);
    const span = only(otel.spans(), 'messages.send');
    expect(span.attributes).toMatchObject({
      'error.type': 'SendOutcomeUnknownError',
      'http.request.method': 'POST',
      'url.template': '/messages',
    });
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    const [unknown, ...more] = await otel.points('tenant_messaging.outcome_unknown');
    expect(more).toEqual([]);
    expect(unknown?.value).toBe(1);
    expect(unknown?.attributes).toEqual({ 'tenant_messaging.endpoint': 'sendMessage', 'http.request.method': 'POST' });
  });

  it('a 429 with retry-after 0, then 201, on a send: one rate-limit wait and one retry', async () => {
    const otel = setup();
    const client = await serve([429, 201], { 'retry-after': '0' });
    await client.messages.send(text);
    const span = only(otel.spans(), 'messages.send');
    expect(span.attributes).toMatchObject({ 'http.response.status_code': 201, 'http.request.resend_count': 1 });
    const [wait] = await otel.points('tenant_messaging.rate_limit.waits');
    expect(wait?.value).toBe(1);
    expect(wait?.attributes).toEqual({
      'tenant_messaging.endpoint': 'sendMessage',
      'tenant_messaging.rate_limit.source': 'retry-after',
    });
    expect(await otel.count('tenant_messaging.retries')).toBe(1);
  });

  it('spans and metrics never carry the API key, a filled path, a query or a body, whatever the call and answer', async () => {
    const otel = setup();
    let status = 200;
    let marker = '';
    const server = await start((_req, res) =>
      json(res, status, { message: `HTTP ${status}`, data: messageLog({ content: marker }), detail: marker }),
    );
    const statuses = fc.constantFrom(200, 201, 404, 422, 500, 503);
    const secret = fc.stringMatching(/^[A-Za-z0-9]{24,40}$/);
    await fc.assert(
      fc.asyncProperty(fc.nat(4), statuses, secret, secret, async (which, answer, apiKey, body) => {
        otel.exporter.reset();
        status = answer;
        marker = `BODY${body}`;
        const client = new MessagingClient({ baseUrl: server.url, apiKey: `KEY${apiKey}`, maxRetries: 0 });
        const phone = `+1555${body.length}${which}0001`;
        const calls = [
          () => client.messages.get(9_876_543),
          () => client.messages.send({ ...text, to_phone: phone, content: marker }),
          () => client.contacts.lookup({ phone, sender_phone: text.sender_phone }),
          () => client.messages.list({ page: 31_337 }),
          () => client.request({ method: 'POST', path: '/sender-numbers', body: { phone, note: marker } }),
        ];
        await (calls[which] as () => Promise<unknown>)().catch(() => undefined);
        const [span] = otel.spans();
        const seen = JSON.stringify([
          span?.name,
          span?.attributes,
          span?.events,
          span?.links,
          await otel.points('tenant_messaging.request.duration').then((p) => p.map((d) => d.attributes)),
        ]);
        for (const leak of [`KEY${apiKey}`, apiKey, body, phone, '9876543', '31337']) expect(seen).not.toContain(leak);
        expect(span?.status.message ?? '').not.toContain(apiKey);
      }),
      { seed: 11, numRuns: 30 },
    );
  });
});

describe('nesting', () => {
  it("undici's per-attempt HTTP spans nest under the call's span", async () => {
    const otel = setup();
    const undici = new UndiciInstrumentation();
    undici.setTracerProvider(otel.tracerProvider);
    cleanups.push(() => undici.disable());
    const client = await serve([503], { 'retry-after': '0' });
    await client.messages.get(42);
    const spans = otel.spans();
    const call = only(spans, 'messages.get');
    const attempts = spans.filter((s) => s !== call);
    expect(attempts).toHaveLength(2);
    for (const attempt of attempts) {
      expect(attempt.parentSpanContext?.spanId).toBe(call.spanContext().spanId);
      expect(attempt.spanContext().traceId).toBe(call.spanContext().traceId);
    }
  });
});
