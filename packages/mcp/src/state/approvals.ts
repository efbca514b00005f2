/**
 * The approvals `prepare_send` hands out and `send_message` redeems. The token is only a key: the
 * message itself (the checked, frozen copy of what was prepared) stays here, so a send can carry
 * nothing but the token, and nothing can change the message on its way. Tokens are 256 random bits;
 * one expires unused after `ttlMs`. Once used, an approval keeps what came of it (the sent log, a
 * decline, an unknown outcome), so that a second call answers the same and sends nothing.
 */
import { randomBytes } from 'node:crypto';
import type { MessageLog, SendTextParams, SentParams } from 'tenant-messaging';

/**
 * How long an approval stays usable unused: long enough for a person to read and answer, short
 * enough that a forgotten one does not go out hours later.
 *
 * @example
 * ```ts
 * new Approvals({ ttlMs: APPROVAL_TTL_MS })
 * ```
 */
export const APPROVAL_TTL_MS = 15 * 60_000;

/** What came of an approval so far. */
export type ApprovalState =
  /** Prepared, not used (a cancelled confirmation leaves it so). */
  | { readonly kind: 'ready' }
  /** Sent: this log; `reconciled` when found in the logs after an unknown outcome. */
  | { readonly kind: 'sent'; readonly log: MessageLog; readonly reconciled: boolean }
  /** The send may have gone out and no log was found yet: never sent again, only looked for. */
  | { readonly kind: 'unknown'; readonly params: SentParams; readonly since: Date; readonly cause: string }
  /** The person declined it: spent, nothing sent. */
  | { readonly kind: 'declined' };

/** One approval: its message and what came of it. */
export interface Approval {
  readonly token: string;
  /** The message as prepared and checked: what is sent, and all that is. */
  readonly params: Readonly<SendTextParams>;
  readonly expiresAt: number;
  state: ApprovalState;
  /** The redemption under way (confirmation, send, search): a concurrent call shares it. */
  inFlight: Promise<unknown> | undefined;
}

/** Why a token found no usable approval. */
export type Missing = { readonly missing: 'unknown' } | { readonly missing: 'expired'; readonly expiresAt: number };

/** Options of {@link Approvals}. */
export interface ApprovalsOptions {
  /**
   * How long an unused approval stays usable, in ms.
   * @default 900_000 (15 minutes)
   */
  readonly ttlMs?: number | undefined;
  /**
   * The clock.
   * @default Date.now
   */
  readonly now?: (() => number) | undefined;
  /**
   * Unused approvals held at once; past it, `prepare_send` is refused until some are used or expire.
   * @default 1000
   */
  readonly maxPending?: number | undefined;
  /**
   * Approvals remembered in all (used ones answer a repeated call); the oldest settled ones are
   * forgotten past it.
   * @default 10000
   */
  readonly maxKept?: number | undefined;
}

/** Raised by `issue` when too many approvals wait unused. */
export class TooManyApprovalsError extends Error {
  override readonly name = 'TooManyApprovalsError';
}

/**
 * The store of one server process (shared by every session of `--http`).
 *
 * @example
 * ```ts
 * const approvals = new Approvals()
 * const { token } = approvals.issue(params)
 * const found = approvals.find(token)
 * ```
 */
export class Approvals {
  readonly ttlMs: number;
  readonly #now: () => number;
  readonly #maxPending: number;
  readonly #maxKept: number;
  readonly #byToken = new Map<string, Approval>();

  constructor(options: ApprovalsOptions = {}) {
    this.ttlMs = options.ttlMs ?? APPROVAL_TTL_MS;
    this.#now = options.now ?? Date.now;
    this.#maxPending = options.maxPending ?? 1_000;
    this.#maxKept = options.maxKept ?? 10_000;
  }

  /** A new approval of `params` (a checked copy the caller no longer changes). */
  issue(params: SendTextParams): Approval {
    const now = this.#now();
    let pending = 0;
    for (const approval of this.#byToken.values()) if (this.#usable(approval, now)) pending++;
    if (pending >= this.#maxPending) {
      throw new TooManyApprovalsError(
        `${pending} prepared messages are waiting unused: send or let them expire (${Math.round(this.ttlMs / 60_000)} minutes) before preparing more`,
      );
    }
    const approval: Approval = {
      token: `tma_${randomBytes(32).toString('base64url')}`,
      params: Object.freeze({ ...params }),
      expiresAt: now + this.ttlMs,
      state: { kind: 'ready' },
      inFlight: undefined,
    };
    this.#byToken.set(approval.token, approval);
    this.#forgetOldest(now);
    return approval;
  }

  /**
   * The approval of `token`, if this process issued it and it is still usable or already used.
   * An unused one past its time is `expired`, once used it answers for as long as it is kept.
   */
  find(token: string): Approval | Missing {
    const approval = this.#byToken.get(token);
    if (approval === undefined) return { missing: 'unknown' };
    if (approval.state.kind === 'ready' && approval.inFlight === undefined && this.#now() >= approval.expiresAt) {
      return { missing: 'expired', expiresAt: approval.expiresAt };
    }
    return approval;
  }

  /** True while an approval can still be sent: unused, in time (or being redeemed). */
  #usable(approval: Approval, now: number): boolean {
    return approval.state.kind === 'ready' && (approval.inFlight !== undefined || now < approval.expiresAt);
  }

  /** Keeps the map bounded: the oldest that can no longer be sent (used or expired) are forgotten first. */
  #forgetOldest(now: number): void {
    if (this.#byToken.size <= this.#maxKept) return;
    for (const [token, approval] of this.#byToken) {
      if (this.#byToken.size <= this.#maxKept) return;
      if (approval.inFlight === undefined && !this.#usable(approval, now)) this.#byToken.delete(token);
    }
  }
}
