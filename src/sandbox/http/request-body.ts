/**
 * Reads a request's fields as Laravel's `$request->all()` does, and never throws: a body the
 * framework cannot decode (JSON that does not parse, is not an object or is not UTF-8; a form or
 * multipart body that does not parse; a content type that is neither) reads as no fields, so
 * the route answers the usual 422 of "required" messages, as golden capture `send_malformed_json`
 * shows the real service doing. A field that decodes but that the service refuses (a NUL, bytes
 * that are not UTF-8) is kept, for text-rules.ts to refuse on that field.
 */
import { isPlainObject } from '../../internal/values/is-plain-object.js';
import { type FormEntry, parseMultipart } from './multipart.js';
import { isWellFormed, MalformedText } from './text-rules.js';

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const LOSSY_UTF8 = new TextDecoder('utf-8');
/** PHP's json_decode gives up past this nesting depth (its default `$depth`). */
const MAX_JSON_DEPTH = 512;

/**
 * The request's fields, with empty strings and nulls as absent (Laravel's
 * ConvertEmptyStringsToNull). JSON is read when the content type says `/json` or `+json`
 * (Laravel's `isJson()`), form fields for `multipart/form-data` and
 * `application/x-www-form-urlencoded` (what PHP parses into `$_POST`); any other body is ignored.
 */
export async function readInput(request: Request): Promise<Record<string, unknown>> {
  const type = request.headers.get('content-type')?.toLowerCase() ?? '';
  const kind = type.includes('/json') || type.includes('+json') ? 'json' : formKind(type);
  if (kind === undefined) return {};
  // A body that breaks off (the client went away) reads as empty: nobody waits for the answer.
  const bytes = await request.arrayBuffer().then(
    (buffer) => new Uint8Array(buffer),
    () => new Uint8Array(),
  );
  const entries: readonly (readonly [string, unknown])[] =
    kind === 'json'
      ? Object.entries(readJson(bytes) ?? {})
      : kind === 'multipart'
        ? (parseMultipart(bytes, request.headers.get('content-type') ?? '') ?? [])
        : readUrlEncoded(bytes);
  // Object.fromEntries defines own properties: a field named `__proto__` stays a field.
  return Object.fromEntries(entries.filter(([, value]) => value !== '' && value !== null));
}

function formKind(type: string): 'multipart' | 'urlencoded' | undefined {
  if (type.startsWith('multipart/form-data')) return 'multipart';
  if (type.startsWith('application/x-www-form-urlencoded')) return 'urlencoded';
  return undefined;
}

/**
 * A JSON object as PHP's json_decode reads one, or undefined where it returns null: bytes that
 * are not UTF-8 (a BOM included), a syntax error, an escaped lone surrogate anywhere (`"\ud800"`,
 * JSON_ERROR_UTF16), nesting past 512. A JSON value that is not an object has no named fields.
 */
export function readJson(bytes: Uint8Array): Record<string, unknown> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(STRICT_UTF8.decode(bytes));
  } catch {
    return undefined;
  }
  if (!isPlainObject(parsed) || !decodable(parsed)) return undefined;
  return parsed;
}

/** True when every string of `root`, keys included, is well-formed and it nests at most 512 deep. */
function decodable(root: unknown): boolean {
  // Iterative, so that a deeply nested body cannot overflow the stack before the depth check.
  const stack: [unknown, number][] = [[root, 1]];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const [value, depth] = item;
    if (typeof value === 'string') {
      if (!isWellFormed(value)) return false;
    } else if (typeof value === 'object' && value !== null) {
      if (depth > MAX_JSON_DEPTH) return false;
      for (const [key, child] of Object.entries(value)) {
        if (!Array.isArray(value) && !isWellFormed(key)) return false;
        stack.push([child, depth + 1]);
      }
    }
  }
  return true;
}

/**
 * `a=1&b=%FF` as PHP's parse_str reads it: `+` is a space, `%XX` a byte (a bad escape stays as
 * written), and a value whose bytes are not UTF-8 is kept as MalformedText.
 */
function readUrlEncoded(bytes: Uint8Array): FormEntry[] {
  const entries: FormEntry[] = [];
  for (const pair of Buffer.from(bytes).toString('latin1').split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = LOSSY_UTF8.decode(percentDecode(eq < 0 ? pair : pair.slice(0, eq)));
    const raw = percentDecode(eq < 0 ? '' : pair.slice(eq + 1));
    let value: string | MalformedText;
    try {
      value = STRICT_UTF8.decode(raw);
    } catch {
      value = new MalformedText(LOSSY_UTF8.decode(raw));
    }
    entries.push([name, value]);
  }
  return entries;
}

/** The bytes a form-encoded latin1 string stands for. */
function percentDecode(text: string): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    const hex = char === '%' ? text.slice(i + 1, i + 3) : '';
    if (/^[0-9a-f]{2}$/i.test(hex)) {
      out.push(Number.parseInt(hex, 16));
      i += 2;
    } else out.push(char === '+' ? 0x20 : text.charCodeAt(i));
  }
  return Uint8Array.from(out);
}
