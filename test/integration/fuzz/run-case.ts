/**
 * One fuzz case from start to finish: plan the server's answers, make the call on a new client,
 * then check everything the SDK promises whatever the server or the caller does.
 */
import { inspect } from 'node:util';
import { MessagingClient, MessagingError } from 'tenant-messaging';
import type { CallSettings, EndpointName } from './endpoints.js';
import { callBound, callEndpoint, ENDPOINT_NAMES, invalidValue, requestBound } from './endpoints.js';
import { type Answer, type HostileServer, type ProcessWatch, settle } from './harness.js';

export const API_KEY = 'fuzz-secret-key-5f1d2c';
/** Allowed lateness past a call's bound: timers, GC, a loaded 2-core machine. */
const SLACK_MS = 300;
/** The longest the event loop may stall during a case. */
const MAX_LOOP_STALL_MS = 50;
/** After an abort, the call must settle within this. */
const ABORT_SETTLE_MS = 100;

export interface FuzzCase {
  readonly endpoint: EndpointName;
  readonly answers: readonly Answer[];
  readonly settings: CallSettings;
  /**
   * Aborts `controller` this many ms after the call starts (below 0: before it starts). The call
   * must use the controller's signal.
   */
  readonly abortAfterMs?: number | undefined;
  readonly controller?: AbortController | undefined;
  /** Replaces the endpoint's normal call (hostile inputs); its value is checked as the endpoint's. */
  readonly call?: ((client: MessagingClient) => Promise<unknown>) | undefined;
}

export interface CaseContext {
  readonly server: HostileServer;
  readonly watch: ProcessWatch;
}

/** Runs the case; returns every broken promise of the SDK (empty when none). */
export async function runCase(ctx: CaseContext, c: FuzzCase): Promise<string[]> {
  const { server, watch } = ctx;
  const problems: string[] = [];
  await server.plan(c.answers);
  const client = new MessagingClient({
    baseUrl: server.baseUrl,
    apiKey: API_KEY,
    timeout: c.settings.timeout,
    maxRetries: c.settings.maxRetries,
  });
  const bound = callBound(c.endpoint, c.settings) + SLACK_MS;
  watch.resetLoop();
  let abortedAt: number | undefined;
  let abortTimer: NodeJS.Timeout | undefined;
  const started = performance.now();
  if (c.controller && c.abortAfterMs !== undefined && c.abortAfterMs < 0) {
    abortedAt = 0;
    c.controller.abort(ABORT_REASON);
  } else if (c.controller && c.abortAfterMs !== undefined) {
    const controller = c.controller;
    abortTimer = setTimeout(() => {
      abortedAt = performance.now() - started;
      controller.abort(ABORT_REASON);
    }, c.abortAfterMs);
  }
  let promise: Promise<unknown>;
  try {
    promise = c.call ? c.call(client) : callEndpoint(client, c.endpoint, c.settings);
  } catch (error) {
    promise = Promise.reject(error);
    problems.push(`the call threw synchronously instead of rejecting: ${describe(error)}`);
  }
  const outcome = await settle(promise, bound + 2_000);
  clearTimeout(abortTimer);
  // A hang detector at the scale of a test's timeout: close() takes milliseconds, a loaded machine more.
  const closed = await settle(client.close(), 20_000);
  const loopMs = watch.loopMaxMs();

  if (outcome.kind === 'hung') problems.push(`the call did not settle within ${Math.round(outcome.ms)} ms`);
  else if (outcome.ms > bound)
    problems.push(`the call took ${Math.round(outcome.ms)} ms, over its bound of ${bound} ms`);
  if (abortedAt !== undefined && outcome.kind !== 'hung' && outcome.ms > abortedAt + ABORT_SETTLE_MS) {
    problems.push(`aborted at ${Math.round(abortedAt)} ms, the call settled only at ${Math.round(outcome.ms)} ms`);
  }
  if (closed.kind !== 'value') problems.push(`client.close() ${closed.kind === 'hung' ? 'hung' : 'rejected'}`);
  if (loopMs > MAX_LOOP_STALL_MS) problems.push(`the event loop stalled for ${Math.round(loopMs)} ms`);

  const report = await server.report();
  if (outcome.kind === 'value') {
    const invalid = invalidValue(c.endpoint, outcome.value);
    if (invalid) problems.push(invalid);
    if (!report.finalStatuses.some((status) => status >= 200 && status < 300)) {
      problems.push(`resolved although no answer was a 2xx (statuses: ${report.finalStatuses.join(', ')})`);
    }
  } else if (outcome.kind === 'error') {
    const { error } = outcome;
    const isReason = error === ABORT_REASON && abortedAt !== undefined;
    if (!(error instanceof MessagingError) && !isReason) {
      problems.push(`rejected with something other than a MessagingError: ${describe(error)}`);
    }
    if (error instanceof Error && describe(error, 4, 1e9).includes(API_KEY)) {
      problems.push('the error shows the API key');
    }
  }
  if (report.requests > requestBound(c.endpoint, c.settings)) {
    problems.push(`${report.requests} requests, over the budget of ${requestBound(c.endpoint, c.settings)}`);
  }
  if (report.otherConnections > 0) problems.push(`${report.otherConnections} connection(s) to another origin`);

  const left = await watch.leftovers();
  if (left.length > 0) problems.push(`left open after close(): ${left.join(', ')}`);
  if (watch.escaped.length > 0) {
    problems.push(`unhandled: ${watch.escaped.map((e) => describe(e)).join('; ')}`);
    watch.escaped.length = 0;
  }
  return problems;
}

/**
 * Runs a case, and once more when its only problems were of timing (a loop stall, a call that
 * settled later than its bound but settled): a stall or a missed timeout the SDK causes comes back
 * with the same inputs, while one from the OS (other test workers on a 2-core machine, a GC of
 * the test runner's own heap) does not. `run` must build the case's inputs afresh.
 */
export async function runTwiceIfStalled(run: () => Promise<string[]>): Promise<string[]> {
  const first = await run();
  const onlyStall =
    first.length > 0 &&
    first.every((problem) => problem.startsWith('the event loop stalled') || problem.startsWith('the call took'));
  if (!onlyStall) return first;
  const second = await run();
  return second.length === 0 ? [] : [...second, `(first run: ${first.join('; ')})`];
}

/**
 * One plain call of every endpoint, its result ignored: the SDK loads undici, its schemas and the
 * multipart stack on first use, and that one-time import would read as a stall of the first case.
 */
export async function warmUp(ctx: CaseContext): Promise<void> {
  const ok = (text: string): Answer => ({
    informational: [],
    status: 200,
    statusLine: null,
    headers: [['content-type', 'application/json']],
    body: { kind: 'text', text },
    framing: 'length',
    timing: { kind: 'now' },
    close: false,
  });
  const settings = { timeout: 2_000, maxRetries: 0, waitTimeout: 2_000, interval: 20 };
  for (const endpoint of ENDPOINT_NAMES) {
    await runCase(ctx, { endpoint, answers: [ok('{"data":[]}')], settings });
  }
  ctx.watch.escaped.length = 0;
}

/** The reason every fuzzed abort uses: the call must reject with this very object. */
export const ABORT_REASON = Object.freeze({ fuzz: 'aborted by the fuzzer' });

/** A hostile value (a thrown Proxy, say) may sit in an error's cause: showing it must not throw. */
function describe(value: unknown, depth = 2, length = 400): string {
  try {
    return inspect(value, { depth, breakLength: Number.POSITIVE_INFINITY }).slice(0, length);
  } catch {
    // util.inspect itself throws on a cause whose getPrototypeOf trap throws: the message will do.
    return value instanceof Error ? `${value.name}: ${value.message}`.slice(0, length) : typeof value;
  }
}
