/**
 * tenant-messaging/testing: test your own code against the sandbox with no network.
 * This is the only module that imports msw (an optional peer dependency).
 *
 * @example
 * ```ts
 * import { setupServer } from 'msw/node'
 * import { createSandbox, sandboxHandlers } from 'tenant-messaging/testing'
 *
 * const sandbox = createSandbox()
 * const server = setupServer(...sandboxHandlers(sandbox))
 * beforeAll(() => server.listen())
 * afterEach(() => sandbox.reset())
 * afterAll(() => server.close())
 * ```
 */
import { type HttpHandler, HttpResponse, http } from 'msw';
import { dropped } from './sandbox/fault-responses.js';
import type { Sandbox } from './sandbox/sandbox.js';

export type { FaultKind, FaultRule } from './sandbox/faults.js';
export type { KeyRole, SandboxOptions } from './sandbox/options.js';
export { SANDBOX_PHONES } from './sandbox/phones.js';
export { createSandbox, type Sandbox, type SandboxTenant } from './sandbox/sandbox.js';
export type { UploadRecord } from './sandbox/state.js';

/**
 * msw request handlers that answer every request to the sandbox's origin
 * (`https://sandbox.test` unless `createSandbox({ origin })` said otherwise) from the sandbox.
 * A dropped-connection fault becomes a network error (`HttpResponse.error()`).
 *
 * @example
 * ```ts
 * const server = setupServer(...sandboxHandlers(sandbox))
 * const client = new MessagingClient({ baseUrl: sandbox.tenants.acme.baseUrl, apiKey: sandbox.tenants.acme.keys.full, fetch: globalThis.fetch })
 * ```
 */
export function sandboxHandlers(sandbox: Sandbox): HttpHandler[] {
  return [
    http.all(`${sandbox.origin}/*`, async ({ request }) => {
      const response = await sandbox.handle(request);
      return dropped(response) ? HttpResponse.error() : response;
    }),
  ];
}
