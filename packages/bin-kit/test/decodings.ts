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

/** How a secret may be spelled, by a client or a library: 13 encodings. */
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
};

/** `%XX` runs decoded as UTF-8 (a stray `%` kept), optionally with `+` as a space first. */
function percentDecoded(text: string, plus: boolean): string {
  const spaced = plus ? text.replaceAll('+', ' ') : text;
  return spaced.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => Buffer.from(run.replaceAll('%', ''), 'hex').toString('utf8'));
}

/** Every way the test decodes `line`: as it is, percent-decoded, JSON-unescaped, and base64 or hex from any offset. */
export function decodings(line: string): string[] {
  const unescaped = (text: string) =>
    text.replace(/\\(u[0-9a-fA-F]{4}|["\\/bfnrt])/g, (sequence) => JSON.parse(`"${sequence}"`) as string);
  const texts = [line, unescaped(line), unescaped(unescaped(line))].flatMap((text) => [
    text,
    percentDecoded(text, false),
    percentDecoded(text, true),
  ]);
  const forms = [...texts];
  for (const text of texts) {
    for (const run of text.match(/[A-Za-z0-9+/_=-]{4,}/g) ?? []) {
      for (let offset = 0; offset < run.length; offset++) {
        const bytes = Buffer.from(run.slice(offset).replaceAll('-', '+').replaceAll('_', '/'), 'base64');
        forms.push(bytes.toString('utf8'), bytes.toString('latin1'));
      }
      if (/^[0-9a-f]+$/i.test(run)) {
        for (const offset of [0, 1]) forms.push(Buffer.from(run.slice(offset), 'hex').toString('utf8'));
      }
    }
  }
  return forms;
}
