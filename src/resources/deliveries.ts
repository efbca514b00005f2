import { trackDeliveries } from '../core/bulk/track-deliveries.js';
import { pollDelivery, type ReadLog } from '../core/polling/poll.js';
import { PollScheduler } from '../core/polling/poll-scheduler.js';
import { checkTrackOptions, type PollSettings, resolvePollSettings } from '../internal/options/poll-options.js';
import { checkPathParams } from '../internal/requests/route.js';
import type { Log } from '../internal/runtime/log.js';
import type { DeliveryUpdate, TrackDeliveriesOptions } from '../types/many.js';
import type { MessageLog } from '../types/message-log.js';
import type { WaitForDeliveryOptions } from '../types/polling.js';
import type { APIPromise, ResponseInfo, WithResponse } from '../types/response.js';
import type { Messages } from './messages.js';

/** What delivery tracking needs from its client. */
export interface DeliveriesContext {
  readonly messages: Messages;
  /** The client's request timeout: a poll's read gets the smaller of it and the time left. */
  readonly requestTimeout: number;
  readonly polling: { readonly maxConcurrent: number; readonly maxPerSecond: number };
  /** Shared by every wait of the client (and of clients derived from it); made on first use. */
  readonly scheduler: { current?: PollScheduler };
  readonly log: Log;
}

/**
 * `waitForDelivery` and `trackDeliveries`: every wait runs on the client's one poll scheduler, so
 * one wait or ten thousand respect the same `polling` caps.
 */
export class Deliveries {
  readonly #context: DeliveriesContext;

  /** @internal mounted by `MessagingClient` */
  constructor(context: DeliveriesContext) {
    this.#context = context;
  }

  /** See `MessagingClient.waitForDelivery`. */
  wait(id: number, options: WaitForDeliveryOptions | undefined): APIPromise<MessageLog> {
    let last: ResponseInfo | undefined;
    const result = this.#waitChecked(id, options).then(({ data, response }) => {
      last = response;
      return data;
    }) as APIPromise<MessageLog>;
    // The answer of the read that saw the status reached.
    result.withResponse = () => result.then((data) => ({ data, response: last as ResponseInfo }));
    return result;
  }

  /** See `MessagingClient.trackDeliveries`. */
  track(
    ids: Iterable<number> | AsyncIterable<number>,
    options: TrackDeliveriesOptions | undefined,
  ): AsyncGenerator<DeliveryUpdate> {
    const settings = checkTrackOptions(ids, options);
    return trackDeliveries(ids, settings, {
      checkId: (id) => checkPathParams('getMessage', { messageLog: id }),
      wait: (id, each) => this.#poll(id, each),
    });
  }

  async #waitChecked(id: number, options: WaitForDeliveryOptions | undefined): Promise<WithResponse<MessageLog>> {
    checkPathParams('getMessage', { messageLog: id });
    return this.#poll(id, resolvePollSettings(options));
  }

  /** One wait on the shared scheduler. */
  #poll(id: number, settings: PollSettings): Promise<WithResponse<MessageLog>> {
    const { messages, requestTimeout, polling, scheduler, log } = this.#context;
    // One attempt per poll: the poller is the retry loop, and it knows the overall deadline.
    const readLog: ReadLog = ({ signal, timeout }) =>
      messages.get(id, { signal, timeout, maxRetries: 0 }).withResponse();
    scheduler.current ??= new PollScheduler(polling);
    return pollDelivery(id, readLog, settings, { requestTimeout, scheduler: scheduler.current, warn: log.warn });
  }
}
