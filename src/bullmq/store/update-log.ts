import type { MessagingUpdate } from '../types.js';

/** An update before it has an event id and a time. */
export type Unpublished = Omit<MessagingUpdate, 'eventId' | 'at'>;

/** How many updates the log keeps per queue (on Redis: events of the queue, BullMQ's own included). */
export const EVENTS_KEPT = 10_000;

/**
 * Where a queue's updates travel: its datastore, never a process's memory. Every worker
 * publishes, every reader sees every update, and a reader that restarts resumes after the last
 * `eventId` it handled, as long as the log still holds it.
 */
export interface UpdateLog {
  /** Publishes an update, stamped with the time (`at`). */
  publish(update: Unpublished): Promise<void>;
  /** The position to read after: `'now'` (fixed when called), `'start'`, or an `eventId`. */
  position(from: string | undefined): Promise<string>;
  /** The updates after `position`, until the signal aborts or the iteration is closed. */
  read(position: string, signal: AbortSignal | undefined): AsyncGenerator<MessagingUpdate>;
  close(): Promise<void>;
}

/** An update as published: with the time, which PostgreSQL's ids do not carry and a webhook's timestamp is. */
export function stamped(update: Unpublished): string {
  return JSON.stringify({ ...update, at: new Date().toISOString() });
}

/** An update read back, or undefined for anything that is not one (damaged, or not ours). */
export function parsed(text: string | undefined, eventId: string): MessagingUpdate | undefined {
  try {
    const value = JSON.parse(text ?? '') as Unpublished | null;
    if (typeof value !== 'object' || value === null || typeof value.id !== 'string') return undefined;
    return { ...value, eventId };
  } catch {
    return undefined;
  }
}
