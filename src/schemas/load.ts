/**
 * The Zod schemas, loaded on first use. Zod costs about 45 ms to import, as much as a whole SDK
 * should: constructing a client needs none of it, so a cold start (a serverless function) does not
 * pay for it until the first call, and that call starts loading it while its request is in flight.
 */
let loading: Promise<typeof import('./validators.js')> | undefined;

export function loadSchemas(): Promise<typeof import('./validators.js')> {
  loading ??= import('./validators.js');
  return loading;
}
