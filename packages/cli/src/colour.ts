import { styleText } from 'node:util';

/** A format `styleText` takes: `'bold'`, `['bold', 'red']`. */
export type StyleFormat = Parameters<typeof styleText>[0];

/**
 * Whether text written to `stream` is coloured: only on a terminal that has colours, as
 * `hasColors()` reads `NO_COLOR`, `FORCE_COLOR` and `TERM`. Decided here rather than by
 * `styleText`'s own check: Node 20's styleText ignores its stream and `NO_COLOR`, and wrote colour
 * codes into redirected stderr.
 *
 * @example
 * ```ts
 * wantsColour(process.stderr) // false when stderr is a file, a pipe, or NO_COLOR is set
 * ```
 */
export function wantsColour(stream: NodeJS.WriteStream): boolean {
  return stream.isTTY === true && typeof stream.hasColors === 'function' && stream.hasColors();
}

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
