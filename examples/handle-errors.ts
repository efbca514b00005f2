/**
 * Every error the SDK throws is a `MessagingError`; its subclasses say what went wrong and what
 * to do. This example provokes the common ones on purpose and prints how each reads.
 *
 *   node examples/handle-errors.ts
 */
import {
  APIConnectionError,
  AuthenticationError,
  DeliveryTimeoutError,
  MessagingClient,
  MessagingError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  SendOutcomeUnknownError,
  UnprocessableEntityError,
  ValidationError,
} from 'tenant-messaging';

const client = new MessagingClient();
const sender = process.env.TENANT_MESSAGING_SENDER ?? '+15550001001';

/** How a caller would react to each kind of failure. */
function explain(error: unknown): string {
  if (error instanceof ValidationError)
    return `fix the input (nothing was sent): ${error.issues.map((i) => `${i.path} ${i.message}`).join('; ')}`;
  if (error instanceof SendOutcomeUnknownError)
    return 'the message may have gone out: reconcile with messages.reconcile(error.params, { since: error.startedAt }) before resending';
  if (error instanceof UnprocessableEntityError) return `the service rejected fields: ${JSON.stringify(error.errors)}`;
  if (error instanceof AuthenticationError) return `check the API key (${error.message})`;
  if (error instanceof PermissionDeniedError) return `the key lacks a scope (${error.message})`;
  if (error instanceof NotFoundError) return `no such log in this workspace (${error.message})`;
  if (error instanceof RateLimitError) return `slow down; retry in ${error.retryAfter ?? '?'} ms`;
  if (error instanceof DeliveryTimeoutError) return `not confirmed in time (last: ${error.lastLog?.delivery_status})`;
  if (error instanceof APIConnectionError) return `network trouble: ${error.message}`;
  if (error instanceof MessagingError) return error.message;
  throw error; // not ours: a bug elsewhere
}

async function attempt(label: string, run: () => Promise<unknown>): Promise<void> {
  try {
    await run();
    console.log(`${label}: ok`);
  } catch (error) {
    console.log(`${label}: ${(error as Error).name}: ${explain(error)}`);
  }
}

await attempt('bad input', () =>
  client.messages.send({ sender_phone: sender, to_phone: '', type: 'text', content: '' }),
);
await attempt('rejected by the service', () =>
  client.messages.send({ sender_phone: sender, to_phone: 'not-a-phone', type: 'text', content: 'hi' }),
);
await attempt('unknown log', () => client.messages.get(999_999));
await attempt('wrong key', () => client.withOptions({ apiKey: 'tm_test_not_a_key' }).me());
await attempt('unreachable host', () =>
  new MessagingClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'x', maxRetries: 0 }).me(),
);
