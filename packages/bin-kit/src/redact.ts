/**
 * Redaction by what a value is, not by one spelling of it: a secret (an API key, a bearer token, a
 * webhook secret) is found in a text raw, JSON-escaped, percent-encoded (either case, in part or
 * byte by byte), with `+` for space, in base64 or base64url (alone or inside a larger blob, such
 * as `Basic` credentials), or in hex, and in those nested (a percent-encoded base64 header), in a
 * path, a query, a header or a body. Every run of text that decodes to something holding a secret
 * is replaced whole: what is left cannot be decoded back to it.
 */

/** What a secret is replaced with wherever it would appear. */
export const REDACTED = '[redacted]';

/**
 * Runs of text an encoder makes (URL-safe characters, `%XX`, base64's `+/=`): each is decoded as
 * a whole. `=` only at a run's end, where base64 pads, so `token=Tok%2Ben` is `token=` and `Tok%2Ben`.
 */
const RUN = /[A-Za-z0-9%+/_.~-]+={0,2}/g;

/** How deep encodings are undone inside each other (base64 in percent-encoding is 2). */
const DEPTH = 2;

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
 * `text` with every span that percent-decodes (`plus`: with `+` as a space) to a secret replaced.
 * The text is decoded once, each decoded character remembering the span it came from (a run of
 * `%XX` decodes as one), so a secret is found whatever it is next to and however much of it was
 * encoded.
 */
function withoutPercentEncoded(text: string, secrets: readonly string[], plus: boolean): string {
  if (!text.includes('%') && !(plus && text.includes('+'))) return text;
  let decoded = '';
  const from: number[] = [];
  const to: number[] = [];
  const escapes = /(?:%[0-9A-Fa-f]{2})+/y;
  for (let at = 0; at < text.length; ) {
    escapes.lastIndex = at;
    const run = escapes.exec(text)?.[0];
    const piece = run ? Buffer.from(run.replaceAll('%', ''), 'hex').toString('utf8') : (text[at] as string);
    const end = at + (run?.length ?? 1);
    // Only a `+` as written is a space: `%2B` is a plus sign.
    decoded += plus && run === undefined && piece === '+' ? ' ' : piece;
    for (let i = 0; i < piece.length; i++) {
      from.push(at);
      to.push(end);
    }
    at = end;
  }
  const spans: [number, number][] = [];
  for (const secret of secrets) {
    for (let i = decoded.indexOf(secret); i !== -1; i = decoded.indexOf(secret, i + 1)) {
      spans.push([from[i] as number, to[i + secret.length - 1] as number]);
    }
  }
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
    forms.add(percentDecoded(text));
    forms.add(percentDecoded(text.replaceAll('+', ' ')));
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

/** Adds `bytes` as UTF-8 text to `forms` (a secret inside binary bytes stays whole) and as Latin-1. */
function addText(forms: Set<string>, bytes: Buffer): void {
  forms.add(bytes.toString('utf8'));
  forms.add(bytes.toString('latin1'));
}

/** `%XX` sequences as the UTF-8 bytes they stand for; a stray `%` is kept. Never throws. */
function percentDecoded(text: string): string {
  return text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => Buffer.from(run.replaceAll('%', ''), 'hex').toString('utf8'));
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
