/**
 * For the tests of both bins' redaction: the ways a client or a library may spell a secret
 * (ENCODINGS), and every way a test decodes a line to look for a secret in it (decodings), written
 * apart from the bin kit's redaction: JSON-unescaped (once, twice), percent-decoded (with and
 * without `+` for a space), and base64, base64url or hex from every offset of every run that
 * could be one.
 */

const utf8 = (text: string) => Buffer.from(text, 'utf8');
const hexEach = (text: string) => [...utf8(text)].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');
const lowerEscapes = (text: string) => text.replace(/%[0-9A-F]{2}/g, (sequence) => sequence.toLowerCase());
const mixedEscapes = (text: string) =>
  text.replace(/%([0-9A-F])([0-9A-F])/g, (_, high: string, low: string) => `%${high}${low.toLowerCase()}`);

const utf16le = (text: string) => Buffer.from(text, 'utf16le');
const utf16be = (text: string) => Buffer.from(text, 'utf16le').swap16();
/** `encodeURIComponent` applied `times` times (a URL built from a URL). */
const percentTimes = (times: number) => (text: string) => {
  let encoded = text;
  for (let i = 0; i < times; i++) encoded = encodeURIComponent(encoded);
  return encoded;
};

/** How a secret may be spelled, by a client or a library: 22 encodings. */
export const ENCODINGS: Readonly<Record<string, (secret: string) => string>> = {
  raw: (secret) => secret,
  percent: encodeURIComponent,
  'percent, lower case': (secret) => lowerEscapes(encodeURIComponent(secret)),
  'percent, mixed case': (secret) => mixedEscapes(encodeURIComponent(secret)),
  'percent, every byte (hex)': (secret) => hexEach(secret).toUpperCase(),
  'percent, every byte, lower case': hexEach,
  'form (+ for space)': (secret) => new URLSearchParams({ s: secret }).toString().slice(2),
  base64: (secret) => utf8(secret).toString('base64'),
  'base64 unpadded': (secret) => utf8(secret).toString('base64').replace(/=+$/, ''),
  base64url: (secret) => utf8(secret).toString('base64url'),
  'basic credentials': (secret) => `Basic ${utf8(`user:${secret}`).toString('base64')}`,
  'percent-encoded base64': (secret) => encodeURIComponent(utf8(secret).toString('base64')),
  hex: (secret) => utf8(secret).toString('hex'),
  'percent, twice': percentTimes(2),
  'percent, 4 times': percentTimes(4),
  'percent, 70 times': percentTimes(70),
  'UTF-16LE hex': (secret) => utf16le(secret).toString('hex'),
  'UTF-16BE hex': (secret) => utf16be(secret).toString('hex'),
  'UTF-16LE base64': (secret) => utf16le(secret).toString('base64'),
  'UTF-16BE base64': (secret) => utf16be(secret).toString('base64'),
  'UTF-16LE base64url': (secret) => utf16le(secret).toString('base64url'),
  'percent-encoded UTF-16LE hex, twice': (secret) => percentTimes(2)(utf16le(secret).toString('hex').toUpperCase()),
};

/** `bytes` as every text they may be: UTF-8, Latin-1, UTF-16 either way from either byte. */
function textsOf(bytes: Buffer): string[] {
  const texts = [bytes.toString('utf8'), bytes.toString('latin1')];
  for (const start of [0, 1]) {
    const even = bytes.subarray(start, start + ((bytes.length - start) & ~1));
    texts.push(even.toString('utf16le'), Buffer.from(even).swap16().toString('utf16le'));
  }
  return texts;
}

/** `text` percent-decoded until nothing changes, however many times it was encoded. */
export function percentFully(text: string): string {
  let decoded = text;
  for (;;) {
    const next = percentDecoded(decoded, false);
    if (next === decoded) break;
    decoded = next;
  }
  return decoded;
}

/** `%XX` runs decoded as UTF-8 (a stray `%` kept), optionally with `+` as a space first. */
function percentDecoded(text: string, plus: boolean): string {
  const spaced = plus ? text.replaceAll('+', ' ') : text;
  return spaced.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => Buffer.from(run.replaceAll('%', ''), 'hex').toString('utf8'));
}

/**
 * Every way the test decodes `line`: as it is, percent-decoded, JSON-unescaped, and base64 or hex
 * from any offset. What a secret could be read from, each form once: a base64 decoding from an
 * offset 4 further on is the one before it less its first 3 bytes (Node's decoder stops at the
 * first `=`, so each `=`-free piece of a run is decoded from its first 4 offsets), and a secret
 * found in that shorter form is in the longer one too (it starts with a character, not with a
 * byte or code unit left over from the cut). Ask with `tracesOf`.
 */
export function decodings(line: string): string[] {
  const unescaped = (text: string) =>
    text.replace(/\\(u[0-9a-fA-F]{4}|["\\/bfnrt])/g, (sequence) => JSON.parse(`"${sequence}"`) as string);
  const texts = new Set(
    [line, unescaped(line), unescaped(unescaped(line))].flatMap((text) => [
      text,
      percentDecoded(text, false),
      percentDecoded(text, true),
      percentFully(text),
    ]),
  );
  const forms = new Set(texts);
  const runs = new Set([...texts].flatMap((text) => text.match(/[A-Za-z0-9+/_=-]{4,}/g) ?? []));
  for (const run of runs) {
    for (const piece of run.replaceAll('-', '+').replaceAll('_', '/').split('=')) {
      for (let offset = 0; offset < Math.min(4, piece.length); offset++) {
        for (const text of textsOf(Buffer.from(piece.slice(offset), 'base64'))) forms.add(text);
      }
    }
    if (/^[0-9a-f]+$/i.test(run)) {
      for (const offset of [0, 1]) for (const text of textsOf(Buffer.from(run.slice(offset), 'hex'))) forms.add(text);
    }
  }
  return [...forms];
}

/**
 * The decodings of `line` (see decodings) that hold one of `secrets`: none, where redaction did
 * its work. One assertion on the list, not one for each of thousands of forms.
 *
 * @example `expect(tracesOf(shown, [secret]), shown).toEqual([])`
 */
export function tracesOf(line: string, secrets: readonly string[]): string[] {
  return decodings(line).filter((form) => secrets.some((secret) => form.includes(secret)));
}
