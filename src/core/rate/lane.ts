/**
 * One lane of core/rate/lanes.ts: its places and when they end, and what a send waiting in it is.
 * Pure functions over one lane, apart from the scheduler that moves sends between lanes.
 */
import { Fifo, type FifoNode } from '../../internal/waiting/fifo.js';

/** The checked lane options: each lane kind, or undefined when off. */
export interface LaneSettings {
  /** Sends per sliding second per sender. */
  readonly perSender: number | undefined;
  /** Ms between two sends to one recipient. */
  readonly perRecipient: number | undefined;
}

/** Which lanes a send passes: its sender's and its recipient's (either may be off). */
export interface LaneKeys {
  readonly sender: string | undefined;
  readonly recipient: string | undefined;
}

/** The places one admitted send holds, until its answer (`settle`) or until it gives up (`release`). */
export interface LaneTicket {
  /** The send's answer came (or its attempt ended without one): each place ends a window from now. */
  settle(): void;
  /** The send never went out: its places end now, for the next in line. */
  release(): void;
}

/** A lane waiting for room: its next wake is kept so that the heap holds one entry per wake. */
export interface Lane {
  readonly key: string;
  readonly limit: number;
  readonly windowMs: number;
  /** When each place ends: `Infinity` while its send is open. Unordered; at most `limit`. */
  readonly ends: number[];
  readonly waiters: Fifo<Waiter>;
  wakeAt: number;
  /** Waiters whose route still leads through this lane: a lane they will reach is never swept. */
  ahead: number;
}

export interface Waiter extends FifoNode<Waiter> {
  /** The lanes still to pass, in order: the recipient's first (see `Lanes`). */
  readonly route: Lane[];
  /** The lanes passed so far: a place is held in each. */
  readonly held: Lane[];
  resolve: (ticket: LaneTicket) => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/**
 * A sender's lane for `requestsPerSecond`: that many places a second, a whole number of them (2.5
 * is taken as 2: a sliding second never holds half a send); below one, one place for `1 / rate`
 * seconds (0.5: one send per sliding 2 s).
 */
export function senderLane(requestsPerSecond: number): { readonly limit: number; readonly windowMs: number } {
  return requestsPerSecond >= 1
    ? { limit: Math.floor(requestsPerSecond), windowMs: 1000 }
    : { limit: 1, windowMs: Math.ceil(1000 / requestsPerSecond) };
}

/** A new, empty lane. */
export function newLane(key: string, limit: number, windowMs: number): Lane {
  return { key, limit, windowMs, ends: [], waiters: new Fifo<Waiter>(), wakeAt: Number.POSITIVE_INFINITY, ahead: 0 };
}

/** Drops the places that ended; true when one more fits (and, if `fresh`, nobody waits ahead). */
export function hasRoom(lane: Lane, now: number, fresh: boolean): boolean {
  if (fresh && lane.waiters.head !== undefined) return false;
  const { ends } = lane;
  for (let i = ends.length - 1; i >= 0; i--) {
    if ((ends[i] as number) <= now) {
      ends[i] = ends[ends.length - 1] as number;
      ends.pop();
    }
  }
  return ends.length < lane.limit;
}

/** Takes a place, open until its send settles. */
export function takePlace(lane: Lane): void {
  lane.ends.push(Number.POSITIVE_INFINITY);
}

/**
 * Ends one open place: a window from `now` when its send went out, at once when it did not. False
 * when the lane has no open place (the ticket was settled already).
 */
export function endPlace(lane: Lane, now: number, sent: boolean): boolean {
  // Any open place will do: places of one lane are interchangeable, only their ends count.
  const open = lane.ends.indexOf(Number.POSITIVE_INFINITY);
  if (open === -1) return false;
  if (sent) lane.ends[open] = now + lane.windowMs;
  else {
    lane.ends[open] = lane.ends[lane.ends.length - 1] as number;
    lane.ends.pop();
  }
  return true;
}

/** When `lane` next has room: now, the earliest place end, or never until an open send settles. */
export function nextRoom(lane: Lane, now: number): number {
  if (lane.ends.length < lane.limit) return now;
  let at = Number.POSITIVE_INFINITY;
  for (const end of lane.ends) if (end < at) at = end;
  return Math.max(now, at);
}
