/**
 * The fuzzer's harness, client side: the hostile server in a child process, and the checks every
 * case gets (settles in time, loop never stalls, nothing unhandled, nothing left open).
 */
import { type ChildProcess, fork } from 'node:child_process';
import type fc from 'fast-check';
import { watchLoopStalls } from '../../helpers/loop-stall.js';

/** One hostile answer; the child process (`hostile-server.ts`, which imports this type) writes it. */
export interface Answer {
  /** 1xx answers sent before the final one. */
  readonly informational: readonly number[];
  /** The final status, or null for none (only the informational answers, then nothing). */
  readonly status: number | null;
  /** A junk status line that replaces `HTTP/1.1 <status>` when set. */
  readonly statusLine: string | null;
  readonly headers: readonly (readonly [string, string])[];
  readonly body:
    | { kind: 'text'; text: string }
    | { kind: 'bytes'; base64: string }
    | { kind: 'html'; size: number }
    | { kind: 'deep'; depth: number; arrays: boolean; wrapped: boolean };
  readonly framing: 'length' | 'shorter' | 'longer' | 'chunked' | 'none';
  readonly timing:
    | { kind: 'now' }
    | { kind: 'drip'; chunk: number; delayMs: number }
    | { kind: 'stall'; at: number }
    | { kind: 'reset'; at: number; rst: boolean }
    | { kind: 'early' };
  readonly close: boolean;
}

/** What the hostile server saw during one case. */
export interface CaseReport {
  readonly requests: number;
  readonly finalStatuses: readonly number[];
  /** Connections to the "other origin" listener: must stay 0. */
  readonly otherConnections: number;
}

export interface HostileServer {
  /** The API base URL (the SDK appends nothing but paths to it). */
  readonly baseUrl: string;
  /** An origin the SDK must never connect to. */
  readonly otherOrigin: string;
  /** Sets the answers of the next case, in order (the last one repeats), and drops every open socket. */
  plan(answers: readonly Answer[]): Promise<void>;
  report(): Promise<CaseReport>;
  close(): Promise<void>;
}

export async function startHostileServer(): Promise<HostileServer> {
  const child: ChildProcess = fork(new URL('./hostile-server.ts', import.meta.url), {
    execArgv: ['--no-warnings'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await new Promise<{ port: number; otherPort: number }>((resolve, reject) => {
    child.once('message', (message) => resolve(message as { port: number; otherPort: number }));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the hostile server exited with ${code}`)));
  });
  let nextId = 0;
  const ask = <T>(message: Record<string, unknown>): Promise<T> => {
    const id = ++nextId;
    return new Promise<T>((resolve) => {
      const onMessage = (reply: { id?: number }) => {
        if (reply.id !== id) return;
        child.off('message', onMessage);
        resolve(reply as T);
      };
      child.on('message', onMessage);
      child.send({ ...message, id });
    });
  };
  return {
    baseUrl: `http://127.0.0.1:${ready.port}`,
    otherOrigin: `http://127.0.0.1:${ready.otherPort}`,
    plan: async (answers) => void (await ask({ type: 'plan', answers })),
    report: async () => (await ask<{ report: CaseReport }>({ type: 'report' })).report,
    close: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.disconnect();
      }),
  };
}

/** Everything a case must not leave behind, and how to tell. */
export interface ProcessWatch {
  /** Unhandled rejections and uncaught exceptions since the watch started. */
  readonly escaped: unknown[];
  /** The longest event-loop stall since the last `resetLoop()`, in ms of main-thread CPU (see watchLoopStalls). */
  loopMaxMs(): number;
  resetLoop(): void;
  /** Active resources beyond the baseline taken at start, polled until none is left or `settleMs` (10 s) passes. */
  leftovers(settleMs?: number): Promise<string[]>;
  stop(): void;
}

function resourceCounts(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const name of process.getActiveResourcesInfo()) counts.set(name, (counts.get(name) ?? 0) + 1);
  return counts;
}

export function watchProcess(): ProcessWatch {
  const escaped: unknown[] = [];
  const onEscape = (error: unknown) => escaped.push(error);
  process.on('unhandledRejection', onEscape);
  process.on('uncaughtException', onEscape);
  // Started before the baseline of active resources: its own timer is not a leftover.
  const stalls = watchLoopStalls();
  const baseline = resourceCounts();
  const extra = () => {
    const out: string[] = [];
    for (const [name, count] of resourceCounts()) {
      const more = count - (baseline.get(name) ?? 0);
      if (more > 0) out.push(`${name} x${more}`);
    }
    return out;
  };
  return {
    escaped,
    loopMaxMs: () => stalls.maxMs(),
    resetLoop: () => stalls.reset(),
    // Polled until none is left: the bound only ends a real leak, at the scale of a test's
    // timeout (a loaded machine closes sockets late; a fixed half second once was not enough).
    async leftovers(settleMs = 10_000) {
      const until = performance.now() + settleMs;
      for (;;) {
        const left = extra();
        if (left.length === 0 || performance.now() > until) return left;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    stop() {
      stalls.stop();
      process.off('unhandledRejection', onEscape);
      process.off('uncaughtException', onEscape);
    },
  };
}

/** How a call ended: a value, an error, or still pending when its time was up. */
export type Outcome =
  | { readonly kind: 'value'; readonly value: unknown; readonly ms: number }
  | { readonly kind: 'error'; readonly error: unknown; readonly ms: number }
  | { readonly kind: 'hung'; readonly ms: number };

/** Waits for `promise` at most `limitMs`; the timer is cleared either way. */
export async function settle(promise: Promise<unknown>, limitMs: number): Promise<Outcome> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<'hung'>((resolve) => {
    timer = setTimeout(() => resolve('hung'), limitMs);
  });
  try {
    const result = await Promise.race([
      promise.then(
        (value) => ({ kind: 'value' as const, value }),
        (error: unknown) => ({ kind: 'error' as const, error }),
      ),
      hung,
    ]);
    const ms = performance.now() - started;
    return result === 'hung' ? { kind: 'hung', ms } : { ...result, ms };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The fuzzer's knobs: a fixed seed and run count in `npm test`; FUZZ_SEED, FUZZ_RUNS for a long
 * soak, FUZZ_PATH (with the seed) to replay one reported counterexample, FUZZ_SHRINK=1 to shrink it.
 */
export function fuzzSettings(defaultRuns: number): fc.Parameters<unknown> & { seed: number; numRuns: number } {
  const seed = Number(process.env['FUZZ_SEED'] ?? 20_261_121);
  const numRuns = Number(process.env['FUZZ_RUNS'] ?? defaultRuns);
  const path = process.env['FUZZ_PATH'];
  // Shrinking replays timing-heavy cases many times: off unless asked for (FUZZ_SHRINK=1).
  return { seed, numRuns, endOnFailure: process.env['FUZZ_SHRINK'] === undefined, ...(path ? { path } : {}) };
}
