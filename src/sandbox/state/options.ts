import { SCOPES, type Scope } from '../../endpoints.js';
import type { LaneLimits } from '../limits/lane-limits.js';
import type { RateLimit } from '../limits/rate-limit.js';

/**
 * The API keys every sandbox tenant ships with, by role: one with every scope, one missing each
 * scope, one expired and one revoked, so every 401 and 403 of the specification can be reproduced.
 */
export const KEY_ROLES = ['full', 'noSend', 'noRead', 'noLookup', 'noUsage', 'expired', 'revoked'] as const;
/** `full`, `noSend`, `noRead`, `noLookup`, `noUsage`, `expired` or `revoked`. */
export type KeyRole = (typeof KEY_ROLES)[number];

/** A sender number as a tenant seed declares it. */
export interface SenderNumberSeed {
  /** The number's phone, e.g. `+15550001001`. */
  phone: string;
  /**
   * Its registration state. Only `active` numbers can send; any other state is refused with a 422.
   * @default 'active'
   */
  status?: string;
  /**
   * A label shown in `GET /sender-numbers`.
   * @default the phone
   */
  displayName?: string;
}

/**
 * One tenant of the sandbox.
 *
 * @example
 * ```ts
 * createSandbox({ tenants: [{ slug: 'initech', senderNumbers: [{ phone: '+15550009001' }] }] })
 * ```
 */
export interface TenantSeed<Slug extends string = string> {
  /** The path segment of the tenant's base URL (`<origin>/t/<slug>`), e.g. `acme`. */
  slug: Slug;
  /**
   * The tenant's display name.
   * @default the slug, capitalised
   */
  name?: string;
  /**
   * API key strings by role; roles left out get `<keyPrefix>_<slug>_<role in snake_case>`.
   * @default { full: 'tm_test_acme_full', noSend: 'tm_test_acme_no_send', ... }
   */
  keys?: Partial<Record<KeyRole, string>>;
  /**
   * The tenant's sender numbers; their ids are assigned in order across all tenants.
   * @default two active numbers and one in `pending_account_verification` (see README)
   */
  senderNumbers?: SenderNumberSeed[];
  /**
   * Messages the tenant may send per billing period; a send beyond it is refused with a 422.
   * @default 1000
   */
  messageLimit?: number;
  /**
   * The subscription's `status` in `GET /subscription`.
   * @default 'active'
   */
  subscriptionStatus?: string;
}

/** Delays of the delivery simulation, in ms after the send. */
export interface DeliveryDelays {
  /**
   * When a log turns `delivered`.
   * @default 300
   */
  deliveredAfterMs?: number;
  /**
   * When a log turns `read` (for recipients that read).
   * @default 900
   */
  readAfterMs?: number;
}

/**
 * Options of `createSandbox` and `startSandbox`.
 *
 * @example
 * ```ts
 * const sandbox = createSandbox({ seed: 42, delivery: { deliveredAfterMs: 50, readAfterMs: 100 } })
 * ```
 */
export interface SandboxOptions<Slug extends string = string> {
  /**
   * The tenants; each gets its own data, keys and base URL prefix. Their slugs become the keys of
   * `sandbox.tenants`, typed as written (`sandbox.tenants.initech` needs no `!`).
   * @default acme and globex (see `DEFAULT_TENANTS`)
   */
  tenants?: readonly TenantSeed<Slug>[];
  /**
   * Prefix of generated key strings.
   * @default 'tm_test'
   */
  keyPrefix?: string;
  /**
   * Delays of the `sent` -> `delivered` -> `read` simulation.
   * @default { deliveredAfterMs: 300, readAfterMs: 900 }
   */
  delivery?: DeliveryDelays;
  /**
   * Largest accepted media file, in bytes; a bigger one is a 422.
   * @default 16777216 (16 MiB)
   */
  maxMediaBytes?: number;
  /**
   * Seed of the random source used by fault ratios, so a flaky scenario replays exactly.
   * @default 1
   */
  seed?: number;
  /**
   * The clock, in ms since the epoch: inject one to drive the delivery simulation and rate windows.
   * `createSandbox()` reads `Date.now()` at each request, so a test runner's fake timers drive it
   * too; `startSandbox()` keeps the real clock (its requests come over sockets, which fake timers do not run).
   * @default Date.now (createSandbox: the global one at each call; startSandbox: the real one)
   */
  now?: () => number;
  /**
   * Origin used by `createSandbox` (in-process) for the tenants' base URLs. `startSandbox` uses its own.
   * @default 'https://sandbox.test' (https, so clients need no insecure-http opt-in; msw or the bound fetch answer it)
   */
  origin?: string;
  /**
   * Requests per minute per API key before a 429; null turns rate limiting off.
   * `rateLimit` takes precedence when both are given.
   * @default null
   */
  rateLimitPerMinute?: number | null;
  /**
   * Requests per API key per fixed window before a 429, as Laravel's `Limit::perSecond(n)` or
   * `Limit::perMinute(n)`; null turns rate limiting off.
   * @default null (off)
   * @example `createSandbox({ rateLimit: { perSecond: 100 } })`
   */
  rateLimit?: RateLimit | null;
  /**
   * Limits of `POST /messages` per sender number (`perSender: { perSecond }`, whole-second windows
   * as Laravel's `Limit::perSecond(n)->by($sender)`) and per (sender number, recipient) pair
   * (`perPair: { minInterval }`, ms), checked after the key-wide limit and after validation; a
   * send over one is answered 429 as the key-wide limit answers, with that lane's headers. Null
   * turns them off.
   * @default null (off)
   * @example `createSandbox({ laneLimits: { perSender: { perSecond: 10 }, perPair: { minInterval: 1_000 } } })`
   */
  laneLimits?: LaneLimits | null;
  /**
   * How many accepted requests `sandbox.requestLog` keeps (a ring: older ones are overwritten).
   * @default 100000
   */
  requestLogCapacity?: number;
  /**
   * Logs per page of `GET /messages`, as the application's `->paginate(n)`. The `per_page` query
   * parameter is ignored, as Laravel's paginator ignores it unless the application reads it.
   * @default 15
   */
  pageSize?: number;
}

/** The defaults, repeated as `@default` on each option. */
export const SANDBOX_DEFAULTS = Object.freeze({
  keyPrefix: 'tm_test',
  deliveredAfterMs: 300,
  readAfterMs: 900,
  maxMediaBytes: 16 * 1024 * 1024,
  seed: 1,
  origin: 'https://sandbox.test',
  messageLimit: 1000,
  perPage: 15,
  requestLogCapacity: 100_000,
});

/** The slugs of the tenants a sandbox starts with when `tenants` is not given. */
export type DefaultTenantSlug = 'acme' | 'globex';

/** The tenants a sandbox starts with when `tenants` is not given. */
export const DEFAULT_TENANTS: readonly TenantSeed<DefaultTenantSlug>[] = Object.freeze([
  {
    slug: 'acme',
    name: 'Acme Corp',
    senderNumbers: [
      { phone: '+15550001001', displayName: 'Acme Support' },
      { phone: '+15550001002', displayName: 'Acme Alerts' },
      { phone: '+15550001003', displayName: 'Acme Marketing', status: 'pending_account_verification' },
    ],
  },
  {
    slug: 'globex',
    name: 'Globex Corporation',
    senderNumbers: [
      { phone: '+15550002001', displayName: 'Globex Desk' },
      { phone: '+15550002002', displayName: 'Globex Night Line', status: 'pending_account_verification' },
    ],
  },
]);

/** The one scope each `noX` key role lacks. */
const MISSING_SCOPE: Readonly<Partial<Record<KeyRole, Scope>>> = {
  noSend: 'messages.send',
  noRead: 'messages.read',
  noLookup: 'contacts.lookup',
  noUsage: 'usage.read',
};

/** Scopes each key role carries: `full` has all, `noX` all but one, expired and revoked all. */
export function scopesOf(role: KeyRole): Scope[] {
  return SCOPES.filter((scope) => scope !== MISSING_SCOPE[role]);
}

/** `noSend` -> `no_send`: the snake_case role used in generated key strings. */
export function snakeRole(role: KeyRole): string {
  return role.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
