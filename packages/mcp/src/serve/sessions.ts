/**
 * The sessions of `--http`, bounded without locking anyone out. A client that ends without a
 * DELETE (the MCP SDK's `client.close()` sends none) leaves its session behind; such sessions are
 * reclaimed two ways:
 * - at the cap, the least recently used session that finished initializing, has nothing open (no
 *   call in flight, no stream) and no request for `recentMs` is closed to make room for a new
 *   client: the door never stays shut for long because of abandoned sessions, and a session
 *   still initializing (between `initialize` and `initialized`, however long that takes) or in
 *   use is never the one closed: while every session is that, a new client gets 503 with the
 *   time until one may make room (`Retry-After`);
 * - a session with nothing open (no call, no stream) and no request for `idleMs` is closed when
 *   the next request comes, so an abandoned one does not hold its memory for the process's life.
 * A live client keeps its GET stream open, so it is never idle nor evicted; one whose session
 * was reclaimed gets 404 on its next request and initializes again, as the protocol says.
 */

/**
 * Sessions open at once: past it, the least recently used idle one makes room.
 *
 * @default 64
 * @example
 * ```ts
 * new SessionTable({ max: MAX_SESSIONS })
 * ```
 */
export const MAX_SESSIONS = 64;

/**
 * A session with nothing open and no request for this long is closed.
 *
 * @default 1_800_000 (30 minutes)
 * @example
 * ```ts
 * new SessionTable({ idleMs: SESSION_IDLE_MS })
 * ```
 */
export const SESSION_IDLE_MS = 30 * 60_000;

/**
 * One client session.
 *
 * @example
 * ```ts
 * const entry: SessionEntry = table.entry(() => server.close())
 * ```
 */
export interface SessionEntry {
  /** Closes its MCP server session and transport (its open streams end). */
  close(): Promise<void>;
  /** Milliseconds since the epoch of its last request, or the end of its last response. */
  lastUsed: number;
  /** Responses still open: its calls (POST) and its stream (GET). */
  open: number;
  /** POST responses still open: calls in flight, whose results are still to be sent. */
  calls: number;
  /**
   * Whether its client sent `notifications/initialized`: until then the client may be between its
   * `initialize` answer and its next request, and its session is never evicted (only idle expiry
   * closes it).
   */
  initialized: boolean;
}

/**
 * A session with a request this recent is never evicted to make room: a client that just
 * initialized (its `initialized` notification still on its way) or that is working.
 *
 * @default 60_000 (1 minute)
 * @example
 * ```ts
 * new SessionTable({ recentMs: SESSION_RECENT_MS })
 * ```
 */
export const SESSION_RECENT_MS = 60_000;

/**
 * What `reserve()` answers: a slot (release it once the session is in the table, or its
 * initialize ended without one), or how long until a session may make room.
 */
export type Reservation = { readonly release: () => void } | { readonly retryAfterMs: number };

/** Options of {@link SessionTable}. */
export interface SessionTableOptions {
  /** @default 64 */
  readonly max?: number | undefined;
  /** @default 1_800_000 (30 minutes) */
  readonly idleMs?: number | undefined;
  /** @default 60_000 (1 minute) */
  readonly recentMs?: number | undefined;
  /** @default Date.now */
  readonly now?: (() => number) | undefined;
  /**
   * Told of each session reclaimed (for the log).
   *
   * @default undefined (not told)
   * @example
   * ```ts
   * new SessionTable({ onReclaim: (why, open) => log.debug?.(`session closed: ${why}`, { open }) })
   * ```
   */
  readonly onReclaim?: ((why: 'idle' | 'evicted', open: number) => void) | undefined;
}

/**
 * The open sessions of one server.
 *
 * @example
 * ```ts
 * const table = new SessionTable({ max: 64 })
 * const reservation = await table.reserve()
 * if ('retryAfterMs' in reservation) reply(503)
 * ```
 */
export class SessionTable<E extends SessionEntry = SessionEntry> {
  readonly #byId = new Map<string, E>();
  readonly #max: number;
  readonly #idleMs: number;
  readonly #recentMs: number;
  readonly #now: () => number;
  readonly #onReclaim: SessionTableOptions['onReclaim'];
  /** Slots reserved for sessions still initializing. */
  #pending = 0;

  constructor(options: SessionTableOptions = {}) {
    this.#max = options.max ?? MAX_SESSIONS;
    this.#idleMs = options.idleMs ?? SESSION_IDLE_MS;
    this.#recentMs = options.recentMs ?? SESSION_RECENT_MS;
    this.#now = options.now ?? Date.now;
    this.#onReclaim = options.onReclaim;
  }

  get size(): number {
    return this.#byId.size;
  }

  /** A new entry, not yet in the table (its session id comes once it initialized). */
  entry(close: () => Promise<void>): SessionEntry {
    return { close, lastUsed: this.#now(), open: 0, calls: 0, initialized: false };
  }

  add(id: string, entry: E): void {
    this.#byId.set(id, entry);
  }

  /** The session of `id`, marked as used now; undefined for one never opened, closed or reclaimed. */
  use(id: string): E | undefined {
    const entry = this.#byId.get(id);
    if (entry) entry.lastUsed = this.#now();
    return entry;
  }

  /** The session of `id` as it is, not marked as used (for a look that is not a request). */
  peek(id: string): E | undefined {
    return this.#byId.get(id);
  }

  delete(id: string): void {
    this.#byId.delete(id);
  }

  /**
   * Counts a response of `entry` as open until `closed` fires: a call (POST) or its stream (GET).
   *
   * @example
   * ```ts
   * table.track(entry, req.method === 'POST', (done) => res.once('close', done))
   * ```
   */
  track(entry: SessionEntry, call: boolean, closed: (done: () => void) => void): void {
    entry.open++;
    if (call) entry.calls++;
    closed(() => {
      entry.open--;
      if (call) entry.calls--;
      entry.lastUsed = this.#now();
    });
  }

  /** Closes the sessions idle for `idleMs`. */
  async sweep(): Promise<void> {
    const now = this.#now();
    const idle = [...this.#byId].filter(([, entry]) => entry.open === 0 && now - entry.lastUsed >= this.#idleMs);
    await Promise.allSettled(idle.map(([id]) => this.#reclaim(id, 'idle')));
  }

  /**
   * A slot for one more session, held from now until its release is called (once the session is
   * in the table, or its initialize ended without one): idle sessions swept, then, at the cap,
   * the least recently used one that may make room (#evictableIn) closed. Held slots count against
   * the cap, so initializes at once never open more than `max`. While no session may be closed,
   * the answer is how long until one may (at least a second).
   *
   * @example
   * ```ts
   * const reservation = await table.reserve()
   * if ('retryAfterMs' in reservation) reply(503)
   * ```
   */
  async reserve(): Promise<Reservation> {
    await this.sweep();
    // From here to the slot's count, nothing awaits: another initialize cannot take the same room.
    let closing: Promise<void> | undefined;
    if (this.#byId.size + this.#pending >= this.#max) {
      const now = this.#now();
      let oldest: [string, E] | undefined;
      let soonest = Number.POSITIVE_INFINITY;
      for (const pair of this.#byId) {
        const wait = this.#evictableIn(pair[1], now);
        if (wait > 0) soonest = Math.min(soonest, wait);
        else if (!oldest || pair[1].lastUsed < oldest[1].lastUsed) oldest = pair;
      }
      // Within recentMs at most (a session may finish initializing, or its stream end, sooner); a
      // second when the room is held by initializes under way.
      const wait = Number.isFinite(soonest) ? Math.min(soonest, this.#recentMs) : 1_000;
      if (!oldest) return { retryAfterMs: Math.max(1_000, wait) };
      closing = this.#reclaim(oldest[0], 'evicted');
    }
    this.#pending++;
    let held = true;
    await closing;
    return {
      release: () => {
        if (held) this.#pending--;
        held = false;
      },
    };
  }

  /**
   * In how many ms `entry` may make room: 0 when it may now (initialized, nothing open, no
   * request for `recentMs`); a second while a call is in flight (calls are short); `recentMs`
   * while its stream is open, and idle expiry for one that never finished initializing (no one
   * can say when its client ends it: the 503 tells a new client to look again within a minute).
   */
  #evictableIn(entry: SessionEntry, now: number): number {
    if (entry.calls > 0) return 1_000;
    if (entry.open > 0) return this.#recentMs;
    if (!entry.initialized) return Math.max(1, entry.lastUsed + this.#idleMs - now);
    return Math.max(0, entry.lastUsed + this.#recentMs - now);
  }

  /** Calls in flight in every session. */
  callsInFlight(): number {
    let calls = 0;
    for (const entry of this.#byId.values()) calls += entry.calls;
    return calls;
  }

  /** Closes every session. */
  async closeAll(): Promise<void> {
    const all = [...this.#byId.values()];
    this.#byId.clear();
    await Promise.allSettled(all.map((entry) => entry.close()));
  }

  async #reclaim(id: string, why: 'idle' | 'evicted'): Promise<void> {
    const entry = this.#byId.get(id);
    if (!entry) return;
    this.#byId.delete(id);
    this.#onReclaim?.(why, entry.open);
    await entry.close();
  }
}
