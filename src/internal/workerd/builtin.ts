/**
 * A Node.js built-in module, by the one way a module can ask for it without importing it:
 * `process.getBuiltinModule`, which Node.js (>= 22.3), Bun, Deno and Workers with `nodejs_compat`
 * offer. Undefined where the runtime has no such module (a Worker without the flag, a browser):
 * the Workers build then uses the stand-in its caller gives.
 *
 * @example
 * ```ts
 * const stream = nodeBuiltin<typeof import('node:stream')>('node:stream')
 * ```
 */
export function nodeBuiltin<T>(id: string): T | undefined {
  const process = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  try {
    return process?.getBuiltinModule?.(id) as T | undefined;
  } catch {
    return undefined;
  }
}
