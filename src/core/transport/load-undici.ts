import type { Agent as AgentType, buildConnector as buildConnectorType, Dispatcher } from 'undici';
import { APIConnectionError } from '../../errors.js';

/** What the transport takes from undici: the whole module, or (on Node) only its Agent. */
export interface UndiciParts {
  readonly Agent: typeof AgentType;
  readonly buildConnector: typeof buildConnectorType;
  /** The proxy agents: only in the whole module, loaded when a `proxy` is configured. */
  readonly ProxyAgent?: typeof import('undici').ProxyAgent;
  readonly EnvHttpProxyAgent?: typeof import('undici').EnvHttpProxyAgent;
}

/**
 * The files of undici that hold its Agent and the connector it uses. undici's `index.js` also
 * loads its fetch, WebSocket, EventSource, cache stores and mocks, which the SDK never uses: on
 * Node, importing these two files instead is most of a cold start's first request (bench row 4b).
 * undici declares no `exports` map, so the paths are reachable; a version that moved them falls
 * back to the whole module (the check below), never to an error.
 */
const AGENT_FILES = ['undici/lib/dispatcher/agent.js', 'undici/lib/core/connect.js'] as const;

/** Bun and Deno resolve `undici` their own way (Bun to a built-in stand-in): they get the whole module. */
function isNode(): boolean {
  const globals = globalThis as { Bun?: unknown; Deno?: unknown };
  return globals.Bun === undefined && globals.Deno === undefined;
}

/** A CommonJS module as `import()` hands it over: its `module.exports` is the default export. */
const exported = (module: unknown): unknown =>
  typeof module === 'object' && module !== null && 'default' in module ? module.default : module;

/** undici's Agent alone, or undefined when this undici's files are not laid out as expected. */
async function loadAgentOnly(): Promise<UndiciParts | undefined> {
  try {
    // Specifiers in a variable: bundlers keep them as they are, and TypeScript does not look for
    // declarations undici does not ship for its internal files.
    const [agentFile, connectFile] = AGENT_FILES;
    const [agent, connect] = await Promise.all([import(agentFile), import(connectFile)]);
    const Agent = exported(agent) as typeof AgentType | undefined;
    const buildConnector = exported(connect) as typeof buildConnectorType | undefined;
    if (typeof buildConnector !== 'function' || !hasDispatcher({ Agent })) return undefined;
    return { Agent: Agent as typeof AgentType, buildConnector };
  } catch {
    return undefined;
  }
}

/** The whole of undici, or a connection error that says nothing left (the HTTP client could not even load). */
async function loadWhole(): Promise<UndiciParts> {
  try {
    return await import('undici');
  } catch (error) {
    throw new APIConnectionError(
      `Could not load undici, the HTTP client (${error instanceof Error ? error.message : 'unknown error'}): check that it is installed and that this Node version is supported (>= 22.19)`,
      { cause: error, neverSent: true },
    );
  }
}

/**
 * undici, loaded on the first request (a process that only constructs a client, or uses the
 * `fetch` option, never pays for it): on Node without a proxy, only its Agent; otherwise the
 * whole module.
 */
async function loadUndici(proxied: boolean): Promise<UndiciParts> {
  return (!proxied && isNode() && (await loadAgentOnly())) || loadWhole();
}

/** undici as loaded, and whether it can carry the SDK's exchanges (hasDispatcher). */
export interface LoadedUndici {
  readonly undici: UndiciParts;
  readonly dispatchable: boolean;
}

/** Loaded undici for clients with a proxy (true) and without (false); loads still under way. */
const loaded = new Map<boolean, LoadedUndici>();
const loading = new Map<boolean, Promise<LoadedUndici>>();

/**
 * undici for a client with or without a proxy: the loaded one itself once it is loaded (so a
 * request then waits for nothing), else the one load under way, shared by the calls that come
 * meanwhile. A failed load is tried again by the next call.
 */
export function undiciFor(proxied: boolean): LoadedUndici | Promise<LoadedUndici> {
  const ready = loaded.get(proxied);
  if (ready) return ready;
  let load = loading.get(proxied);
  if (!load) {
    load = loadUndici(proxied).then((undici) => {
      const entry = { undici, dispatchable: hasDispatcher(undici) };
      loaded.set(proxied, entry);
      return entry;
    });
    loading.set(proxied, load);
    const done = () => loading.delete(proxied);
    load.then(done, done);
  }
  return load;
}

/**
 * Whether this undici can carry the SDK's exchanges. Bun resolves `undici` to a built-in stand-in
 * whose Agent has neither `dispatch` nor `close`; the runtime's own `fetch` is used there instead.
 * Decided by what the Agent offers, not by the runtime's name, so a runtime that gains a real
 * dispatcher gets the undici path without a change here.
 */
function hasDispatcher({ Agent }: { readonly Agent?: unknown }): boolean {
  const agent = (Agent as { prototype?: Partial<Dispatcher> } | undefined)?.prototype;
  return typeof agent?.dispatch === 'function' && typeof agent.close === 'function';
}
