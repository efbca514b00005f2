import { reconcileSend } from '../core/bulk/reconcile.js';
import { sendMany } from '../core/bulk/send-many.js';
import type { LaneHooks } from '../core/call/call-spec.js';
import { parseData } from '../core/call/parse.js';
import type { ApiResult } from '../core/call/response.js';
import { watchMediaSource } from '../core/media/media-source.js';
import { type Page, PagePromise, pageFromResult } from '../core/pagination.js';
import { endpointLabel } from '../endpoints.js';
import { ResponseValidationError } from '../errors.js';
import { checkReconcile, checkSendManyOptions } from '../internal/options/many-options.js';
import { loadedPhoneTools, loadPhoneTools } from '../internal/phones/phone.js';
import { readFields } from '../internal/values/input.js';
import { isPlainObject } from '../internal/values/is-plain-object.js';
import { untilAborted } from '../internal/waiting/abortable.js';
import { loadedSchemas, loadSchemas } from '../schemas/load.js';
import { emptyPayloadAsObject, isMessageLog } from '../schemas/message-log-check.js';
import type { ReconcileOptions, ReconcileResult, SendManyOptions, SendResult } from '../types/many.js';
import type { MessageLog } from '../types/message-log.js';
import type { RequestOptions, SendOptions } from '../types/options.js';
import type { ListQuery } from '../types/query.js';
import type { APIPromise } from '../types/response.js';
import type { SendMessageParams, SentParams } from '../types/send.js';
import { APIResource } from './resource.js';
import { type SentRecord, sendFailure } from './send-failure.js';
import { sendLanesOf } from './send-lanes.js';
import { checkSendParams, requestOf, type Schemas, SEND_PARAMS, withLanes } from './send-request.js';
import { SenderIds } from './sender-ids.js';

/** `client.messages`: send messages and read their logs. */
export class Messages extends APIResource {
  /** Sender phones to ids, for `reconcile`: read once per client. */
  readonly #senderIds = new SenderIds(this.executor);

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
  send(params: SendMessageParams, options?: SendOptions): APIPromise<MessageLog> {
    return this.#send(params, options, undefined);
  }

  /** `send`; `hooks` are told when the send waits in a lane and when it has passed (sendMany's accounting). */
  #send(params: SendMessageParams, options: SendOptions | undefined, hooks: LaneHooks | undefined) {
    let schemas: Schemas;
    let sent: SentRecord | undefined;
    const { lanes } = this.executor;
    const build = (loaded: Schemas, fields: Record<string, unknown>, startedAt: number) => {
      schemas = loaded;
      const checked = checkSendParams(fields, loaded.sendMessageParamsSchema);
      sent = { checked, startedAt };
      const request = requestOf(checked);
      return lanes ? withLanes(request, sendLanesOf(checked, lanes, hooks)) : request;
    };
    // Synchronous for a text send once the schemas are loaded (the usual case): no promise to
    // wait for before the request goes out. The first send, and a media send, wait.
    const request = () => {
      const startedAt = Date.now();
      const fields = readFields(params, SEND_PARAMS, '{ sender_phone, to_phone, type, content }');
      // Before any await: a caller's media stream that fails meanwhile must not end the process.
      if (fields['media'] !== undefined) watchMediaSource(fields);
      const ready = loadedSchemas();
      if (lanes?.perRecipient && !(ready && loadedPhoneTools())) {
        // Until both are loaded, every send waits on the same two loads, in one step: text sends
        // reach their lanes in the order they were made (a send made once the schemas were loaded
        // would otherwise overtake the ones made before, and take their recipient's turn). A media
        // send builds its body first, so it may reach them later than a text send made after it.
        return Promise.all([loadSchemas(), loadPhoneTools()]).then(([loaded]) => build(loaded, fields, startedAt));
      }
      return ready ? build(ready, fields, startedAt) : loadSchemas().then((loaded) => build(loaded, fields, startedAt));
    };
    const parse = (result: ApiResult) => parseData(schemas.messageLogSchema, result, 'sendMessage');
    const mapError = (error: unknown) => sendFailure(error, sent);
    return this.executor.run('sendMessage', { request, parse, mapError }, options);
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
  get(id: number, options?: RequestOptions): APIPromise<MessageLog> {
    const check = (schemas: Schemas, result: ApiResult) => {
      const log = parseData(schemas.messageLogSchema, result, 'getMessage');
      if (log.id === id) return log;
      throw new ResponseValidationError(endpointLabel('getMessage'), result.status, result.body, [
        {
          path: 'data.id',
          message: `is ${log.id}, but message log ${id} was asked for: the answer is not the log you read`,
        },
      ]);
    };
    const ready = loadedSchemas();
    // Until the schemas are loaded, a valid log is accepted without them (a cold start reading
    // one log never loads Zod); anything else loads them, and Zod gives the verdict and issues.
    const parse = ready
      ? (result: ApiResult) => check(ready, result)
      : (result: ApiResult) => validLogOf(result, id) ?? loadSchemas().then((loaded) => check(loaded, result));
    return this.executor.run('getMessage', { request: { params: { messageLog: id } }, parse }, options);
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
  list(query?: ListQuery, options?: RequestOptions): PagePromise<MessageLog> {
    const fetchPage = (pageQuery: ListQuery | undefined): APIPromise<Page<MessageLog>> => {
      const schemas = loadSchemas();
      const label = endpointLabel('listMessages');
      const parse = async (result: ApiResult) =>
        pageFromResult(result, (await schemas).messageLogSchema, label, pageQuery ?? {}, fetchPage);
      return this.executor.run('listMessages', { request: { query: pageQuery }, parse }, options);
    };
    return new PagePromise(() => fetchPage(query));
  }

  /**
   * Sends every item of `source` (any iterable or async iterable of send parameters, read lazily),
   * `concurrency` at a time, and yields each result as it completes: `sent` (with its log),
   * `failed` (this item only: a `ValidationError` before sending, a 422...; the batch goes on) or
   * `unknown`. Nothing is sent twice: a send whose outcome is unknown is reconciled against the logs
   * (`reconcile: true`) and comes back `sent` with `reconciled: true` when found, else `unknown`.
   * Sending stops when you stop reading results; an early `break` stops reading the source and lets
   * the sends in flight end. The client's rate gate and retries apply to every send.
   *
   * @example
   * ```ts
   * for await (const result of client.messages.sendMany(rows(), { concurrency: 8 })) {
   *   if (result.status !== 'sent') console.warn(result.index, result.status, result.error.message)
   * }
   * ```
   */
  sendMany(
    source: Iterable<SendMessageParams> | AsyncIterable<SendMessageParams>,
    options?: SendManyOptions,
  ): AsyncGenerator<SendResult> {
    const settings = checkSendManyOptions(source, options);
    const reconcile = settings.reconcile
      ? (params: SentParams, since: Date, claimed: ReadonlySet<number>) => this.#reconcile(params, { since }, claimed)
      : undefined;
    const paced = this.executor.lanes !== undefined;
    return sendMany(source, settings, {
      send: (params, hooks) => this.#send(params, undefined, hooks),
      reconcile,
      paced,
    });
  }

  /**
   * Looks for the log of a send whose outcome is unknown, using only what the spec lets it
   * compare: `message_type`, `content`, the sender number (a `sender_phone` is resolved through
   * `senderNumbers.list()`, once), `sent_at` from `since` (minus `clockSkewMs`), and
   * `request_payload.to_phone` when the service echoes it. `found` needs the recipient echoed and
   * exactly one match; several matches, or one without the recipient, are `ambiguous`: only you can
   * tell which. `not-found` means no log in the window matches (yet). The pages are read back to
   * the window's start, one request each, within caps derived from the service's counters (or
   * `maxPages`); `searched.complete: false` says a cap stopped the walk first.
   *
   * @example
   * ```ts
   * catch (error) {
   *   if (error instanceof SendOutcomeUnknownError && error.params) {
   *     const outcome = await client.messages.reconcile(error.params, { since: error.startedAt })
   *     if (outcome.status === 'found') console.log('it was sent as log', outcome.log.id)
   *   }
   * }
   * ```
   */
  reconcile(params: SentParams | SendMessageParams, options: ReconcileOptions): Promise<ReconcileResult> {
    return this.#reconcile(params, options, undefined);
  }

  /** `reconcile`, skipping the logs other items of a `sendMany` batch already own. */
  async #reconcile(
    params: unknown,
    options: unknown,
    claimed: ReadonlySet<number> | undefined,
  ): Promise<ReconcileResult> {
    // The options are read once: checked, then asked whether `maxPages` was given (the check
    // fills in a number either way; without one, the walk's own caps apply).
    const given = copyOf(options);
    const search = checkReconcile(params, given);
    const { signal, maxPages } = given as ReconcileOptions;
    const deps = {
      listPage: (query: ListQuery) => this.list(query, signal ? { signal } : undefined).then((page) => page),
      senderNumberId: async (phone: string) => (await untilAborted(this.#senderIds.once(), signal)).get(phone),
    };
    return reconcileSend({ ...search, maxPages: maxPages === undefined ? undefined : search.maxPages }, deps, claimed);
  }
}

/** A plain copy of an options object, read once; anything else (or one that cannot be read) as given, for the checks to refuse. */
function copyOf(options: unknown): unknown {
  try {
    return typeof options === 'object' && options !== null && !Array.isArray(options) ? { ...options } : options;
  } catch {
    return options;
  }
}

/** The log of a `{ data: MessageLog }` answer for `id` when it is plainly valid, checked without Zod; else undefined. */
function validLogOf(result: ApiResult, id: number): MessageLog | undefined {
  const data = isPlainObject(result.body) ? result.body['data'] : undefined;
  return isMessageLog(data) && data.id === id ? emptyPayloadAsObject(data) : undefined;
}
