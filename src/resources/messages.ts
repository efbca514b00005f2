import { inspect } from 'node:util';
import { mayHaveBeenProcessed } from '../core/executor.js';
import { watchMediaSource } from '../core/media-source.js';
import { type ListQuery, type Page, PagePromise, pageFromResult } from '../core/pagination.js';
import { parseData } from '../core/parse.js';
import { ENDPOINTS, endpointLabel } from '../endpoints.js';
import { issuesFromZod, ResponseValidationError, SendOutcomeUnknownError, ValidationError } from '../errors.js';
import type { RequestOptions, SendOptions } from '../options.js';
import { loadSchemas } from '../schemas/load.js';
import type { MessageLog } from '../types/message-log.js';
import type { SendMessageParams } from '../types/send.js';
import { APIResource } from './resource.js';

/** Throws `ValidationError` unless `id` is a message log id: an integer >= 1. */
export function assertMessageLogId(id: unknown): asserts id is number {
  if (typeof id === 'number' && Number.isSafeInteger(id) && id >= 1) return;
  const got = typeof id === 'number' ? String(id) : describeValue(id);
  throw new ValidationError('Invalid message log id', [
    {
      path: 'id',
      message: `must be an integer >= 1 (the data.id returned by messages.send, not its message_id), got ${got}`,
    },
  ]);
}

/** A short, safe description of any value for an error message (BigInt and cycles included). */
function describeValue(value: unknown): string {
  if (typeof value === 'bigint') return `bigint ${value}n (convert it with Number(id))`;
  if (typeof value === 'string')
    return `string ${JSON.stringify(value.slice(0, 40))}${/^\d+$/.test(value) ? ' (convert it with Number(id))' : ''}`;
  if (value === null || typeof value !== 'object') return typeof value;
  return `${Array.isArray(value) ? 'array' : 'object'} ${inspect(value, { depth: 1, breakLength: Number.POSITIVE_INFINITY }).slice(0, 60)}`;
}

/**
 * A 2xx answer to a send means the service accepted the message, even when its body cannot be
 * read: the error says so, so that nobody sends the message again.
 */
function acceptedButUnreadable(error: unknown): unknown {
  if (error instanceof ResponseValidationError && error.status >= 200 && error.status < 300) {
    error.message += `\nThe service accepted the message (HTTP ${error.status}): it was sent, do not send it again.`;
  }
  return error;
}

/** `client.messages`: send messages and read their logs. */
export class Messages extends APIResource {
  /**
   * Sends a text (JSON body) or media (streamed multipart body) message. Scope: `messages.send`.
   * Resolves with the new MessageLog; its `id` is what `get` and `waitForDelivery` take.
   * Parameters are checked before any network I/O; a bad one throws `ValidationError`.
   *
   * @example
   * ```ts
   * const log = await client.messages.send({
   *   sender_phone: '+15550000001', to_phone: '+15550000002', type: 'text', content: 'Hello',
   * })
   * await client.messages.send({
   *   sender_number_id: 1, to_phone: '+15550000002', type: 'image', content: 'Receipt',
   *   media: mediaFromPath('./receipt.png'),
   * })
   * ```
   */
  async send(params: SendMessageParams, options: SendOptions = {}): Promise<MessageLog> {
    if (typeof params !== 'object' || params === null) {
      throw new ValidationError('Invalid send parameters', [
        {
          path: '',
          message: `must be an object such as { sender_phone, to_phone, type, content }, got ${params === null ? 'null' : typeof params}`,
        },
      ]);
    }
    // Before any await: a caller's media stream that fails meanwhile must not end the process.
    watchMediaSource(params);
    const schemas = await loadSchemas();
    const checked = schemas.sendMessageParamsSchema.safeParse(params);
    if (!checked.success) throw new ValidationError('Invalid send parameters', issuesFromZod(checked.error));
    const { method, path } = ENDPOINTS.sendMessage;
    const endpoint = endpointLabel('sendMessage');
    const body =
      checked.data.type === 'text'
        ? { kind: 'json' as const, text: JSON.stringify(checked.data) }
        : // The multipart stack loads on the first media send: text-only callers never pay for it.
          await (await import('../core/media-part.js')).mediaSendBody(checked.data);
    try {
      // The executor reads only the per-call options it knows; onUploadProgress goes with the call.
      const { onUploadProgress } = options;
      const result = await this.executor.call({ endpoint, method, path, body, onUploadProgress }, options);
      return parseData(schemas.messageLogSchema, result, endpoint);
    } catch (error) {
      // A send that may have gone out is not a plain network or server error: say so.
      if (mayHaveBeenProcessed(error)) throw new SendOutcomeUnknownError(error as Error);
      throw acceptedButUnreadable(error);
    }
  }

  /**
   * Reads one message log of this tenant with its current `delivery_status`. Scope: `messages.read`.
   * `id` is the log's `id` (from `send`), an integer >= 1; a log of another tenant is a `NotFoundError`.
   *
   * @example
   * ```ts
   * const log = await client.messages.get(42)
   * console.log(log.delivery_status) // 'sent' | 'delivered' | 'read' | 'unknown'
   * ```
   */
  async get(id: number, options?: RequestOptions): Promise<MessageLog> {
    assertMessageLogId(id);
    const { method } = ENDPOINTS.getMessage;
    const endpoint = endpointLabel('getMessage');
    const schemas = loadSchemas();
    const result = await this.executor.call({ endpoint, method, path: `/messages/${id}` }, options);
    return parseData((await schemas).messageLogSchema, result, endpoint);
  }

  /**
   * Lists message logs. Scope: `messages.read`. Query parameters pass through as given (e.g.
   * `{ page: 2 }`). Await it for one page, or `for await` it to walk every log of every page.
   *
   * @example
   * ```ts
   * const page = await client.messages.list()
   * for await (const log of client.messages.list()) console.log(log.id, log.delivery_status)
   * ```
   */
  list(query: ListQuery = {}, options?: RequestOptions): PagePromise<MessageLog> {
    const { method, path } = ENDPOINTS.listMessages;
    const endpoint = endpointLabel('listMessages');
    const fetchPage = async (pageQuery: ListQuery): Promise<Page<MessageLog>> => {
      const schemas = loadSchemas();
      const result = await this.executor.call({ endpoint, method, path, query: pageQuery }, options);
      return pageFromResult(result, (await schemas).messageLogSchema, endpoint, pageQuery, fetchPage);
    };
    return new PagePromise(() => fetchPage(query));
  }
}
