/** tenant-messaging/otel: unsubscribing, and instrument()'s options, providers and failures. */
import { channel, tracingChannel } from 'node:diagnostics_channel';
import { metrics, type TracerProvider as TracerProviderApi, trace } from '@opentelemetry/api';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { CHANNEL_NAMES, MessagingClient, SendOutcomeUnknownError, ValidationError } from 'tenant-messaging';
import { instrument } from 'tenant-messaging/otel';
import { describe, expect, it } from 'vitest';
import { CollectingReader, otelHarness, text } from '../helpers/otel.js';
import { json, messageLog } from '../helpers/server.js';

const { setup, serve, start, cleanups } = otelHarness();

describe('unsubscribing', () => {
  const channelsHaveSubscribers = () => [
    tracingChannel(CHANNEL_NAMES.request).hasSubscribers,
    channel(CHANNEL_NAMES.retry).hasSubscribers,
    channel(CHANNEL_NAMES.rateLimited).hasSubscribers,
    channel(CHANNEL_NAMES.outcomeUnknown).hasSubscribers,
  ];

  it('stops recording and leaves no subscriber; calling it again does nothing', async () => {
    const otel = setup();
    const client = await serve([503, 200, 500], { 'retry-after': '0' });
    expect(channelsHaveSubscribers()).toEqual([true, true, true, true]);
    otel.stop();
    otel.stop();
    expect(channelsHaveSubscribers()).toEqual([false, false, false, false]);
    await client.messages.get(42);
    await expect(client.messages.send(text)).rejects.toBeInstanceOf(SendOutcomeUnknownError);
    expect(otel.spans()).toEqual([]);
    expect(await otel.points('tenant_messaging.request.duration')).toEqual([]);
    expect(await otel.count('tenant_messaging.retries')).toBe(0);
    expect(await otel.count('tenant_messaging.outcome_unknown')).toBe(0);
  });

  it('ends the span of a call still under way, so none is left open', async () => {
    const otel = setup();
    let answer: () => void = () => undefined;
    const server = await start(
      (_req, res) => new Promise<void>((resolve) => (answer = () => resolve(json(res, 200, { data: messageLog() })))),
    );
    const client = new MessagingClient({ baseUrl: server.url, apiKey: 'k' });
    const call = client.messages.get(42);
    await expect.poll(() => server.requests.length).toBe(1);
    otel.stop();
    expect(otel.spans().map((s) => s.name)).toEqual(['messages.get']);
    answer();
    await call;
    expect(otel.spans()).toHaveLength(1);
  });
});

describe('instrument() itself', () => {
  it('refuses bad options with a ValidationError naming the option', () => {
    const cases: [unknown, string][] = [
      [5, ''],
      [{ tracerProvider: {} }, 'tracerProvider'],
      [{ meterProvider: 'global' }, 'meterProvider'],
      [{ tracer: {} }, 'tracer'],
    ];
    for (const [options, field] of cases) {
      const error = (() => {
        try {
          instrument(options as never);
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).field ?? '').toBe(field);
    }
    expect(tracingChannel(CHANNEL_NAMES.request).hasSubscribers).toBe(false);
  });

  it('a provider that throws never breaks the call nor crashes the process', async () => {
    const broken = {
      getTracer: () => ({
        startSpan() {
          throw new Error('exporter down');
        },
      }),
    } as unknown as TracerProviderApi;
    const stop = instrument({ tracerProvider: broken });
    cleanups.push(stop);
    const client = await serve([503], { 'retry-after': '0' });
    await expect(client.messages.get(42)).resolves.toMatchObject({ id: 42 });
  });

  it('without providers, uses the global ones, even when they are registered after instrument()', async () => {
    const stop = instrument();
    cleanups.push(stop);
    const exporter = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }));
    const reader = new CollectingReader();
    metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
    cleanups.push(
      () => trace.disable(),
      () => metrics.disable(),
    );
    const client = await serve([]);
    await client.me().catch(() => undefined);
    expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual(['client.me']);
    const { resourceMetrics } = await reader.collect();
    const names = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics.map((m) => m.descriptor.name));
    expect(names).toContain('tenant_messaging.request.duration');
  });
});
