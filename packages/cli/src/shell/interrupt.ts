/**
 * What a stop looks like to the code that sees it (the signals themselves are the bins' shared
 * ones). Imports only the bins' kit (Node's builtins, nothing of the SDK): main.ts loads it first.
 */
import { STOP_SIGNALS, type StopSignal, signalLabel } from 'tenant-messaging-bin-kit';

export { type StopSignal, signalLabel };

/**
 * The reason a command's signal is aborted with when a stop signal came: which one, and the exit
 * code the process ends with (128 + its number: 130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP).
 *
 * @example
 * ```ts
 * if (signal.reason instanceof InterruptedError) return signal.reason.exitCode
 * ```
 */
export class InterruptedError extends Error {
  override readonly name = 'InterruptedError';
  /** The exit code of a process stopped by this signal: 128 + its number. */
  readonly exitCode: number;

  constructor(
    /** The signal that came. */
    readonly signal: StopSignal,
    options?: ErrorOptions,
  ) {
    super(`Interrupted (${signalLabel(signal)})`, options);
    this.exitCode = 128 + STOP_SIGNALS[signal];
  }
}

/**
 * The reason a command's signal is aborted with when stdout's reader went away (`| head -1`): the
 * command stops as after a stop signal (what was sent is recorded), says nothing, and the process
 * exits 0, as a pipe's writer is expected to.
 *
 * @example
 * ```ts
 * if (signal.reason instanceof ReaderGoneError) return EXIT.ok
 * ```
 */
export class ReaderGoneError extends Error {
  override readonly name = 'ReaderGoneError';
  /** The exit code: the reader had what it wanted. */
  readonly exitCode = 0;
  /** No stop signal came. */
  readonly signal = undefined;

  constructor() {
    super('The reader of stdout went away');
  }
}

/**
 * True when `signal` was aborted because stdout's reader went away: the command ends without its
 * summary, and exit code 0.
 *
 * @example
 * ```ts
 * if (readerGone(signal)) return EXIT.ok
 * ```
 */
export const readerGone = (signal: AbortSignal): boolean => signal.reason instanceof ReaderGoneError;

let announcer: ((text: string) => void) | undefined;

/**
 * Says on stderr that a stop signal came, through whatever owns the bottom line of the terminal
 * (a progress bar prints it above itself), or as a line of its own.
 *
 * @example
 * ```ts
 * announceStop('Interrupted (SIGTERM): stopping.')
 * ```
 */
export function announceStop(text: string): void {
  if (announcer) announcer(text);
  else process.stderr.write(`\n${text}\n`);
}

/**
 * Routes {@link announceStop} through `print` until the returned function is called: a progress
 * bar uses it so that the line lands above the bar, not on it.
 *
 * @example
 * ```ts
 * const release = announceStopWith((text) => bar.note(text)); try { ... } finally { release() }
 * ```
 */
export function announceStopWith(print: (text: string) => void): () => void {
  announcer = print;
  return () => {
    if (announcer === print) announcer = undefined;
  };
}

/**
 * Why a command's `signal` was aborted: its stop signal (main.ts aborts it with an
 * InterruptedError), stdout's reader gone (a ReaderGoneError), or Ctrl-C when something else
 * aborted it (a test, a caller of program()).
 *
 * @example
 * ```ts
 * if (signal.aborted) return stopOf(signal).exitCode // 143 after SIGTERM
 * ```
 */
export const stopOf = (signal: AbortSignal): InterruptedError | ReaderGoneError =>
  signal.reason instanceof InterruptedError || signal.reason instanceof ReaderGoneError
    ? signal.reason
    : new InterruptedError('SIGINT', { cause: signal.reason });

/**
 * The exit code of a command stopped through `signal` ({@link stopOf}).
 *
 * @example
 * ```ts
 * if (signal.aborted) return stopCodeOf(signal) // 143 after SIGTERM
 * ```
 */
export const stopCodeOf = (signal: AbortSignal): number => stopOf(signal).exitCode;
