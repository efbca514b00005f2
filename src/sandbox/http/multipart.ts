/**
 * A multipart/form-data parser that never throws: a body it cannot read whole (no boundary, a
 * boundary the body does not use, a part cut short, no closing delimiter, garbage) is undefined,
 * which the route reads as no fields at all, as PHP leaves `$_POST` empty. Why not the platform's
 * `Request.formData()`: it throws on those, and it decodes a text part's bad UTF-8 to U+FFFD, so
 * a field the service refuses would pass. Valid bodies read as the platform reads them (the
 * WHATWG multipart/form-data parser: quoted names with `%22`, `%0D`, `%0A` escapes, `filename*`).
 */
import { MalformedText } from './text-rules.js';

/** One part: its name and its value, text (or text that is not UTF-8) or a file. */
export type FormEntry = readonly [name: string, value: string | File | MalformedText];

const CRLF = [0x0d, 0x0a];
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const LOSSY_UTF8 = new TextDecoder('utf-8', { ignoreBOM: true });
/** Names are decoded as the platform decodes them: a leading BOM is dropped. */
const NAME_UTF8 = new TextDecoder('utf-8');

/** The `boundary` parameter of a multipart content type (quoted or not), or undefined. */
export function boundaryOf(contentType: string): string | undefined {
  const found = /;\s*boundary\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(contentType);
  const boundary = found?.[1] ?? found?.[2];
  return boundary ? boundary : undefined;
}

/** The entries of a multipart body, in order, or undefined when it does not parse whole. */
export function parseMultipart(body: Uint8Array, contentType: string): FormEntry[] | undefined {
  const boundary = boundaryOf(contentType);
  if (boundary === undefined) return undefined;
  const delimiter = Buffer.from(`--${boundary}`, 'latin1');
  const input = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const entries: FormEntry[] = [];
  // The preamble before the first delimiter is ignored (RFC 2046 section 5.1.1).
  let at = input.indexOf(delimiter);
  if (at < 0) return undefined;
  for (;;) {
    at += delimiter.length;
    if (input[at] === 0x2d && input[at + 1] === 0x2d) return entries; // the close; the epilogue is ignored
    while (input[at] === 0x20 || input[at] === 0x09) at++; // transport padding
    if (!startsWith(input, CRLF, at)) return undefined;
    // From `at`: a part with no header line at all ends its headers at once (and has no name).
    const headersEnd = input.indexOf('\r\n\r\n', at, 'latin1');
    if (headersEnd < 0) return undefined;
    const headers = readHeaders(input.subarray(at + 2, headersEnd + 2));
    if (headers === undefined) return undefined;
    const start = headersEnd + 4;
    const end = input.indexOf(Buffer.concat([Buffer.from(CRLF), delimiter]), start);
    if (end < 0) return undefined; // cut short: no delimiter after the part
    entries.push([headers.name, partValue(input.subarray(start, end), headers)]);
    at = end + 2;
  }
}

interface PartHeaders {
  name: string;
  filename: string | undefined;
  contentType: string | undefined;
}

/** A part's value: a File when it names a file, else its text (MalformedText when not UTF-8). */
function partValue(bytes: Buffer, headers: PartHeaders): string | File | MalformedText {
  if (headers.filename !== undefined) {
    const type = headers.contentType ?? 'text/plain';
    // As the platform does: a content type that is not ASCII is no content type.
    return new File([new Uint8Array(bytes)], headers.filename, { type: isAscii(type) ? type : '' });
  }
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    return new MalformedText(LOSSY_UTF8.decode(bytes));
  }
}

/** The header lines of a part (each ending in CRLF): its name, file name and content type. */
function readHeaders(block: Buffer): PartHeaders | undefined {
  let name: string | undefined;
  let filename: string | undefined;
  let contentType: string | undefined;
  for (const line of block.toString('latin1').split('\r\n').slice(0, -1)) {
    const colon = line.indexOf(':');
    const header = trimSpaces(line.slice(0, colon)).toLowerCase();
    if (colon < 0 || header === '' || ![...header].every(isNameChar)) return undefined;
    const value = trimSpaces(line.slice(colon + 1));
    if (header === 'content-type') contentType = value;
    if (header !== 'content-disposition') continue;
    const disposition = readDisposition(value);
    if (disposition === undefined) return undefined;
    ({ name, filename } = disposition);
  }
  return name === undefined ? undefined : { name, filename, contentType };
}

/**
 * `form-data; name="..."; filename="..."; filename*=utf-8''...`, from its latin1 reading, scanned
 * as the platform scans it: the `;` between parameters may be missing, and a quoted value ends
 * at the next `"` (browsers escape one as `%22`).
 */
function readDisposition(value: string): { name: string | undefined; filename: string | undefined } | undefined {
  let at = 0;
  const collect = (accept: (char: string) => boolean): string => {
    const from = at;
    while (at < value.length && accept(value[at] as string)) at++;
    return value.slice(from, at);
  };
  if (collect(isToken).toLowerCase() !== 'form-data') return undefined;
  let name: string | undefined;
  let filename: string | undefined;
  let extended: string | undefined;
  while (at < value.length) {
    if (value[at] === ';') at++;
    collect((char) => char === ' ' || char === '\t');
    const key = collect((char) => isToken(char) && char !== '*').toLowerCase();
    const isExtended = value[at] === '*';
    if (isExtended) at++;
    if (key === '' || value[at] !== '=') break;
    at++;
    collect((char) => char === ' ' || char === '\t');
    let text: string;
    if (isExtended) {
      const decoded = decodeExtended(collect((char) => char !== ' ' && char !== ';'));
      if (decoded === undefined) return undefined;
      if (key === 'filename') extended = decoded;
      continue;
    }
    if (value[at] === '"') {
      at++;
      const quoted = collect((char) => char !== '"');
      if (value[at] !== '"') return undefined;
      at++;
      text = fromLatin1(quoted).replace(/%0A/gi, '\n').replace(/%0D/gi, '\r').replace(/%22/g, '"');
    } else text = fromLatin1(collect((char) => isToken(char) && char !== ';'));
    if (key === 'name') name = text;
    else if (key === 'filename') filename = text;
  }
  // RFC 5987: the extended form wins over the plain one, in whichever order they come.
  return { name, filename: extended ?? filename };
}

/** A header name's character: an HTTP token's. */
function isNameChar(char: string): boolean {
  return /^[!#$%&'*+.^`|~\w-]$/.test(char);
}

/** A parameter's token character as the platform reads one: printable ASCII but for spaces and `()<>@,;:\\"/[]?=`. */
function isToken(char: string): boolean {
  return /^[!#$%&'*+.^`|~{}\w-]$/.test(char);
}

/** `utf-8'lang'percent-encoded` (RFC 5987), or undefined for another charset or a bad escape. */
function decodeExtended(raw: string): string | undefined {
  const found = /^utf-8'[^']*'(.*)$/i.exec(raw);
  if (!found) return undefined;
  try {
    return decodeURIComponent(fromLatin1(found[1] as string));
  } catch {
    return undefined;
  }
}

/** A header value read as latin1, back to its bytes and decoded as UTF-8 (U+FFFD for bad bytes). */
function fromLatin1(text: string): string {
  return NAME_UTF8.decode(Buffer.from(text, 'latin1'));
}

/** HTTP's optional whitespace (spaces and tabs) off both ends. */
function trimSpaces(text: string): string {
  return text.replace(/^[ \t]+|[ \t]+$/g, '');
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

function startsWith(input: Buffer, bytes: readonly number[], at: number): boolean {
  return bytes.every((byte, i) => input[at + i] === byte);
}
