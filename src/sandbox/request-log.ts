/** Which accepted requests a `RequestLog` query looks at. */
export interface RequestLogFilter {
  /**
   * Only this tenant's requests.
   * @default every tenant
   */
  readonly tenant?: string;
  /**
   * Only this route, by label (`POST /messages`).
   * @default every route
   */
  readonly route?: string;
}

/**
 * The timestamps (ms, from the sandbox clock) of the requests the rate limiter let through:
 * authenticated requests that were not answered 429 (when the limit is off, every authenticated
 * request). It keeps the most recent `capacity` entries in a ring, so memory stays bounded
 * however long a soak test runs.
 *
 * @example
 * ```ts
 * // the highest rate the service saw, over any sliding second, from its own clock
 * expect(sandbox.requestLog.maxInWindow(1000, { route: 'POST /messages' })).toBeLessThanOrEqual(100)
 * ```
 */
export class RequestLog {
  /** How many entries it keeps; older ones are overwritten. */
  readonly capacity: number;
  #at: Float64Array;
  #tenant: Uint32Array;
  #route: Uint32Array;
  /** Tenant slugs and route labels, interned: the ring stores their indexes. */
  #names: string[] = [];
  #index = new Map<string, number>();
  #total = 0;

  /** @param capacity entries kept (at least 1). */
  constructor(capacity: number) {
    this.capacity = Math.max(1, Math.floor(capacity));
    this.#at = new Float64Array(this.capacity);
    this.#tenant = new Uint32Array(this.capacity);
    this.#route = new Uint32Array(this.capacity);
  }

  /** Requests recorded since the start or the last reset, including those the ring has overwritten. */
  get total(): number {
    return this.#total;
  }

  /** Entries held now: at most `capacity`. */
  get size(): number {
    return Math.min(this.#total, this.capacity);
  }

  /**
   * Records one accepted request.
   * @internal called by the request handler
   */
  record(at: number, tenant: string, route: string): void {
    const slot = this.#total % this.capacity;
    this.#at[slot] = at;
    this.#tenant[slot] = this.#intern(tenant);
    this.#route[slot] = this.#intern(route);
    this.#total++;
  }

  /** Forgets every entry. */
  reset(): void {
    this.#total = 0;
  }

  /**
   * The timestamps held, oldest first, of the requests matching `filter`.
   * @example `sandbox.requestLog.acceptedAt({ tenant: 'acme', route: 'POST /messages' })`
   */
  acceptedAt(filter: RequestLogFilter = {}): number[] {
    const tenant = filter.tenant === undefined ? undefined : this.#index.get(filter.tenant);
    const route = filter.route === undefined ? undefined : this.#index.get(filter.route);
    if ((filter.tenant !== undefined && tenant === undefined) || (filter.route !== undefined && route === undefined)) {
      return [];
    }
    const out: number[] = [];
    const first = this.#total - this.size;
    for (let n = first; n < this.#total; n++) {
      const slot = n % this.capacity;
      if (tenant !== undefined && this.#tenant[slot] !== tenant) continue;
      if (route !== undefined && this.#route[slot] !== route) continue;
      out.push(this.#at[slot] as number);
    }
    return out;
  }

  /**
   * The most requests matching `filter` that fell within any window of `windowMs` (a sliding
   * window over the timestamps held): the achieved peak rate, measured by the service.
   * @default windowMs 1000
   * @example `sandbox.requestLog.maxInWindow(1000, { route: 'POST /messages' })`
   */
  maxInWindow(windowMs = 1000, filter: RequestLogFilter = {}): number {
    // Why sorted: concurrent requests may be recorded slightly out of clock order.
    const times = this.acceptedAt(filter).sort((a, b) => a - b);
    let best = 0;
    let start = 0;
    for (let end = 0; end < times.length; end++) {
      while ((times[end] as number) - (times[start] as number) >= windowMs) start++;
      best = Math.max(best, end - start + 1);
    }
    return best;
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
