import cliProgress from 'cli-progress';
import { announceStopWith } from '../shell/interrupt.js';

// A CommonJS module whose `Format` Node cannot see as a named export from an ES module.
const { Format, MultiBar } = cliProgress;

/** A progress bar on the terminal's last line, with whole lines of notes printed above it. */
export interface ProgressLine {
  /** Moves the bar to `value` and sets the format's other fields. */
  update(value: number, fields: Readonly<Record<string, number>>): void;
  /** Prints `text` whole (wrapped by the terminal if long) above the bar, then draws the bar again below it. */
  note(text: string): void;
  /** Stops the bar and clears its line, cursor shown again: what is printed next starts there. */
  stop(): void;
}

const SHOW_CURSOR = '\x1b[?25h';

/**
 * A progress bar on `stream` if it is a terminal (undefined otherwise: notes are then plain
 * lines). cli-progress's MultiBar, because it prints notes above the bars (`log`) and moves the
 * cursor relatively; its SingleBar saves the cursor's screen position and restores it when it
 * stops, which lands in old output once notes have scrolled the screen. Line wrap is left on (a
 * long note wraps instead of being cut); the bar is cut one column short of the terminal's width,
 * so that it never wraps itself.
 *
 * @example
 * ```ts
 * const bar = progressLine('{bar} {value}/{total} | sent {sent}', rows, { sent: 0 })
 * bar?.note('line 4: failed: ...'); bar?.update(1, { sent: 1 }); bar?.stop()
 * ```
 */
export function progressLine(
  template: string,
  total: number,
  fields: Readonly<Record<string, number>>,
  stream: NodeJS.WriteStream = process.stderr,
): ProgressLine | undefined {
  if (!stream.isTTY) return undefined;
  const bars = new MultiBar({
    stream,
    format: (options, params, values) =>
      Format.Formatter({ ...options, format: template }, params, values).slice(0, Math.max(0, params.maxWidth - 1)),
    hideCursor: true,
    clearOnComplete: true,
    linewrap: true,
    // A note clears the bar's line: it is drawn again even though its figures did not change.
    forceRedraw: true,
  });
  const bar = bars.create(total, 0, fields);
  // A second signal exits at once (main.ts): the cursor must not stay hidden.
  const showCursor = () => stream.write(SHOW_CURSOR);
  process.once('exit', showCursor);
  const note = (text: string) => {
    bars.log(`${text}\n`);
    bars.update(); // printed now, in order with what follows, not at the next tick
  };
  const release = announceStopWith(note);
  let stopped = false;
  return {
    update: (value, values) => bar.update(value, values),
    note,
    stop() {
      if (stopped) return;
      stopped = true;
      release();
      bars.update(); // the last notes
      bars.stop();
      process.off('exit', showCursor);
    },
  };
}
