/**
 * The harness of the tenant-messaging/otel tests: in-memory OpenTelemetry providers, the SDK
 * instrumented with them, and a real HTTP server answering with scripted statuses. Call
 * `otelHarness()` at the top of a test file: it registers the context manager and the cleanups.
 */
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { type DataPoint, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { MessagingClient } from 'tenant-messaging';
import { instrument } from 'tenant-messaging/otel';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { json, messageLog, startServer, type TestServer } from './server.js';

/** A reader the test collects from when it wants (no timer). */
export class CollectingReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

export const text = { sender_phone: '+15550000001', to_phone: '+15550000002', type: 'text', content: 'hi' } as const;

/** The one span of `spans` named `name`. */
export function only(spans: ReadableSpan[], name: string): ReadableSpan {
  const found = spans.filter((s) => s.name === name);
  expect(found).toHaveLength(1);
  return found[0] as ReadableSpan;
}

/** Registers the hooks of an otel test file and returns its helpers. */
export function otelHarness() {
  const contextManager = new AsyncLocalStorageContextManager();
  beforeAll(() => {
    context.setGlobalContextManager(contextManager.enable());
  });
  afterAll(() => {
    context.disable();
  });

  const state: { server: TestServer | undefined } = { server: undefined };
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    await state.server?.close();
    state.server = undefined;
  });

  /** Fresh providers with in-memory export, and the SDK instrumented with them. */
  function setup() {
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    const reader = new CollectingReader();
    const meterProvider = new MeterProvider({ readers: [reader] });
    const stop = instrument({ tracerProvider, meterProvider });
    cleanups.push(
      () => meterProvider.shutdown(),
      () => tracerProvider.shutdown(),
      stop,
    );
    const points = async (name: string): Promise<DataPoint<unknown>[]> => {
      const { resourceMetrics } = await reader.collect();
      const metric = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === name);
      return (metric?.dataPoints ?? []) as DataPoint<unknown>[];
    };
    const count = async (name: string): Promise<number> =>
      (await points(name)).reduce((sum, p) => sum + (p.value as number), 0);
    return { exporter, tracerProvider, stop, points, count, spans: () => exporter.getFinishedSpans() };
  }

  /** A server answering each request with the next status of `statuses` (then 200). */
  async function serve(statuses: number[], headers: Record<string, string> = {}): Promise<MessagingClient> {
    state.server = await startServer((_req, res, index) => {
      const code = statuses[index] ?? 200;
      if (code >= 400) json(res, code, { message: `HTTP ${code}` }, headers);
      else json(res, code, { data: messageLog() });
    });
    return new MessagingClient({ baseUrl: state.server.url, apiKey: 'k' });
  }

  /** Starts a server with `handler` (kept for the cleanup). */
  async function start(handler: Parameters<typeof startServer>[0]): Promise<TestServer> {
    state.server = await startServer(handler);
    return state.server;
  }

  const port = () => Number(new URL(state.server?.url ?? '').port);
  const server = () => state.server;
  return { setup, serve, start, port, server, cleanups };
}
