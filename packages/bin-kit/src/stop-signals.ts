/**
 * The signals a bin stops on, caught from its first statement. Imports nothing: a bin's entry
 * loads it before anything else, so that a signal that comes while the rest loads is not handled
 * by its default action (no message, no summary, no exit code of ours).
 */

/**
 * The signals a bin handles, with their POSIX numbers (the same on Linux and macOS): each stops
 * what runs the way Ctrl-C does, and the exit code is 128 + the number.
 *
 * @example
 * ```ts
 * 128 + STOP_SIGNALS.SIGTERM // 143
 * ```
 */
export const STOP_SIGNALS = Object.freeze({ SIGHUP: 1, SIGINT: 2, SIGTERM: 15 });

/** One of the signals a bin stops on. */
export type StopSignal = keyof typeof STOP_SIGNALS;

/**
 * How a person knows the signal: Ctrl-C for SIGINT, its name otherwise.
 *
 * @example
 * ```ts
 * signalLabel('SIGINT') // 'Ctrl-C'
 * ```
 */
export const signalLabel = (signal: StopSignal): string => (signal === 'SIGINT' ? 'Ctrl-C' : signal);

/** What {@link catchStopSignals} gives its bin. */
export interface StopSignals {
  /** Aborted at the first stop signal, with the reason the bin made of it. */
  readonly signal: AbortSignal;
  /** The stop signal that came, if one did. */
  caught(): StopSignal | undefined;
  /** The exit code the process ends with after it: 128 + its number; undefined if none came. */
  exitCode(): number | undefined;
  /**
   * Stops what runs as a stop signal would, for a reason that is no signal (stdout's reader went
   * away): aborts `signal` with `reason` and announces nothing; `caught()` stays undefined.
   */
  stop(reason: unknown): void;
  /** Removes the handlers (before a command that handles the signals itself). */
  release(): void;
  /**
   * Says the outcome is known (`process.exitCode`, once what ran has finished): a stop signal that
   * comes while the process still closes what it opened, or as it ends, exits at once with that
   * code. The signal's default action instead ends it in a way a shell reports as 128 + its
   * number: stopped before done, though the messages were sent.
   */
  finish(): void;
}

/**
 * Handles SIGINT, SIGTERM and SIGHUP from now on. The first one is announced (`Interrupted
 * (Ctrl-C): stopping.`) and aborts `signal` with `reasonOf(signal)`: what runs stops and says
 * what it did. A second one exits at once, with 128 + its number. Once the bin calls `finish()`,
 * one exits at once with the exit code the bin set.
 *
 * @example
 * ```ts
 * const stops = catchStopSignals({ announce: (text) => process.stderr.write(`\n${text}\n`), reasonOf: (s) => new Error(s) })
 * ```
 */
export function catchStopSignals(options: {
  /** Says that a stop signal came (on stderr, or above a progress bar). */
  announce(text: string): void;
  /** The reason `signal` is aborted with. */
  reasonOf(signal: StopSignal): unknown;
}): StopSignals {
  const controller = new AbortController();
  let caught: StopSignal | undefined;
  const onSignal = (signal: StopSignal) => {
    if (caught) process.exit(128 + STOP_SIGNALS[signal]); // a second signal: out at once
    caught = signal;
    // A hangup means the terminal is gone: writing to it fails (EIO), and an unhandled stream
    // error would end the process before what runs has said what it did.
    if (signal === 'SIGHUP') for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
    options.announce(`Interrupted (${signalLabel(signal)}): stopping.`);
    controller.abort(options.reasonOf(signal));
  };
  // Without an argument, process.exit() ends with process.exitCode: the outcome already known.
  const onSignalWhenFinished = () => process.exit();
  const signals = Object.keys(STOP_SIGNALS) as StopSignal[];
  const release = () => {
    for (const signal of signals) {
      process.off(signal, onSignal);
      process.off(signal, onSignalWhenFinished);
    }
    process.off('exit', onSignalWhenFinished);
  };
  for (const signal of signals) process.on(signal, onSignal);
  return {
    signal: controller.signal,
    caught: () => caught,
    exitCode: () => (caught ? 128 + STOP_SIGNALS[caught] : undefined),
    stop: (reason) => {
      if (!controller.signal.aborted) controller.abort(reason);
    },
    release,
    finish: () => {
      release();
      for (const signal of signals) process.on(signal, onSignalWhenFinished);
      // After 'exit', Node's own teardown gives each signal back its default action before the
      // process ends, where a Ctrl-C still killed it: ending here leaves no such gap.
      process.once('exit', onSignalWhenFinished);
    },
  };
}
