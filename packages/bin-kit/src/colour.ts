import { styleText } from 'node:util';

/** A format `styleText` takes: `'bold'`, `['bold', 'red']`. */
export type StyleFormat = Parameters<typeof styleText>[0];

/**
 * Whether text written to `stream` is coloured: as Node's `styleText` decides, `FORCE_COLOR` first
 * (`1`, `2`, `3`, `true` or empty force colour, in a pipe or a file too; any other value turns it
 * off), else only on a terminal that has colours, as `hasColors()` reads `NO_COLOR` and `TERM`.
 * Decided here rather than by `styleText`'s own check: Node 20's styleText ignores its stream and
 * `NO_COLOR`, and wrote colour codes into redirected stderr.
 *
 * @default env process.env
 * @example
 * ```ts
 * wantsColour(process.stderr) // false when stderr is a file or a pipe (unless FORCE_COLOR), or NO_COLOR is set
 * ```
 */
export function wantsColour(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv = process.env): boolean {
  const force = env['FORCE_COLOR'];
  if (force !== undefined) return FORCING.includes(force);
  return stream.isTTY === true && typeof stream.hasColors === 'function' && stream.hasColors();
}

/** The values of FORCE_COLOR that Node reads as colour on (tty.getColorDepth): 16, 256 or 16 million. */
const FORCING: readonly string[] = ['', '1', 'true', '2', '3'];

/**
 * `text` in `format` when `stream` takes colour ({@link wantsColour}), else as it is.
 *
 * @example
 * ```ts
 * process.stderr.write(paint(['bold', 'red'], 'Error:', process.stderr))
 * ```
 */
export function paint(format: StyleFormat, text: string, stream: NodeJS.WriteStream): string {
  return wantsColour(stream) ? styleText(format, text, { stream, validateStream: false }) : text;
}
