/** What the runtime globals say about themselves, where they exist. */
interface RuntimeGlobals {
  readonly Bun?: { readonly version?: unknown };
  readonly Deno?: { readonly version?: { readonly deno?: unknown } };
  readonly navigator?: { readonly userAgent?: unknown };
  readonly process?: { readonly versions?: { readonly node?: unknown } };
}

/**
 * The runtime and its version for the User-Agent, so the service's logs tell them apart:
 * `bun/1.4.5`, `deno/2.9.6`, `workerd`, `node/24.11.0`. Bun, Deno and Workers report a Node
 * version too (their Node compatibility), so they are asked first.
 */
export function runtimeTag(globals: RuntimeGlobals = globalThis as RuntimeGlobals): string {
  const bun = globals.Bun?.version;
  if (typeof bun === 'string') return `bun/${bun}`;
  const deno = globals.Deno?.version?.deno;
  if (typeof deno === 'string') return `deno/${deno}`;
  if (globals.navigator?.userAgent === 'Cloudflare-Workers') return 'workerd';
  const node = globals.process?.versions?.node;
  return `node/${typeof node === 'string' ? node : 'unknown'}`;
}
