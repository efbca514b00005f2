/**
 * The parts a client is built from, the connection pool, the rate gate and the poll scheduler,
 * and which of them a client made by `withOptions` shares with its parent.
 */
import type { Dispatcher } from 'undici';
import { DEFAULT_RETRY_POLICY } from './core/call/retry.js';
import type { PollScheduler } from './core/polling/poll-scheduler.js';
import { Lanes } from './core/rate/lanes.js';
import { RateGate } from './core/rate/rate-gate.js';
import { createDefaultTransport } from './core/transport/default-transport.js';
import { FetchTransport } from './core/transport/fetch-transport.js';
import type { Transport } from './core/transport/transport.js';
import type { ClientConfig } from './internal/options/client-config.js';
import { loadPhoneTools } from './internal/phones/phone.js';
import { runtimeClock } from './internal/waiting/clock.js';
import type { ClientOptions } from './types/options.js';

/** The stateful parts of a client: what its calls share, and what `withOptions` may hand on. */
export interface ClientParts {
  readonly transport: Transport;
  /** Shared by every waitForDelivery of the client; made on first use. */
  readonly scheduler: { current?: PollScheduler };
  /** Every request of the client passes it. */
  readonly rateGate: RateGate;
  /** Every send passes them first, when `rateLimit.perSender` or `perRecipient` is set. */
  readonly lanes: Lanes | undefined;
}

/** A client's parts, and whether the connection pool is its own (false: its parent's, from `withOptions`). */
export type OwnParts = ClientParts & { readonly ownsTransport: boolean };

/** What a client made by `withOptions` takes over from its parent: a part left undefined is made anew. */
type Inherited = { readonly transport: Transport } & {
  readonly [K in Exclude<keyof ClientParts, 'transport'>]: ClientParts[K] | undefined;
};

/**
 * The internal option under which `withOptions` hands a new client its inheritance. A symbol
 * that is never exported: callers cannot pass it, and option checks (own string keys) never see it.
 */
const INHERIT = Symbol('tenant-messaging.inherit');

/** Client options, with the inheritance `withOptions` may attach. */
export type ConstructorOptions = ClientOptions & { readonly [INHERIT]?: Inherited };

/**
 * The parts of a new client: its parent's where `withOptions` handed them over, new ones
 * otherwise. `ownsTransport` is false when the connection pool is the parent's.
 */
export function clientParts(options: unknown, config: ClientConfig): OwnParts {
  const inherited = inheritanceOf(options);
  const { options: checked, proxy, rateLimit } = config;
  return {
    ownsTransport: inherited === undefined,
    transport:
      inherited?.transport ??
      (checked.fetch
        ? new FetchTransport(checked.fetch)
        : // The option is typed by its shape (no undici types in the public declarations); it is an undici Dispatcher.
          createDefaultTransport(checked.dispatcher as Dispatcher | undefined, proxy)),
    scheduler: inherited?.scheduler ?? {},
    rateGate:
      inherited?.rateGate ??
      new RateGate({
        spacingMs: rateLimit.requestsPerSecond && 1000 / rateLimit.requestsPerSecond,
        adaptive: rateLimit.adaptive,
        maxPauseMs: DEFAULT_RETRY_POLICY.maxRetryAfterMs,
      }),
    lanes: inherited?.lanes ?? lanesOf(rateLimit),
  };
}

/**
 * The options of a client derived from one with `parts` and `options`, with `changed` applied.
 * The connection pool is shared unless `fetch`, `dispatcher` or `proxy` changes; the poll
 * scheduler unless the tenant (`baseUrl`, `apiKey`) or `polling` changes; the rate gate unless
 * the tenant or `rateLimit` changes.
 */
export function derivedOptions(
  options: ClientOptions,
  parts: ClientParts,
  changed: Record<string, unknown>,
): ConstructorOptions {
  const changes = (name: keyof ClientOptions) => name in changed;
  const tenantChanges = changes('baseUrl') || changes('apiKey');
  const inherited: Inherited | undefined =
    changes('fetch') || changes('dispatcher') || changes('proxy')
      ? undefined
      : {
          transport: parts.transport,
          scheduler: tenantChanges || changes('polling') ? undefined : parts.scheduler,
          rateGate: tenantChanges || changes('rateLimit') ? undefined : parts.rateGate,
          lanes: tenantChanges || changes('rateLimit') ? undefined : parts.lanes,
        };
  return { ...options, ...changed, ...(inherited ? { [INHERIT]: inherited } : {}) };
}

/** The lanes `rateLimit` asks for, if any. */
function lanesOf({ perSender, perRecipient }: ClientConfig['rateLimit']): Lanes | undefined {
  if (perSender === undefined && perRecipient === undefined) return undefined;
  // Loaded now, off the first send's path; a failed load fails the sends that need it, not this.
  if (perRecipient !== undefined) loadPhoneTools().catch(() => undefined);
  return new Lanes({ perSender, perRecipient }, runtimeClock);
}

/** What `withOptions` handed over, if anything; a caller's hostile object is left for the option checks. */
function inheritanceOf(options: unknown): Inherited | undefined {
  try {
    return (options as ConstructorOptions | null | undefined)?.[INHERIT];
  } catch {
    return undefined;
  }
}
