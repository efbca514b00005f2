import { readFileSync } from 'node:fs';

/**
 * This package's version, from its own package.json (beside `src/` and `dist/` alike): released in
 * lockstep with the SDK, so it is also the version of `tenant-messaging` it was built with.
 *
 * @example
 * ```ts
 * process.stdout.write(`${VERSION}\n`) // 0.1.0
 * ```
 */
export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
