/**
 * tenant-messaging/testing: what a test suite adds around the sandbox, and only that. The sandbox
 * itself (`createSandbox`, `startSandbox`, `SANDBOX_PHONES`, its options and types) is
 * `tenant-messaging/sandbox`; this entry holds `sandboxHandlers()`, which serves a sandbox through
 * msw. msw is an optional peer dependency, loaded only when `sandboxHandlers()` is called: this
 * entry loads, and its types compile, without msw.
 *
 * @example
 * ```ts
 * import { setupServer } from 'msw/node'
 * import { createSandbox } from 'tenant-messaging/sandbox'
 * import { sandboxHandlers } from 'tenant-messaging/testing'
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
// scripts/build-types.mjs puts a `@ts-ignore` over this import in the declarations: without msw
// installed, its types are then `any`, which SandboxHandler turns into MswNotInstalled.
import type * as Msw from 'msw';
import { MissingPeerError } from './errors.js';
import { requirePeer } from './internal/runtime/peer-require.js';
import { dropped } from './sandbox/faults/fault-responses.js';
import type { Sandbox } from './sandbox/hosts/sandbox.js';

/**
 * What {@link SandboxHandler} is in a project without msw: a type no value has, so that a call of
 * `sandboxHandlers()` that could only throw reads as wrong, and nothing in the declarations is `any`.
 *
 * @example
 * ```ts
 * // npm install --save-dev msw, and SandboxHandler is msw's HttpHandler
 * ```
 */
export interface MswNotInstalled {
  /** Never set: msw is not installed. */
  readonly 'install msw (npm install --save-dev msw) to use sandboxHandlers()': never;
}

/**
 * One msw request handler, as `setupServer(...)` and `worker.use(...)` take it: msw's
 * `HttpHandler` where msw is installed, else {@link MswNotInstalled}. Named through msw's own type
 * so that the handlers spread into msw with no cast, yet this entry's types need no msw.
 *
 * @example
 * ```ts
 * const handlers: SandboxHandler[] = sandboxHandlers(sandbox)
 * server.use(...handlers)
 * ```
 */
export type SandboxHandler = 0 extends 1 & Msw.HttpHandler ? MswNotInstalled : Msw.HttpHandler;

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
export function sandboxHandlers(sandbox: Sandbox): SandboxHandler[] {
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
    throw new MissingPeerError(
      'sandboxHandlers() needs msw, an optional peer dependency that is not installed: run `npm install --save-dev msw`, or use the sandbox without msw through `fetch: sandbox.fetch`.',
      'msw',
      'npm install --save-dev msw',
      error,
    );
  }
}
