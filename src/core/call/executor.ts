import { NotFoundError } from '../../api-error.js';
import type { EndpointName } from '../../endpoints.js';
import { asWrongUrl } from '../../error-from-response.js';
import { OutcomeUnknownError } from '../../errors.js';
import { type Route, routeOf } from '../../internal/requests/route.js';
import { monotonicNow } from '../../internal/waiting/clock.js';
import type { RequestOptions, SendOptions } from '../../types/options.js';
import type { APIPromise } from '../../types/response.js';
import { channels, requestTraced } from '../channels.js';
import type { Lanes } from '../rate/lanes.js';
import { apiPromise, newCallRecord } from './api-promise.js';
import { attempt } from './attempt.js';
import type { AnyCallRequest, CallRequest, CallSpec } from './call-spec.js';
import { tracedCall } from './call-trace.js';
import { type ExecutorConfig, jsonHeadersOf, resolveExchange } from './exchange.js';
import type { ApiResult } from './response.js';
import { retryAfterFirst } from './retry-loop.js';

// resources/send-lanes.ts imports these from here.
export type { LaneHooks, SendLanes } from './call-spec.js';

/**
 * Runs API calls from the endpoint table: fills the row's path template, builds the URL and
 * headers, applies the per-attempt deadline, maps failures to typed errors (`classifyFailure`),
 * and retries what the retry policy allows. Resources never touch a transport directly.
 */
export class Executor {
  readonly #config: ExecutorConfig;

  /** The headers of a JSON call without per-call headers, built once: the hot path copies nothing. */
  readonly #jsonHeaders: Readonly<Record<string, string>>;

  /** The client's lanes, when `rateLimit.perSender` or `perRecipient` is set: a send then names its own. */
  readonly lanes: Lanes | undefined;

  constructor(config: ExecutorConfig) {
    this.#config = config;
    this.lanes = config.lanes;
    this.#jsonHeaders = jsonHeadersOf(config);
  }

  /**
   * Runs one logical call of the endpoint `name` of the table: builds the request, calls it (with
   * retries), reads the answer. Returns a native promise with `.withResponse()`; when someone
   * subscribes to `tenant-messaging:request`, the whole call is one trace.
   */
  run<Name extends EndpointName, T>(
    name: Name,
    spec: CallSpec<CallRequest<Name>, T>,
    options?: RequestOptions | SendOptions,
  ): APIPromise<T> {
    return this.runRoute(routeOf(name), spec as CallSpec<AnyCallRequest, T>, options);
  }

  /** `run`, for a route made on the spot (`client.request()`). */
  runRoute<T>(route: Route, spec: CallSpec<AnyCallRequest, T>, options?: RequestOptions | SendOptions): APIPromise<T> {
    const config = this.#config;
    const record = newCallRecord();
    const work = async (): Promise<T> => {
      try {
        const pending = typeof spec.request === 'function' ? spec.request() : spec.request;
        const request = pending instanceof Promise ? await pending : pending;
        const exchange = resolveExchange(config, this.#jsonHeaders, route, request, options, record);
        // Most calls succeed at once: the first attempt runs directly, and the retry loop (which
        // counts the whole budget) only runs once an attempt has failed.
        let result: ApiResult;
        try {
          result = await attempt(config, exchange, 1);
        } catch (error) {
          result = await retryAfterFirst(config, exchange, error);
        }
        const value = spec.parse(result);
        // A parse that needs nothing loaded answers synchronously: no extra turn of the loop.
        return value instanceof Promise ? await value : value;
      } catch (thrown) {
        const wrongUrl = asWrongUrl(thrown);
        const error = wrongUrl && (await this.#answers404(options)) ? wrongUrl() : thrown;
        const failure = spec.mapError ? spec.mapError(error) : error;
        if (failure instanceof OutcomeUnknownError && channels.outcomeUnknown.hasSubscribers) {
          const { name: endpoint, method, template: urlTemplate } = route;
          channels.outcomeUnknown.publish({ endpoint, method, urlTemplate, error: failure });
        }
        throw failure;
      } finally {
        record.durationMs = monotonicNow() - record.startedAt;
      }
    };
    if (!requestTraced()) return apiPromise(work(), record);
    return apiPromise(tracedCall(route, config.serverAddress, record, work), record);
  }

  /**
   * Whether the base URL answers 404 for its own `/me`: then a 404 that named neither a model nor
   * a route came from a wrong base URL, not a missing log. One attempt, under the call's own
   * signal and timeout; any other answer or failure leaves the 404 as it was.
   */
  async #answers404(options: RequestOptions | SendOptions | undefined): Promise<boolean> {
    const probe: { maxRetries: number; signal?: AbortSignal; timeout?: number } = { maxRetries: 0 };
    if (options?.signal) probe.signal = options.signal;
    if (typeof options?.timeout === 'number') probe.timeout = options.timeout;
    try {
      await this.runRoute(routeOf('me'), { request: {}, parse: () => undefined }, probe);
      return false;
    } catch (error) {
      return error instanceof NotFoundError && error.code === 'not_found.route';
    }
  }
}
