import { createRequire } from 'node:module';
import type * as OtelApi from '@opentelemetry/api';
import { MissingPeerError } from '../errors.js';

/** The `@opentelemetry/api` module. */
export type OtelApiModule = typeof OtelApi;

let api: OtelApiModule | undefined;

/**
 * Loads `@opentelemetry/api` when `instrument()` is first called, not when this entry is
 * imported: it is an optional peer dependency, so an application may import the entry
 * unconditionally and still run (and get a clear error only if it instruments) without it.
 *
 * Synchronously, so `instrument()` stays synchronous and can run before the first call. The
 * CommonJS build of the API may be loaded next to the application's ES module build: they share
 * one global registry (providers, context manager, context keys are `Symbol.for` keys), so spans
 * and context pass between them. It is resolved from this file, as a peer dependency must be.
 */
export function loadOtelApi(): OtelApiModule {
  if (api) return api;
  // The CommonJS build has `__filename`; the ES module build has `import.meta.url` (which the
  // CommonJS build empties, so it is read only when `__filename` is missing).
  const here = typeof __filename === 'string' ? __filename : import.meta.url;
  try {
    api = createRequire(here)('@opentelemetry/api') as OtelApiModule;
    return api;
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code !== 'MODULE_NOT_FOUND' && code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new MissingPeerError(
      'instrument() needs @opentelemetry/api, an optional peer dependency that is not installed: run `npm install @opentelemetry/api` (next to the OpenTelemetry SDK that exports your traces and metrics, e.g. @opentelemetry/sdk-node).',
      '@opentelemetry/api',
      'npm install @opentelemetry/api',
      error,
    );
  }
}
