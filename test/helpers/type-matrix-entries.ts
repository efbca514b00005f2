/**
 * What the type matrix (test/integration/consumer-types.test.ts) compiles: each public entry, the optional
 * peers it needs itself, and code that uses it as a user's would.
 */

/**
 * Each entry, the optional peers it needs itself (every other one is absent from its project),
 * and code that uses it. The code runs in `.mts`, `.cts` and `.ts` files: no top-level await.
 */
export const ENTRIES = [
  {
    entry: '.',
    peers: [],
    code: `import { MessagingClient, type MessageLog } from 'tenant-messaging';
export async function send(client: MessagingClient): Promise<MessageLog> {
  const log = await client.messages.send({ sender_phone: '+15550001001', to_phone: '+15550002002', type: 'text', content: 'Hi' });
  return client.waitForDelivery(log.id, { until: 'read' });
}
// @ts-expect-error text needs content
new MessagingClient({ baseUrl: 'https://a.example.com', apiKey: 'k' }).messages.send({ sender_phone: '+1', to_phone: '+2', type: 'text' });
`,
  },
  {
    entry: './sandbox',
    peers: [],
    code: `import { createSandbox, SANDBOX_PHONES, startSandbox } from 'tenant-messaging/sandbox';
export async function demo(): Promise<string> {
  const sandbox = await startSandbox();
  const custom = createSandbox({ tenants: [{ slug: 'initech' }] });
  const initech: string = custom.tenants.initech.baseUrl;
  const other: string | undefined = custom.tenants[String(initech.length)]?.baseUrl;
  await sandbox.close();
  return other ?? SANDBOX_PHONES.reads;
}
`,
  },
  {
    entry: './testing',
    peers: [],
    code: `import * as testing from 'tenant-messaging/testing';
import type { Sandbox } from 'tenant-messaging/sandbox';
export const handlers = (sandbox: Sandbox): testing.SandboxHandler[] => testing.sandboxHandlers(sandbox);
`,
  },
  {
    entry: './webhooks',
    peers: [],
    code: `import { verifyWebhook, type WebhookEvent } from 'tenant-messaging/webhooks';
export async function receive(request: Request, secret: string): Promise<WebhookEvent> {
  return verifyWebhook(await request.text(), request.headers, secret);
}
`,
  },
  { entry: './otel', peers: ['@opentelemetry/api'], code: `export * as otel from 'tenant-messaging/otel';\n` },
  { entry: './bullmq', peers: ['bullmq', 'ioredis'], code: `export * as bullmq from 'tenant-messaging/bullmq';\n` },
] as const;

/** The entries promised on Workers: type-checked with `types: []` and no `@types/node` at all. */
export const WORKER_ENTRIES = ['.', './webhooks'];

/** Every entry together with every peer, for the `@types/node` lines; msw's own types included. */
export const ALL_ENTRIES = `import * as main from 'tenant-messaging';
import * as bullmq from 'tenant-messaging/bullmq';
import * as otel from 'tenant-messaging/otel';
import { createSandbox } from 'tenant-messaging/sandbox';
import { sandboxHandlers } from 'tenant-messaging/testing';
import * as webhooks from 'tenant-messaging/webhooks';
import { setupServer } from 'msw/node';

export const entries = [main, bullmq, otel, webhooks];
export const server = setupServer(...sandboxHandlers(createSandbox()));
`;
