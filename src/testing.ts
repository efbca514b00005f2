/**
 * tenant-messaging/testing: test your own code against the sandbox with no network.
 * `createSandbox()` and its `fetch` need nothing else; `sandboxHandlers()` needs msw (an optional
 * peer dependency), which is loaded only when it is called, so this entry loads without msw.
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
 *
 * @packageDocumentation
 */
import type * as Msw from 'msw';
import { MessagingError } from './errors.js';
import { requirePeer } from './internal/peer-require.js';
import { dropped } from './sandbox/fault-responses.js';
import type { Sandbox } from './sandbox/sandbox.js';

export type { FaultKind, FaultRule } from './sandbox/faults.js';
export type { LaneLimits } from './sandbox/lane-limits.js';
export type { KeyRole, SandboxOptions } from './sandbox/options.js';
export { SANDBOX_PHONES } from './sandbox/phones.js';
export type { RateLimit } from './sandbox/rate-limit.js';
export type { RequestLog, RequestLogFilter } from './sandbox/request-log.js';
export { createSandbox, type Sandbox, type SandboxTenant } from './sandbox/sandbox.js';
export type { UploadRecord } from './sandbox/state.js';

/**
 * msw request handlers that answer every request to the sandbox's origin
 * (`https://sandbox.test` unless `createSandbox({ origin })` said otherwise) from the sandbox.
 * A dropped-connection fault becomes a network error (`HttpResponse.error()`).
 * Throws `MessagingError` saying how to install msw when it is not installed.
 *
 * @example
 * ```ts
 * const server = setupServer(...sandboxHandlers(sandbox))
 * const client = new MessagingClient({ baseUrl: sandbox.tenants.acme.baseUrl, apiKey: sandbox.tenants.acme.keys.full, fetch: globalThis.fetch })
 * ```
 */
export function sandboxHandlers(sandbox: Sandbox): Msw.HttpHandler[] {
  const { http, HttpResponse } = loadMsw();
  return [
    http.all(`${sandbox.origin}/*`, async ({ request }) => {
      const response = await sandbox.handle(request);
      return dropped(response) ? HttpResponse.error() : response;
    }),
  ];
}

let msw: typeof Msw | undefined;

/**
 * Loads msw synchronously, so `sandboxHandlers()` can stay synchronous (it is spread into
 * `setupServer(...)`), which an `import()` could not. msw 3 is ESM only: `require()` loads it
 * (Node >= 22.12 loads ES modules synchronously) into the same module cache as `import`, so the
 * handlers and the caller's `setupServer` share one msw. It is resolved from this file, as a
 * peer dependency must be.
 */
function loadMsw(): typeof Msw {
  if (msw) return msw;
  try {
    msw = requirePeer('msw') as typeof Msw;
    return msw;
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code !== 'MODULE_NOT_FOUND' && code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new MessagingError(
      'sandboxHandlers() needs msw, an optional peer dependency that is not installed: run `npm install --save-dev msw`, or use the sandbox without msw through `fetch: sandbox.fetch`.',
      { cause: error },
    );
  }
}
