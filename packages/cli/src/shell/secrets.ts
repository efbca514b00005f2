/**
 * The secrets the command line knows, and what it writes redacted by them (the bin kit's
 * redactSecrets: raw, percent-encoded, base64, hex... in a path, a query, a header or a body).
 * Imports only the bins' kit (and utf8-cut.ts, which imports nothing): main.ts guards its streams before anything else is loaded.
 */
import { QUOTE_MAX, quoteInput, redactSecrets } from 'tenant-messaging-bin-kit';
import { cutOff } from './utf8-cut.js';

/**
 * Every secret known so far: the environment's (the API key, the MCP token, any `*WEBHOOK_SECRET`),
 * the command line's refused `--api-key` and `--secret`, and the files read since (the key of
 * `--api-key-file`, the secret of `--secret-file`). One array, read at each write, so that a
 * secret learnt later is redacted from then on.
 */
const known: string[] = [];

/**
 * The shortest value redacted: a shorter one is no key, token or webhook secret the API or the
 * bins make, and redacting it would mangle every line (`--api-key k` would hide every `k`).
 * @default 8
 */
export const SECRET_MIN = 8;

/**
 * Adds secrets to those every write is redacted by (shorter than {@link SECRET_MIN}, empty and
 * repeated ones are skipped).
 *
 * @example
 * ```ts
 * keepSecrets((await credentialsFrom(flags, process.env)).secrets)
 * ```
 */
export function keepSecrets(values: readonly (string | undefined)[]): void {
  for (const value of values) {
    const secret = value?.trim();
    if (secret && secret.length >= SECRET_MIN && !known.includes(secret)) known.push(secret);
  }
}

/**
 * The secrets known so far, as one live array (the SDK's logger reads it at each line).
 *
 * @example
 * ```ts
 * redactingLogger(knownSecrets(), (line) => process.stderr.write(line))
 * ```
 */
export const knownSecrets = (): readonly string[] => known;

/** The flags whose value is a secret: refused (a key on the command line leaks through `ps`), but never shown. */
const SECRET_FLAGS = ['--api-key', '--secret'];

/**
 * The values `argv` gives the secret flags, as `--api-key K` or `--api-key=K`.
 *
 * @example
 * ```ts
 * secretsInArgv(['node', 'bin', '--api-key=tm_live_x', 'me']) // ['tm_live_x']
 * ```
 */
export function secretsInArgv(argv: readonly string[]): string[] {
  const found: string[] = [];
  argv.forEach((arg, i) => {
    for (const flag of SECRET_FLAGS) {
      if (arg === flag && argv[i + 1] !== undefined) found.push(argv[i + 1] as string);
      else if (arg.startsWith(`${flag}=`)) found.push(arg.slice(flag.length + 1));
    }
  });
  return found;
}

/**
 * `text` with every known secret redacted.
 *
 * @example
 * ```ts
 * redacted(`GET /x?k=${encodeURIComponent(key)}`) // 'GET /x?k=[redacted]'
 * ```
 */
export const redacted = (text: string): string => redactSecrets(text, known);

/**
 * `text` quoted for a refusal (the bin kit's quoteInput), every known secret redacted before it
 * is shortened: a cut could otherwise keep a part of a secret that no longer reads as one.
 *
 * @example
 * ```ts
 * throw new UsageError(`--wait takes delivered or read, got ${quote(flags.wait)}`)
 * ```
 */
export const quote = (text: string): string => quoteInput(text, QUOTE_MAX, known);

/**
 * Makes every later write of `stream` pass through {@link redacted}: the command line's own lines,
 * commander's, the progress bar's, the SDK's log, whichever code writes them, so that no place
 * can forget to. Returns the function that puts the stream's own `write` back.
 *
 * Each write is redacted on its own: the bin and its libraries write a line (or the bar's line)
 * in one call, so a secret is never split across two. Bytes are read as one UTF-8 stream: a
 * character split across two writes is held back until the write that ends it, so that neither
 * half hides (or mangles) a secret around it.
 *
 * @example
 * ```ts
 * const release = redactWrites(process.stderr)
 * ```
 */
export function redactWrites(stream: NodeJS.WriteStream): () => void {
  const own = stream.write as (...args: unknown[]) => boolean;
  /** The bytes of a character the last write of bytes began and did not end (0 to 3). */
  let unfinished = new Uint8Array(0);
  const write = (chunk: unknown, ...rest: unknown[]): boolean => {
    let shown = chunk;
    if (known.length > 0 && typeof chunk === 'string') shown = redacted(chunk);
    else if (known.length > 0 && chunk instanceof Uint8Array) {
      const bytes = unfinished.length > 0 ? Buffer.concat([unfinished, chunk]) : chunk;
      const whole = bytes.subarray(0, bytes.length - cutOff(bytes));
      unfinished = bytes.slice(whole.length);
      // Bytes are shown as they were unless they held a secret.
      const text = decoder.decode(whole);
      const safe = redacted(text);
      shown = safe === text ? whole : safe;
    }
    return own.call(stream, shown, ...rest);
  };
  stream.write = write as NodeJS.WriteStream['write'];
  return () => {
    if (stream.write === write) stream.write = own as NodeJS.WriteStream['write'];
  };
}

const decoder = new TextDecoder();
