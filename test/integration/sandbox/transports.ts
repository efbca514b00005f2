import { setupServer } from 'msw/node';
import { MessagingClient } from 'tenant-messaging';
import { createSandbox, type Sandbox, type SandboxOptions, startSandbox } from 'tenant-messaging/sandbox';
import { sandboxHandlers } from 'tenant-messaging/testing';

/** One way of reaching the sandbox, and a client factory bound to it. */
export interface Harness {
  sandbox: Sandbox;
  client(tenant?: string, role?: keyof Sandbox['tenants'][string]['keys'], maxRetries?: number): MessagingClient;
  close(): Promise<void>;
}

/**
 * The client factory of a harness: a client of `tenant` with the key of `role`, over `fetch` when
 * given (else undici to the sandbox's server); each client made is added to `made`, if given.
 */
function clientFactory(sandbox: Sandbox, fetch?: typeof globalThis.fetch, made?: MessagingClient[]): Harness['client'] {
  return (tenant = 'acme', role = 'full', maxRetries = 0) => {
    const t = sandbox.tenants[tenant];
    if (!t) throw new Error(tenant);
    const client = new MessagingClient({
      baseUrl: t.baseUrl,
      apiKey: t.keys[role],
      maxRetries,
      ...(fetch && { fetch }),
    });
    made?.push(client);
    return client;
  };
}

/** The three ways the sandbox is used: a real server, its in-process fetch, and msw. */
export const TRANSPORTS: Record<'server' | 'fetch' | 'msw', (options?: SandboxOptions) => Promise<Harness>> = {
  async server(options) {
    const sandbox = await startSandbox(options);
    const clients: MessagingClient[] = [];
    return {
      sandbox,
      client: clientFactory(sandbox, undefined, clients),
      async close() {
        await Promise.all(clients.map((c) => c.close()));
        await sandbox.close();
      },
    };
  },
  async fetch(options) {
    const sandbox = createSandbox(options);
    return {
      sandbox,
      client: clientFactory(sandbox, sandbox.fetch),
      async close() {},
    };
  },
  async msw(options) {
    const sandbox = createSandbox(options);
    const server = setupServer(...sandboxHandlers(sandbox));
    server.listen({ onUnhandledFrame: 'error' });
    return {
      sandbox,
      client: clientFactory(sandbox, globalThis.fetch),
      async close() {
        server.close();
      },
    };
  },
};

/** A tiny valid PNG (1x1), for media round trips (test/helpers/png.ts: the unit tier's files use it too). */
export { PNG } from '../../helpers/png.js';
