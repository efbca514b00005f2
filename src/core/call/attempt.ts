import type { Readable } from 'node:stream';
import type { Route } from '../../internal/requests/route.js';
import { describeValue } from '../../internal/values/describe-value.js';
import { monotonicNow } from '../../internal/waiting/clock.js';
import { channels, publishRateLimited } from '../channels.js';
import type { Lanes, LaneTicket } from '../rate/lanes.js';
import type { Transport } from '../transport/transport.js';
import type { SendLanes } from './call-spec.js';
import { classifyFailure } from './classify.js';
import type { Exchange, ExecutorConfig } from './exchange.js';
import { type ApiResult, toResult } from './response.js';
import { progressCounter } from './upload-progress.js';

/** One attempt: the exchange through the transport, its failure classified, its answer read. */
export async function attempt(config: ExecutorConfig, x: Exchange, attempt: number): Promise<ApiResult> {
  const { log, transport } = config;
  const { route, path, record } = x;
  // lanes, then the rate gate: wait for this attempt's turn (no await on the fast path); `timeout` starts after.
  const ticket = x.lanes && (await passLanes(config, x.lanes, route, x.signal));
  const { rateGate } = config;
  const turn = rateGate.admit(x.signal, route);
  if (turn) {
    try {
      await turn;
    } catch (error) {
      ticket?.release(); // never sent: its places go to the next in line
      throw error;
    }
  }
  record.attempts = attempt;
  const started = log.debug ? monotonicNow() : 0;
  let response: Awaited<ReturnType<Transport['send']>>;
  try {
    let body: string | Readable | undefined;
    let headers = x.headers;
    let onBodyBytes: ((bytes: number) => void) | undefined;
    if (x.body?.kind === 'json') body = x.body.text;
    else if (x.body?.kind === 'stream') {
      const opened = x.body.open();
      body = opened.stream;
      headers = { ...headers, ...opened.headers };
      if (x.onUploadProgress) onBodyBytes = progressCounter(x.onUploadProgress, opened.headers, log);
    }
    const { url, timeout, signal } = x;
    response = await transport.send({ method: route.method, url, headers, body, signal, timeout, onBodyBytes });
  } catch (error) {
    const failure = classifyFailure(error, { ...x, method: route.method, label: route.label });
    log.debug?.(`${route.method} ${path} failed`, {
      method: route.method,
      path,
      attempt,
      durationMs: Math.round(monotonicNow() - started),
      error: failure instanceof Error ? failure.message : describeValue(failure),
    });
    rateGate.settle(0, undefined); // rate gate: no answer
    // A request that may have arrived holds its places a window past now, as one answered does.
    ticket?.settle();
    throw failure;
  }
  ticket?.settle();
  record.status = response.status;
  record.headers = response.headers;
  rateGate.settle(response.status, response.headers); // rate gate: its headers, its 429
  log.debug?.(`${route.method} ${path} ${response.status}`, {
    method: route.method,
    path,
    status: response.status,
    attempt,
    durationMs: Math.round(monotonicNow() - started),
    requestId: response.headers['x-request-id'],
  });
  return toResult(route, x, response, config.apiBase);
}

/** Waits for the send's lanes (sender and recipient), telling its hooks when it waits and when it is through. */
async function passLanes(
  config: ExecutorConfig,
  lanes: SendLanes,
  route: Route,
  signal: AbortSignal | undefined,
): Promise<LaneTicket> {
  const onWait = channels.rateLimited.hasSubscribers
    ? (waitMs: number, lane: 'per-sender' | 'per-recipient') => publishRateLimited(route, waitMs, lane)
    : undefined;
  const stop = lanes.hooks?.signal;
  const waiting = stop ? (signal ? AbortSignal.any([signal, stop]) : stop) : signal;
  const pending = (config.lanes as Lanes).admit(lanes.keys, waiting, onWait);
  if (!(pending instanceof Promise)) return pending;
  lanes.hooks?.onBlocked();
  try {
    return await pending;
  } finally {
    lanes.hooks?.onPassed();
  }
}
