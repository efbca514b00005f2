// The other entry points on each runtime (test/integration/ecosystem/runtimes.test.ts): tenant-messaging/sandbox
// started on loopback and used by a client, and tenant-messaging/testing's in-process sandbox
// through its own `fetch` and (on Node) through msw's handlers (msw is linked into the project by
// the test).
// Prints one line, `RESULT {...}`, each step's outcome.
import { MessagingClient, PermissionDeniedError } from 'tenant-messaging';
import { createSandbox, SANDBOX_PHONES, startSandbox } from 'tenant-messaging/sandbox';
import { sandboxHandlers } from 'tenant-messaging/testing';
import { stepper } from './steps.mjs';

const { steps, step } = stepper();
const text = (content) => ({ sender_phone: '+15550001001', to_phone: SANDBOX_PHONES.reads, type: 'text', content });

await step('sandbox on loopback', async () => {
  const sandbox = await startSandbox({ delivery: { deliveredAfterMs: 10, readAfterMs: 20 } });
  try {
    const { baseUrl, keys } = sandbox.tenants.acme;
    const client = new MessagingClient({ baseUrl, apiKey: keys.full });
    const log = await client.messages.send(text('From the sandbox'));
    const delivered = await client.waitForDelivery(log.id, { interval: 20, timeout: 5_000 });
    await client.close();
    return { stored: sandbox.messages('acme').length, status: delivered.delivery_status };
  } finally {
    await sandbox.close();
  }
});

await step('testing: the sandbox through its fetch', async () => {
  const sandbox = createSandbox();
  const { baseUrl, keys } = sandbox.tenants.acme;
  const client = new MessagingClient({ baseUrl, apiKey: keys.noSend, fetch: sandbox.fetch });
  const error = await client.messages.send(text('Denied')).catch((e) => e);
  return { denied: error instanceof PermissionDeniedError };
});

// msw's interception of the runtime's own fetch works on Node; on Bun and Deno it does not catch
// the request (measured: Bun looks the sandbox's host up, Deno's fetch fails), so the test runs
// this step where WITH_MSW is set, and the README points those runtimes at `sandbox.fetch`.
if (process.env.WITH_MSW)
  await step('testing: msw handlers', async () => {
    const { setupServer } = await import('msw/node');
    const sandbox = createSandbox();
    const server = setupServer(...sandboxHandlers(sandbox));
    server.listen({ onUnhandledRequest: 'error' });
    try {
      const { baseUrl, keys } = sandbox.tenants.acme;
      const client = new MessagingClient({ baseUrl, apiKey: keys.full, fetch: (url, init) => fetch(url, init) });
      const log = await client.messages.send(text('Through msw'));
      return { id: log.id, stored: sandbox.messages('acme').length };
    } finally {
      server.close();
    }
  });

console.log(`RESULT ${JSON.stringify(steps)}`);
