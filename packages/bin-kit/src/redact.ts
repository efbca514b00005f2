/**
 * Redaction by what a value is, not by one spelling of it: a secret (an API key, a bearer token, a
 * webhook secret) is found in a text raw, JSON-escaped, percent-encoded (either case, in part or
 * byte by byte), with `+` for space, in base64 or base64url (alone or inside a larger blob, such
 * as `Basic` credentials), or in hex, of its UTF-8 or its UTF-16 (little- or big-endian) bytes,
 * and in those nested (a percent-encoded base64 header; percent-encoding repeated any number of
 * times: `%2541` is `%41` encoded again, and `%252525...41` is undone in one pass however deep),
 * in a path, a query, a header or a body. Every run of text that decodes to something holding a secret
 * is replaced whole: what is left cannot be decoded back to it. Percent-encoding's own undoing is
 * percent.ts's.
 */
import { percentForms, percentSpans } from './percent.js';

/** What a secret is replaced with wherever it would appear. */
export const REDACTED = '[redacted]';

/**
 * Runs of text an encoder makes (URL-safe characters, `%XX`, base64's `+/=`): each is decoded as
 * a whole. `=` only at a run's end, where base64 pads, so `token=Tok%2Ben` is `token=` and `Tok%2Ben`.
 */
const RUN = /[A-Za-z0-9%+/_.~-]+={0,2}/g;

/**
 * How deep encodings are undone inside each other (base64 in percent-encoding is 2; a repeated
 * percent-encoding is undone whole, as one).
 */
const DEPTH = 3;

/**
 * `text` with every secret of `secrets`, in any of the spellings above, replaced by `[redacted]`.
 * Empty secrets are ignored.
 *
 * @example
 * ```ts
 * redactSecrets('POST /mcp?token=Tok%2Ben', ['Tok+en']) // 'POST /mcp?token=[redacted]'
 * ```
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  const wanted = secrets.filter((secret) => secret !== '');
  if (wanted.length === 0) return text;
  let shown = text;
  // As written, and JSON-escaped once or twice (a JSON body quoted in a log line's fields).
  for (const secret of wanted) {
    const once = jsonEscaped(secret);
    for (const spelling of new Set([secret, once, jsonEscaped(once)])) {
      if (shown.includes(spelling)) shown = shown.replaceAll(spelling, REDACTED);
    }
  }
  // Percent-encoded, in part or whole, either case, `+` for a space or not: wherever it starts.
  shown = withoutPercentEncoded(withoutPercentEncoded(shown, wanted, false), wanted, true);
  // Base64, base64url, hex, and those inside a percent-encoding: each run decoded whole.
  return shown.replace(RUN, (run) => (holdsSecret(run, wanted, DEPTH) ? REDACTED : run));
}

const jsonEscaped = (text: string) => JSON.stringify(text).slice(1, -1);

/**
 * `text` with every span that percent-decodes (`plus`: with `+` as a space), once or layer upon
 * layer, to a secret replaced. Each layer's characters remember the span of `text` they came
 * from, so a secret is found whatever it is next to and however much of it was encoded.
 */
function withoutPercentEncoded(text: string, secrets: readonly string[], plus: boolean): string {
  if (!text.includes('%') && !(plus && text.includes('+'))) return text;
  const spans = percentSpans(text, secrets, plus);
  if (spans.length === 0) return text;
  spans.sort((a, b) => a[0] - b[0]);
  let shown = '';
  let kept = 0;
  for (const [start, end] of spans) {
    if (end <= kept) continue;
    shown += `${text.slice(kept, Math.max(kept, start))}${start >= kept ? REDACTED : ''}`;
    kept = end;
  }
  return shown + text.slice(kept);
}

/**
 * True when `text`, or something it decodes to, holds one of `secrets`.
 *
 * @example
 * ```ts
 * holdsSecret('VG9rK2Vu', ['Tok+en'], 2) // true (base64)
 * ```
 */
export function holdsSecret(text: string, secrets: readonly string[], depth = DEPTH): boolean {
  // No encoding here makes a text shorter: what is shorter than every secret holds none.
  const shortest = Math.min(...secrets.filter((secret) => secret !== '').map((secret) => secret.length));
  if (text.length < shortest) return false;
  for (const piece of piecesOf(text)) {
    if (piece.length < shortest) continue;
    for (const form of decodedForms(piece)) {
      if (secrets.some((secret) => secret !== '' && form.includes(secret))) return true;
      // Only what an encoding was undone in is looked into again.
      if (depth > 0 && form !== piece) {
        for (const run of form.match(RUN) ?? []) if (holdsSecret(run, secrets, depth - 1)) return true;
      }
    }
  }
  return false;
}

/**
 * `text` and what it reads as once one encoding is undone: percent-decoded (with and without `+`
 * as a space), base64 or base64url, hex. Forms that are not text (invalid UTF-8) are left out.
 *
 * @example
 * ```ts
 * decodedForms('a%2Bb') // ['a%2Bb', 'a+b', ...]
 * ```
 */
export function decodedForms(text: string): string[] {
  const forms = new Set<string>([text]);
  if (text.includes('%')) {
    for (const form of percentForms(text)) forms.add(form);
  } else if (text.includes('+')) forms.add(text.replaceAll('+', ' '));
  const bare = text.replace(/=+$/, '');
  if (/^[A-Za-z0-9+/_-]{2,}$/.test(bare)) {
    const bytes = Buffer.from(bare.replaceAll('-', '+').replaceAll('_', '/'), 'base64');
    addText(forms, bytes);
  }
  if (/^(?:[0-9a-f]{2})+$/i.test(text)) addText(forms, Buffer.from(text, 'hex'));
  return [...forms];
}

/**
 * A run and where an encoded value may start inside it: after each `/`, `.` or `~` (a path's
 * segments: base64 is decoded from its first character, so `/mcp/VG9r...` is tried from `VG9r`).
 * Base64 decodes four characters at a time, so from two starts four apart in one stretch of its
 * alphabet the later decoding is the tail of the earlier: each stretch is decoded from at most
 * four starts, one a remainder, and the pieces stay linear in the run, whatever its separators
 * (`/a/a/a...`, from anyone who can reach a logged URL, made this quadratic).
 */
function piecesOf(run: string): string[] {
  const pieces = new Set<string>([run]);
  for (const found of run.matchAll(/[A-Za-z0-9+/_-]{2,}/g)) {
    const stretch = found[0];
    const tried = new Set<number>();
    for (let start = 0; start !== 0 || tried.size === 0; start = stretch.indexOf('/', start) + 1) {
      if (!tried.has(start % 4)) {
        tried.add(start % 4);
        pieces.add(stretch.slice(start));
      }
      if (tried.size === 4) break;
    }
  }
  for (const segment of run.split(/[/.~]/)) pieces.add(segment);
  pieces.delete('');
  return [...pieces];
}

/**
 * Adds `bytes` to `forms` as text: UTF-8 (a secret inside binary bytes stays whole), Latin-1, and
 * UTF-16 little- and big-endian from each of the two byte offsets (a secret's UTF-16 may start at
 * an odd byte of a larger blob).
 */
function addText(forms: Set<string>, bytes: Buffer): void {
  forms.add(bytes.toString('utf8'));
  forms.add(bytes.toString('latin1'));
  for (const start of [0, 1]) {
    const even = bytes.subarray(start, start + ((bytes.length - start) & ~1));
    if (even.length < 2) continue;
    forms.add(even.toString('utf16le'));
    forms.add(Buffer.from(even).swap16().toString('utf16le'));
  }
}

/**
 * `value` with every secret of `secrets` redacted from every string it holds, object keys
 * included, at any depth: one function for everything a bin outputs as data (an MCP tool's
 * `structuredContent` as well as its text). Numbers, booleans and null are kept; a value that
 * is not an object (a function, a symbol, a bigint) becomes its redacted `String()`; an object
 * is walked by its own enumerable keys (a `Date` or a `Map` reads as `{}`: results are JSON).
 *
 * @example
 * ```ts
 * redactDeep({ log: { content: 'key tm_live_x' } }, ['tm_live_x']) // { log: { content: 'key [redacted]' } }
 * ```
 */
export function redactDeep<T>(value: T, secrets: readonly string[]): T {
  if (secrets.every((secret) => secret === '')) return value;
  const seen = new WeakMap<object, unknown>();
  const walk = (item: unknown): unknown => {
    if (typeof item === 'string') return redactSecrets(item, secrets);
    if (item === null || typeof item === 'number' || typeof item === 'boolean' || item === undefined) return item;
    if (typeof item !== 'object') return redactSecrets(String(item), secrets);
    if (seen.has(item)) return seen.get(item);
    if (Array.isArray(item)) {
      const copy: unknown[] = [];
      seen.set(item, copy);
      for (const element of item) copy.push(walk(element));
      return copy;
    }
    const copy: Record<string, unknown> = {};
    seen.set(item, copy);
    for (const [key, child] of Object.entries(item)) {
      Object.defineProperty(copy, redactSecrets(key, secrets), {
        value: walk(child),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return copy;
  };
  return walk(value) as T;
}

/**
 * The secrets a bin's environment holds, by the names the SDK and the bins read them: the API key,
 * the MCP server's bearer token, and any variable whose name ends in `WEBHOOK_SECRET` (as the
 * SDK's examples name them).
 *
 * @example
 * ```ts
 * const secrets = [...secretsInEnv(process.env), ...credentials.secrets]
 * ```
 */
export function secretsInEnv(env: NodeJS.ProcessEnv): string[] {
  return Object.entries(env)
    .filter(([name]) => SECRET_NAMES.includes(name) || name.endsWith('WEBHOOK_SECRET'))
    .map(([, value]) => value?.trim() ?? '')
    .filter((value) => value !== '');
}

/** The variables that always hold a secret. */
const SECRET_NAMES: readonly string[] = ['TENANT_MESSAGING_API_KEY', 'TENANT_MESSAGING_MCP_TOKEN'];
