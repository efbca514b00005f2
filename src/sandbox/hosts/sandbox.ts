import { DELIVERY_STATUSES, type DeliveryStatus, type MessageLog } from '../../types/message-log.js';
import type { FetchLike } from '../../types/options.js';
import { createHandler } from '../api/app.js';
import { dropped } from '../faults/fault-responses.js';
import { FaultController } from '../faults/faults.js';
import { LaneLimiter, type LaneLimits } from '../limits/lane-limits.js';
import { type RateLimit, RateLimiter } from '../limits/rate-limit.js';
import { type DefaultTenantSlug, type KeyRole, SANDBOX_DEFAULTS, type SandboxOptions } from '../state/options.js';
import { RequestLog } from '../state/request-log.js';
import { type SandboxCounters, SandboxState, type StoredLog, type UploadRecord } from '../state/state.js';
import { keysByRole } from '../state/tenants.js';

/**
 * One tenant as a test or a demo needs it.
 *
 * @example
 * ```ts
 * const { baseUrl, keys } = sandbox.tenants.acme
 * const client = new MessagingClient({ baseUrl, apiKey: keys.full, fetch: sandbox.fetch })
 * ```
 */
export interface SandboxTenant {
  /** The tenant's slug, e.g. `acme`. */
  readonly slug: string;
  /** Its display name. */
  readonly name: string;
  /** Its base URL: `<origin>/t/<slug>`; the SDK appends `/api/v1`. */
  readonly baseUrl: string;
  /** Its API key strings by role: `full`, `noSend`, `noRead`, `noLookup`, `noUsage`, `expired`, `revoked`. */
  readonly keys: Readonly<Record<KeyRole, string>>;
  /** Its sender numbers. */
  readonly senderNumbers: readonly { readonly id: number; readonly phone: string; readonly status: string }[];
}

/**
 * The sandbox and its control API. `createSandbox` gives one in-process; `startSandbox` gives one
 * behind a real HTTP server (with `url` and `close()` added). `Slug` is the union of its tenants'
 * slugs, as `createSandbox` infers it: `'acme' | 'globex'` by default, or the slugs of the
 * `tenants` option as written. `Sandbox` alone is any sandbox, whose tenants are looked up by string.
 */
export interface Sandbox<Slug extends string = string> {
  /** The origin the tenants' base URLs use, e.g. `https://sandbox.test` or `http://127.0.0.1:54321`. */
  readonly origin: string;
  /**
   * The tenants by slug: each slug the sandbox was made with is a property (defined even under
   * `noUncheckedIndexedAccess`), and any string may be tried as an index.
   * @example `const { baseUrl, keys } = sandbox.tenants.acme`
   */
  readonly tenants: Readonly<Record<Slug, SandboxTenant> & Record<string, SandboxTenant>>;
  /**
   * The request handler over web-standard objects.
   * @example `const res = await sandbox.handle(new Request(`${sandbox.tenants.acme.baseUrl}/api/v1/me`))`
   */
  handle(request: Request): Promise<Response>;
  /**
   * A `fetch` bound to the sandbox, for `new MessagingClient({ fetch: sandbox.fetch })`: no network.
   * A dropped-connection fault rejects with `TypeError('fetch failed')`, as a real fetch would.
   */
  readonly fetch: FetchLike;
  /**
   * The tenant's stored logs as the API would return them now, oldest first.
   * @example `expect(sandbox.messages('acme')).toHaveLength(1)`
   */
  messages(tenant: string): MessageLog[];
  /**
   * Freezes a log's `delivery_status` at `status` (the simulation stops for it).
   * @example `sandbox.setDeliveryStatus('acme', log.id, 'read')`
   */
  setDeliveryStatus(tenant: string, logId: number, status: DeliveryStatus): void;
  /**
   * Deletes the log's underlying chat message: the log then reads `unknown`, still with 200.
   * @example `sandbox.deleteUnderlyingMessage('acme', log.id)`
   */
  deleteUnderlyingMessage(tenant: string, logId: number): void;
  /**
   * Sets requests per API key per fixed window before a 429: a number is per minute, or give
   * `{ perSecond: n }` / `{ perMinute: n }` (Laravel's `Limit::perSecond` / `Limit::perMinute`);
   * null turns the limit off. Every window is forgotten. A bad value throws a `ValidationError`.
   * @default null (off)
   * @example `sandbox.setRateLimit(2)`, `sandbox.setRateLimit({ perSecond: 100 })`
   */
  setRateLimit(limit: RateLimit | number | null): void;
  /**
   * Sets the limits of `POST /messages` per sender number (`perSender: { perSecond: n }`, Laravel's
   * whole-second windows) and per (sender number, recipient) pair (`perPair: { minInterval: ms }`,
   * one send per window of that many ms); null turns them off. They count only sends that passed
   * validation, after the key-wide limit; a send over one is a 429 with `Retry-After` and the
   * `X-RateLimit-*` headers of that lane. Every lane window is forgotten. A bad value (not an
   * integer >= 1, an unknown key) throws a `ValidationError`.
   * @default null (off)
   * @example `sandbox.setLaneLimits({ perSender: { perSecond: 10 }, perPair: { minInterval: 1_000 } })`
   */
  setLaneLimits(limits: LaneLimits | null): void;
  /**
   * Sets how many messages the tenant may send per period; a send beyond it is a 422.
   * @default 1000
   * @example `sandbox.setMessageLimit('acme', 0)`
   */
  setMessageLimit(tenant: string, limit: number): void;
  /** Media files received, oldest first. */
  readonly uploads: readonly UploadRecord[];
  /** Requests per route and sends stored. */
  readonly counters: Readonly<SandboxCounters>;
  /**
   * When (sandbox clock, ms) each request the rate limiter let through arrived, per tenant and
   * route, with the sender number and recipient of each stored send: the last `requestLogCapacity`
   * of them. Compute an achieved rate, per sender too, or a per-recipient gap from the service's side.
   * @example `sandbox.requestLog.maxInWindow(1000, { route: 'POST /messages', sender: '+15550001001' })`
   */
  readonly requestLog: RequestLog;
  /** Fault injection switches (all off by default). */
  readonly faults: FaultController;
  /**
   * Forgets logs, media, uploads, counters, the request log, faults and rate windows (the key's and
   * the lanes'); keeps tenants, keys, the rate limit and the lane limits.
   * @example `afterEach(() => sandbox.reset())`
   */
  reset(): void;
}

/**
 * Creates an in-process sandbox: no server, no socket. Use its `fetch` with the SDK, or mount
 * it in msw with `sandboxHandlers` from `tenant-messaging/testing`.
 *
 * @example
 * ```ts
 * const sandbox = createSandbox()
 * const { baseUrl, keys } = sandbox.tenants.acme
 * const client = new MessagingClient({ baseUrl, apiKey: keys.full, fetch: sandbox.fetch })
 * ```
 */
export function createSandbox<const Slug extends string = DefaultTenantSlug>(
  options: SandboxOptions<Slug> = {},
): Sandbox<Slug> {
  const origin = (options.origin ?? SANDBOX_DEFAULTS.origin).replace(/\/+$/, '');
  const seed = options.seed ?? SANDBOX_DEFAULTS.seed;
  const state = new SandboxState(options);
  const faults = new FaultController(seed);
  const rateLimiter = new RateLimiter(
    options.rateLimit !== undefined ? options.rateLimit : (options.rateLimitPerMinute ?? null),
    state.now,
  );
  const laneLimiter = new LaneLimiter(options.laneLimits ?? null);
  const requestLog = new RequestLog(options.requestLogCapacity ?? SANDBOX_DEFAULTS.requestLogCapacity);
  const handle = createHandler({ state, faults, rateLimiter, laneLimiter, requestLog });

  const tenants: Record<string, SandboxTenant> = {};
  for (const tenant of state.tenants.values()) {
    tenants[tenant.slug] = Object.freeze({
      slug: tenant.slug,
      name: tenant.name,
      baseUrl: `${origin}/t/${tenant.slug}`,
      keys: Object.freeze(keysByRole(tenant)),
      senderNumbers: tenant.senderNumbers.map(({ id, phone, status }) => ({ id, phone, status })),
    });
  }

  const findLog = (tenant: string, logId: number): StoredLog => {
    state.tenant(tenant);
    const log = state.findLog(tenant, logId);
    if (!log) throw new Error(`Tenant '${tenant}' has no message log ${logId}.`);
    return log;
  };

  return {
    origin,
    // Built from the seeds the options gave (or the defaults), so every slug of `Slug` is there.
    tenants: Object.freeze(tenants as Record<Slug, SandboxTenant> & Record<string, SandboxTenant>),
    handle,
    fetch: async (input, init) => {
      const request = new Request(input, init);
      const response = await handle(request);
      // A real fetch rejects once its signal aborts (a client timeout): so does this one.
      request.signal.throwIfAborted();
      if (dropped(response)) {
        const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
        throw new TypeError('fetch failed', { cause: reset });
      }
      return response;
    },
    messages: (tenant) => {
      state.tenant(tenant);
      return state.logsOf(tenant).map((log) => state.toMessageLog(log));
    },
    setDeliveryStatus: (tenant, logId, status) => {
      if (!(DELIVERY_STATUSES as readonly string[]).includes(status)) {
        throw new Error(`delivery_status must be one of ${DELIVERY_STATUSES.join(', ')}; got '${status}'.`);
      }
      findLog(tenant, logId).override = status;
    },
    deleteUnderlyingMessage: (tenant, logId) => {
      findLog(tenant, logId).messageDeleted = true;
    },
    setRateLimit: (limit) => rateLimiter.set(limit),
    setLaneLimits: (limits) => laneLimiter.set(limits),
    setMessageLimit: (tenant, limit) => {
      state.tenant(tenant).messageLimit = limit;
    },
    get uploads() {
      return state.uploads;
    },
    get counters() {
      return state.counters;
    },
    requestLog,
    faults,
    reset: () => {
      state.reset();
      requestLog.reset();
      faults.reset(seed);
      rateLimiter.reset();
      laneLimiter.reset();
    },
  };
}
