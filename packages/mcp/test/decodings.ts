/**
 * Every way a test decodes a log line to look for a secret in it, written apart from the bin
 * kit's redaction: JSON-unescaped (once, twice), percent-decoded (with and without `+` for a
 * space), and base64, base64url or hex from every offset of every run that could be one.
 */

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
