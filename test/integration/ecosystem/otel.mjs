// tenant-messaging/otel on each runtime (test/integration/ecosystem/runtimes.test.ts): instrument() with an
// in-memory exporter, a send and a get against the sandbox at BASE_URL, and the spans they left.
// @opentelemetry/api and @opentelemetry/sdk-trace are linked into the project by the test.
// Prints one line, `RESULT {...}`.
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { MessagingClient } from 'tenant-messaging';
import { instrument } from 'tenant-messaging/otel';

const env = process.env;
const result = {};
try {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const stop = instrument({ tracerProvider });
  const client = new MessagingClient({ baseUrl: env.BASE_URL, apiKey: env.API_KEY });
  const log = await client.messages.send({
    sender_phone: env.SENDER,
    to_phone: env.TO,
    type: 'text',
    content: 'Traced',
  });
  await client.messages.get(log.id);
  stop();
  await client.close();
  result.spans = exporter.getFinishedSpans().map((span) => ({
    name: span.name,
    method: span.attributes['http.request.method'],
    status: span.attributes['http.response.status_code'],
  }));
} catch (error) {
  result.error = `${error?.name}: ${error?.message}`.slice(0, 400);
}
console.log(`RESULT ${JSON.stringify(result)}`);
