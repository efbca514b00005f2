import { PhoneTable } from './phone-table.js';
import { phoneKey } from './phones.js';

/**
 * Which accepted requests a `RequestLog` query looks at: those matching every field given.
 *
 * @example
 * ```ts
 * sandbox.requestLog.acceptedAt({ tenant: 'acme', route: 'POST /messages', sender: '+15550001001' })
 * ```
 */
export interface RequestLogFilter {
  /**
   * Only this tenant's requests.
   * @default every tenant
   * @example `{ tenant: 'acme' }`
   */
  readonly tenant?: string;
  /**
   * Only this route, by label (`POST /messages`).
   * @default every route
   * @example `{ route: 'GET /messages/{messageLog}' }`
   */
  readonly route?: string;
  /**
   * Only the sends the sandbox stored (`POST /messages` answered 201) from this sender number,
   * however the send named it (`sender_phone` or `sender_number_id`). Compared as `+` and its digits.
   * @default every request, sends or not
   * @example `{ sender: '+15550001001' }`
   */
  readonly sender?: string;
  /**
   * Only the sends the sandbox stored to this recipient (`to_phone`), from any sender. Compared as `+` and its
   * digits: `15551230001` and `+15551230001` are one recipient.
   * @default every request, sends or not
   * @example `{ recipient: '+15551230001' }`
   */
  readonly recipient?: string;
}

/** The sender number and recipient of an accepted send, each as `+` and its digits. */
export interface SendParties {
  readonly sender: string;
  readonly recipient: string;
}

/**
 * The entries allocated at first, doubled as they fill up to the capacity: a sandbox that sees a
 * few requests, as most tests' do, does not zero the 2.4 MB of a full ring.
 */
const FIRST_ALLOCATION = 1_024;

/**
 * The timestamps (ms, from the sandbox clock) of the requests the rate limiter let through:
 * authenticated requests that were not answered 429 (when the limit is off, every authenticated
 * request). A send the sandbox stored also records its sender number and recipient, so per-sender
 * rates and per-recipient gaps can be read; a send refused by a lane (`setLaneLimits`) is not
 * recorded. It keeps the most recent `capacity` entries in a ring, so memory stays bounded
 * however long a soak test runs.
 *
 * @example
 * ```ts
 * // the highest rate the service saw, over any sliding second, from its own clock
 * expect(sandbox.requestLog.maxInWindow(1000, { route: 'POST /messages' })).toBeLessThanOrEqual(100)
 * // one sender's busiest second, and the closest two sends to one person came
 * expect(sandbox.requestLog.maxInWindow(1000, { sender: '+15550001001' })).toBeLessThanOrEqual(10)
 * expect(sandbox.requestLog.minGap({ recipient: '+15551230001' })).toBeGreaterThanOrEqual(1000)
 * ```
 */
export class RequestLog {
  /**
   * How many entries it keeps; older ones are overwritten.
   * @default 100000 (`requestLogCapacity`)
   * @example `expect(sandbox.requestLog.capacity).toBe(100_000)`
   */
  readonly capacity: number;
  #at: Float64Array;
  #tenant: Uint32Array;
  #route: Uint32Array;
  /** The sender's and the recipient's index in `#phones` plus one; 0: not a stored send. */
  #sender: Uint32Array;
  #recipient: Uint32Array;
  /** Tenant slugs and route labels, interned: the ring stores their indexes (few, kept for good). */
  #names: string[] = [];
  #index = new Map<string, number>();
  /** Phones, interned with a count of the entries holding each: freed when none does, so bounded. */
  #phones = new PhoneTable();
  #total = 0;

  /** @param capacity entries kept (at least 1). */
  constructor(capacity: number) {
    this.capacity = Math.max(1, Math.floor(capacity));
    const first = Math.min(this.capacity, FIRST_ALLOCATION);
    this.#at = new Float64Array(first);
    this.#tenant = new Uint32Array(first);
    this.#route = new Uint32Array(first);
    this.#sender = new Uint32Array(first);
    this.#recipient = new Uint32Array(first);
  }

  /** Doubles the arrays, up to `capacity`: the entries so far are in order from slot 0 (no wrap yet). */
  #grow(): void {
    const length = Math.min(this.capacity, this.#at.length * 2);
    const grown = <T extends Float64Array | Uint32Array>(old: T, make: (length: number) => T): T => {
      const next = make(length);
      next.set(old);
      return next;
    };
    this.#at = grown(this.#at, (n) => new Float64Array(n));
    this.#tenant = grown(this.#tenant, (n) => new Uint32Array(n));
    this.#route = grown(this.#route, (n) => new Uint32Array(n));
    this.#sender = grown(this.#sender, (n) => new Uint32Array(n));
    this.#recipient = grown(this.#recipient, (n) => new Uint32Array(n));
  }

  /**
   * Requests recorded since the start or the last reset, including those the ring has overwritten.
   * @default 0
   * @example `const before = sandbox.requestLog.total`
   */
  get total(): number {
    return this.#total;
  }

  /**
   * Entries held now: at most `capacity`.
   * @default 0
   * @example `expect(sandbox.requestLog.size).toBeLessThanOrEqual(sandbox.requestLog.capacity)`
   */
  get size(): number {
    return Math.min(this.#total, this.capacity);
  }

  /**
   * Records one accepted request; `send` for a send the sandbox stored.
   * @internal called by the request handler
   */
  record(at: number, tenant: string, route: string, send?: SendParties): void {
    const slot = this.#total % this.capacity;
    if (slot >= this.#at.length) this.#grow();
    if (this.#total >= this.capacity) {
      this.#phones.release(this.#sender[slot] as number);
      this.#phones.release(this.#recipient[slot] as number);
    }
    this.#at[slot] = at;
    this.#tenant[slot] = this.#intern(tenant);
    this.#route[slot] = this.#intern(route);
    this.#sender[slot] = send ? this.#phones.take(send.sender) : 0;
    this.#recipient[slot] = send ? this.#phones.take(send.recipient) : 0;
    this.#total++;
  }

  /**
   * Forgets every entry.
   * @example `afterEach(() => sandbox.requestLog.reset())`
   */
  reset(): void {
    this.#total = 0;
    this.#phones = new PhoneTable();
  }

  /**
   * The timestamps held, oldest first, of the requests matching `filter`.
   * @default filter {} (every request held)
   * @example `sandbox.requestLog.acceptedAt({ tenant: 'acme', route: 'POST /messages' })`
   */
  acceptedAt(filter: RequestLogFilter = {}): number[] {
    const out: number[] = [];
    this.#each(filter, (slot) => out.push(this.#at[slot] as number));
    // Why sorted: concurrent requests may be recorded slightly out of clock order.
    return out.sort((a, b) => a - b);
  }

  /**
   * The most requests matching `filter` that fell within any window of `windowMs` (a sliding
   * window over the timestamps held): the achieved peak rate, measured by the service.
   * @default windowMs 1000; filter {} (every request held)
   * @example `sandbox.requestLog.maxInWindow(1000, { route: 'POST /messages', sender: '+15550001001' })`
   */
  maxInWindow(windowMs = 1000, filter: RequestLogFilter = {}): number {
    const times = this.acceptedAt(filter);
    let best = 0;
    let start = 0;
    for (let end = 0; end < times.length; end++) {
      while ((times[end] as number) - (times[start] as number) >= windowMs) start++;
      best = Math.max(best, end - start + 1);
    }
    return best;
  }

  /**
   * The smallest gap, in ms, between two consecutive requests held that match `filter`; Infinity
   * when fewer than two match. With `{ recipient }`, the closest two sends to one person came, from
   * any sender; add `sender` for one (sender, recipient) pair.
   * @default filter {} (every request held)
   * @example `expect(sandbox.requestLog.minGap({ recipient: '+15551230001' })).toBeGreaterThanOrEqual(1000)`
   */
  minGap(filter: RequestLogFilter = {}): number {
    const times = this.acceptedAt(filter);
    let best = Number.POSITIVE_INFINITY;
    for (let i = 1; i < times.length; i++) best = Math.min(best, (times[i] as number) - (times[i - 1] as number));
    return best;
  }

  /**
   * The distinct sender numbers of the stored sends held that match `filter`, as `+` and their
   * digits, in the order they first appear.
   * @default filter {} (every send held)
   * @example `expect(sandbox.requestLog.senders({ tenant: 'acme' })).toEqual(['+15550001001', '+15550001002'])`
   */
  senders(filter: RequestLogFilter = {}): string[] {
    return this.#distinct(this.#sender, filter);
  }

  /**
   * The distinct recipients of the stored sends held that match `filter`, as `+` and their
   * digits, in the order they first appear.
   * @default filter {} (every send held)
   * @example `expect(sandbox.requestLog.recipients({ sender: '+15550001001' })).toHaveLength(3)`
   */
  recipients(filter: RequestLogFilter = {}): string[] {
    return this.#distinct(this.#recipient, filter);
  }

  #distinct(column: Uint32Array, filter: RequestLogFilter): string[] {
    const seen = new Set<string>();
    this.#each(filter, (slot) => {
      const phone = this.#phones.name(column[slot] as number);
      if (phone !== undefined) seen.add(phone);
    });
    return [...seen];
  }

  /** Calls `visit` with the slot of each entry held that matches `filter`, oldest recorded first. */
  #each(filter: RequestLogFilter, visit: (slot: number) => void): void {
    const tenant = filter.tenant === undefined ? undefined : this.#index.get(filter.tenant);
    const route = filter.route === undefined ? undefined : this.#index.get(filter.route);
    const sender = filter.sender === undefined ? undefined : this.#phones.find(phoneKey(filter.sender));
    const recipient = filter.recipient === undefined ? undefined : this.#phones.find(phoneKey(filter.recipient));
    // A name never recorded matches nothing.
    if (
      (filter.tenant !== undefined && tenant === undefined) ||
      (filter.route !== undefined && route === undefined) ||
      (filter.sender !== undefined && sender === undefined) ||
      (filter.recipient !== undefined && recipient === undefined)
    ) {
      return;
    }
    for (let n = this.#total - this.size; n < this.#total; n++) {
      const slot = n % this.capacity;
      if (tenant !== undefined && this.#tenant[slot] !== tenant) continue;
      if (route !== undefined && this.#route[slot] !== route) continue;
      if (sender !== undefined && this.#sender[slot] !== sender) continue;
      if (recipient !== undefined && this.#recipient[slot] !== recipient) continue;
      visit(slot);
    }
  }

  #intern(name: string): number {
    let index = this.#index.get(name);
    if (index === undefined) {
      index = this.#names.length;
      this.#names.push(name);
      this.#index.set(name, index);
    }
    return index;
  }
}
