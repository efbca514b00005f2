/**
 * A simulated `GET /messages` for the walk's tests: logs stored one at a time on a clock, listed
 * newest first (or oldest first) in pages, with Laravel's counters, only `last_page`, or none.
 */
import type { MessageLog } from 'tenant-messaging';
import type { WalkPage } from '../../../src/core/bulk/reconcile-walk.js';

export const SENDER_ID = 7;
export const RECIPIENT = '+15550002002';
export const PARAMS = { sender_number_id: SENDER_ID, to_phone: RECIPIENT, type: 'text' as const, content: 'the one' };

/** What the service tells about its pages: Laravel's resource paginator, only `last_page`, or nothing. */
export type Counters = 'laravel' | 'last-page' | 'none';

/** What a stored log is, relative to the send being looked for. */
export type Kind =
  | 'target' // the send: everything matches
  | 'other' // another message
  | 'other-recipient' // the same words to someone else
  | 'other-sender' // the same words from another number
  | 'other-type' // the same words as a document caption
  | 'unechoed'; // the same words, recipient not echoed (a candidate, never certain)

export class LogService {
  readonly logs: MessageLog[] = [];
  /** Wall-clock ms; every store moves it on by `gapMs`. */
  now = 1_700_000_000_000;

  constructor(
    readonly perPage: number,
    readonly counters: Counters,
    readonly gapMs = 20,
    readonly order: 'newest-first' | 'oldest-first' = 'newest-first',
  ) {}

  /** Stores one log at the next tick of the clock; `timeless` stores it without `sent_at`. */
  store(kind: Kind, timeless = false): MessageLog {
    this.now += this.gapMs;
    const log = {
      id: this.logs.length + 1,
      sender_number_id: kind === 'other-sender' ? SENDER_ID + 1 : SENDER_ID,
      recipient_user_id: null,
      conversation_id: null,
      message_id: null,
      message_type: kind === 'other-type' ? 'document' : 'text',
      content: kind === 'other' ? `another ${this.logs.length}` : PARAMS.content,
      status: 'sent',
      delivery_status: 'sent',
      request_payload: kind === 'unechoed' ? {} : { to_phone: kind === 'other-recipient' ? '+15550009999' : RECIPIENT },
      response_payload: { conversation_id: 1, message_id: 1, media_url: null },
      sent_at: timeless ? null : new Date(this.now).toISOString(),
    } as MessageLog;
    this.logs.push(log);
    return log;
  }

  get lastPage(): number {
    return Math.max(1, Math.ceil(this.logs.length / this.perPage));
  }

  /** Page `n` as the service answers it now; `answering` overrides the page it says it is. */
  page(n: number, answering = n): WalkPage {
    const ordered = this.order === 'newest-first' ? [...this.logs].reverse() : this.logs;
    const data = ordered.slice((n - 1) * this.perPage, n * this.perPage);
    const last = this.lastPage;
    const meta =
      this.counters === 'laravel'
        ? { current_page: answering, per_page: this.perPage, last_page: last, total: this.logs.length }
        : this.counters === 'last-page'
          ? { current_page: answering, last_page: last }
          : null;
    return { data, meta, hasNextPage: () => n < last };
  }
}
