/**
 * The sessions of `--http`, bounded without locking anyone out. A client that ends without a
 * DELETE (the MCP SDK's `client.close()` sends none) leaves its session behind; such sessions are
 * reclaimed two ways:
 * - at the cap, the least recently used session with no call in flight is closed to make room
 *   for a new client: the door never stays shut because of abandoned sessions;
 * - a session with nothing open (no call, no stream) and no request for `idleMs` is closed when
 *   the next request comes, so an abandoned one does not hold its memory for the process's life.
 * A live client keeps its GET stream open, so it is never idle; one whose session was reclaimed
 * gets 404 on its next request and initializes again, as the protocol says.
 */

/** Sessions open at once: past it, the least recently used idle one makes room. */
export const MAX_SESSIONS = 64;

/** A session with nothing open and no request for this long is closed. */
export const SESSION_IDLE_MS = 30 * 60_000;

/** One client session. */
export interface SessionEntry {
  /** Closes its MCP server session and transport (its open streams end). */
  close(): Promise<void>;
  /** Milliseconds since the epoch of its last request, or the end of its last response. */
  lastUsed: number;
  /** Responses still open: its calls (POST) and its stream (GET). */
  open: number;
  /** POST responses still open: calls in flight, whose results are still to be sent. */
  calls: number;
}

/** Options of {@link SessionTable}. */
export interface SessionTableOptions {
  /** @default 64 */
  readonly max?: number | undefined;
  /** @default 1_800_000 (30 minutes) */
  readonly idleMs?: number | undefined;
  /** @default Date.now */
  readonly now?: (() => number) | undefined;
  /** Told of each session reclaimed (for the log). */
  readonly onReclaim?: ((why: 'idle' | 'evicted', open: number) => void) | undefined;
}

/**
 * The open sessions of one server.
 *
 * @example
 * ```ts
 * const table = new SessionTable({ max: 64 })
 * if (!(await table.makeRoom())) reply(503)
 * ```
 */
export class SessionTable<E extends SessionEntry = SessionEntry> {
  readonly #byId = new Map<string, E>();
  readonly #max: number;
  readonly #idleMs: number;
  readonly #now: () => number;
  readonly #onReclaim: SessionTableOptions['onReclaim'];

  constructor(options: SessionTableOptions = {}) {
    this.#max = options.max ?? MAX_SESSIONS;
    this.#idleMs = options.idleMs ?? SESSION_IDLE_MS;
    this.#now = options.now ?? Date.now;
    this.#onReclaim = options.onReclaim;
  }

  get size(): number {
    return this.#byId.size;
  }

  /** A new entry, not yet in the table (its session id comes once it initialized). */
  entry(close: () => Promise<void>): SessionEntry {
    return { close, lastUsed: this.#now(), open: 0, calls: 0 };
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
   * Room for one more session: idle ones swept, then, at the cap, the least recently used one
   * with no call in flight closed. False only while every session has a call in flight.
   */
  async makeRoom(): Promise<boolean> {
    await this.sweep();
    if (this.#byId.size < this.#max) return true;
    let oldest: [string, E] | undefined;
    for (const pair of this.#byId)
      if (pair[1].calls === 0 && (!oldest || pair[1].lastUsed < oldest[1].lastUsed)) oldest = pair;
    if (!oldest) return false;
    await this.#reclaim(oldest[0], 'evicted');
    return true;
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
