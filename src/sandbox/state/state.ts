import { issuesFromZod, ValidationError } from '../../errors.js';
import { messageLogSchema } from '../../schemas/validators.js';
import type { DeliveryStatus, MessageLog } from '../../types/message-log.js';
import { laravelDate } from '../http/laravel.js';
import { SANDBOX_DEFAULTS, type SandboxOptions } from './options.js';
import { furthestStatus, recipientUserId } from './phones.js';
import { buildTenants, type Tenant } from './tenants.js';

/** One stored dispatch. The delivery status is not stored: it is computed from `sentAt` when read. */
export interface StoredLog {
  readonly id: number;
  readonly tenant: string;
  readonly senderNumberId: number;
  readonly toPhone: string;
  readonly conversationId: number;
  readonly messageId: number;
  readonly type: string;
  readonly content: string | null;
  readonly requestPayload: Record<string, unknown>;
  readonly mediaUrl: string | null;
  readonly mediaBytes: number;
  readonly sentAt: number;
  /** Set by `setDeliveryStatus`: freezes the simulation at this value. */
  override: DeliveryStatus | undefined;
  /** Set by `deleteUnderlyingMessage`: the log then reads `unknown`. */
  messageDeleted: boolean;
}

/**
 * A media file the sandbox received, kept so tests can assert on what arrived.
 *
 * @example
 * ```ts
 * expect(sandbox.uploads[0]).toMatchObject({ filename: 'photo.png', contentType: 'image/png', size: 68 })
 * ```
 */
export interface UploadRecord {
  /** The tenant that sent it. */
  readonly tenant: string;
  /** The MessageLog it belongs to. */
  readonly logId: number;
  /** The multipart part's file name. */
  readonly filename: string;
  /** The multipart part's content type. */
  readonly contentType: string;
  /** Its size in bytes. */
  readonly size: number;
  /** Hex SHA-256 of its bytes. */
  readonly sha256: string;
  /** The bytes themselves. */
  readonly bytes: Uint8Array;
  /** The opaque URL that serves it back. */
  readonly mediaUrl: string;
}

/**
 * Counters of what the sandbox saw since it started or was last reset.
 *
 * @example
 * ```ts
 * expect(sandbox.counters.requests['POST /messages']).toBe(1)
 * ```
 */
export interface SandboxCounters {
  /** Requests per route label (`POST /messages`, `GET /media/{token}`, `unmatched`), counted before auth. */
  readonly requests: Record<string, number>;
  /** MessageLogs stored by successful sends. */
  sendsStored: number;
}

/** Thrown when the sandbox is about to send a MessageLog the SDK's own schema rejects. */
export class SandboxDriftError extends Error {
  override name = 'SandboxDriftError';
}

/** The sandbox's whole mutable state; `reset()` empties it and keeps the configuration. */
export class SandboxState {
  readonly tenants: ReadonlyMap<string, Tenant>;
  readonly now: () => number;
  readonly deliveredAfterMs: number;
  readonly readAfterMs: number;
  readonly maxMediaBytes: number;
  /** Logs per page of `GET /messages`. */
  readonly pageSize: number;
  logs: StoredLog[] = [];
  /** The uploads by the token of their `media_url`. */
  media = new Map<string, UploadRecord>();
  uploads: UploadRecord[] = [];
  counters: SandboxCounters = { requests: {}, sendsStored: 0 };
  #conversations = new Map<string, number>();
  #nextLogId = 1;
  #nextMessageId = 9001;

  constructor(options: SandboxOptions) {
    // Read at each call, never captured: fake timers installed after the sandbox was made still count.
    this.now = options.now ?? (() => Date.now());
    this.tenants = new Map(buildTenants(options, this.now()).map((t) => [t.slug, t]));
    this.deliveredAfterMs = options.delivery?.deliveredAfterMs ?? SANDBOX_DEFAULTS.deliveredAfterMs;
    this.readAfterMs = options.delivery?.readAfterMs ?? SANDBOX_DEFAULTS.readAfterMs;
    this.maxMediaBytes = options.maxMediaBytes ?? SANDBOX_DEFAULTS.maxMediaBytes;
    this.pageSize = options.pageSize ?? SANDBOX_DEFAULTS.perPage;
    if (!(Number.isInteger(this.pageSize) && this.pageSize >= 1)) {
      throw new ValidationError(
        'Invalid sandbox options',
        [{ path: 'pageSize', message: `must be an integer >= 1 (got ${String(this.pageSize)})` }],
        { code: 'validation.options' },
      );
    }
  }

  /** Empties logs, media, uploads and counters. Ids keep growing, so an old id never names a new log. */
  reset(): void {
    this.logs = [];
    this.media.clear();
    this.uploads = [];
    this.counters = { requests: {}, sendsStored: 0 };
    this.#conversations.clear();
  }

  /** The tenant, or a readable error naming the known ones (for the control API). */
  tenant(slug: string): Tenant {
    const tenant = this.tenants.get(slug);
    if (!tenant) throw new Error(`No sandbox tenant '${slug}'. Known: ${[...this.tenants.keys()].join(', ')}.`);
    return tenant;
  }

  /** Counts one request to a route label. */
  count(label: string): void {
    this.counters.requests[label] = (this.counters.requests[label] ?? 0) + 1;
  }

  /** Stores a new dispatch; ids are global across tenants, so another tenant's id is a real 404. */
  addLog(fields: Omit<StoredLog, 'id' | 'conversationId' | 'messageId' | 'sentAt' | 'override' | 'messageDeleted'>) {
    const key = `${fields.tenant}:${fields.senderNumberId}:${fields.toPhone}`;
    const conversationId = this.#conversations.get(key) ?? this.#conversations.size + 501;
    this.#conversations.set(key, conversationId);
    const log: StoredLog = {
      ...fields,
      id: this.#nextLogId++,
      conversationId,
      messageId: this.#nextMessageId++,
      sentAt: this.now(),
      override: undefined,
      messageDeleted: false,
    };
    this.logs.push(log);
    this.counters.sendsStored++;
    return log;
  }

  /** The tenant's logs, oldest first. */
  logsOf(tenant: string): StoredLog[] {
    return this.logs.filter((log) => log.tenant === tenant);
  }

  /** One log of the tenant; another tenant's log is undefined, as if it did not exist. */
  findLog(tenant: string, id: number): StoredLog | undefined {
    return this.logs.find((log) => log.id === id && log.tenant === tenant);
  }

  /**
   * The delivery status at this instant, computed from the send time rather than kept up to
   * date by timers: nothing keeps the process alive, and an injected clock drives it exactly.
   */
  deliveryStatus(log: StoredLog): DeliveryStatus {
    if (log.messageDeleted) return 'unknown';
    if (log.override !== undefined) return log.override;
    const elapsed = this.now() - log.sentAt;
    const furthest = furthestStatus(log.toPhone);
    if (furthest === 'read' && elapsed >= this.readAfterMs) return 'read';
    if (furthest !== 'sent' && elapsed >= this.deliveredAfterMs) return 'delivered';
    return 'sent';
  }

  /** The log as the API sends it, checked against the SDK's own `messageLogSchema`. */
  toMessageLog(log: StoredLog): MessageLog {
    const body: MessageLog = {
      id: log.id,
      sender_number_id: log.senderNumberId,
      recipient_user_id: recipientUserId(log.toPhone),
      conversation_id: log.conversationId,
      message_id: log.messageId,
      message_type: log.type,
      content: log.content,
      status: 'sent',
      delivery_status: this.deliveryStatus(log),
      request_payload: log.requestPayload,
      response_payload: { conversation_id: log.conversationId, message_id: log.messageId, media_url: log.mediaUrl },
      sent_at: laravelDate(log.sentAt),
    };
    // Why: the sandbox must never teach users a shape the real service (and the SDK) would not
    // accept. A mismatch is a bug in the sandbox, so it fails loudly instead of answering.
    const checked = messageLogSchema.safeParse(body);
    if (!checked.success) {
      const issues = issuesFromZod(checked.error).map((issue) => `${issue.path}: ${issue.message}`);
      throw new SandboxDriftError(
        `The sandbox built a MessageLog the SDK's messageLogSchema rejects: ${issues.join('; ')}`,
      );
    }
    return body;
  }
}
