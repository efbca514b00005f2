/**
 * What of an endpoint's URL may be shown. Its credentials, query and fragment may hold a token, so
 * reports, logs, errors and the datastore carry only its origin and path, and every text that came
 * from elsewhere (fetch's errors, which may quote the URL) is scrubbed before it is kept or shown.
 */

/** Put where a part of a URL that may hold a token was. */
const HIDDEN = '…';

/** A URL inside a text: a scheme, `://`, and everything up to white space or a quote. */
const URL_IN_TEXT = /[a-z][a-z\d+.-]*:\/\/[^\s"'<>`]+/gi;

/**
 * An endpoint's URL as reports, logs and errors show it: its origin and path, without its
 * credentials, query or fragment (any of them may hold a token). A URL that has none of them is
 * shown as it was given.
 *
 * @example
 * ```ts
 * shownUrl('https://crm.example.com/hooks?token=abc') // 'https://crm.example.com/hooks'
 * ```
 */
export function shownUrl(url: string): string {
  const parsed = URL.parse(url);
  if (!parsed) return '(not a valid URL)';
  const plain = parsed.username === '' && parsed.password === '' && !url.includes('?') && !url.includes('#');
  return plain ? url : `${parsed.origin}${parsed.pathname}`;
}

/**
 * A text from elsewhere (an error of fetch or of the network), cleaned of what `url` may hide:
 * `url` itself becomes its shown form; then every piece of its credentials, query and fragment
 * still in the text (as written, or decoded: a message may quote the URL decoded, spaces and
 * all) becomes `…`; then any URL left keeps only its scheme, host and path. A piece that is part of
 * the shown URL hides nothing, and is left.
 *
 * @example
 * ```ts
 * scrubbedText('connect failed: https://x.example/h?token=abc', 'https://x.example/h?token=abc')
 * // 'connect failed: https://x.example/h'
 * ```
 */
export function scrubbedText(text: string, url: string): string {
  const shown = shownUrl(url);
  const parsed = URL.parse(url);
  let result = text;
  for (const whole of longestFirst([url, url.trim(), parsed?.href ?? ''])) result = result.split(whole).join(shown);
  // Pieces before URLs: a URL quoted decoded ends at its first space, and the rest of a token
  // would be left after it.
  for (const piece of longestFirst(hiddenPieces(url, parsed))) {
    if (!shown.includes(piece)) result = result.split(piece).join(HIDDEN);
  }
  return result.replace(URL_IN_TEXT, (found) => {
    const other = URL.parse(found);
    return other ? `${other.protocol}//${other.host}${other.pathname}` : HIDDEN;
  });
}

/** Every piece of a URL that may hold a token: its credentials, its query (each name and value) and its fragment, as written and decoded. */
function hiddenPieces(url: string, parsed: URL | null): string[] {
  const pieces: string[] = [];
  const written = (from: string) => {
    pieces.push(from);
    for (const part of from.split(/[&;=]/)) pieces.push(part, ...decoded(part));
  };
  const query = url.indexOf('?');
  const fragment = url.indexOf('#');
  if (fragment >= 0) written(url.slice(fragment + 1));
  if (query >= 0 && (fragment < 0 || query < fragment))
    written(url.slice(query + 1, fragment < 0 ? undefined : fragment));
  if (parsed) {
    for (const part of [parsed.username, parsed.password]) pieces.push(part, ...decoded(part));
    written(parsed.search.slice(1));
    written(parsed.hash.slice(1));
    for (const [name, value] of parsed.searchParams) pieces.push(name, value);
  }
  return pieces;
}

/** A piece as a message may quote it decoded: with `%XX` read, and with `+` as a space too (as a query is read). */
function decoded(text: string): string[] {
  const read = (from: string) => {
    try {
      return decodeURIComponent(from);
    } catch {
      return from;
    }
  };
  return [read(text), read(text.replaceAll('+', ' '))];
}

/** The distinct non-empty texts, longest first: a longer piece is hidden whole before a shorter one inside it. */
function longestFirst(texts: readonly string[]): string[] {
  return [...new Set(texts)].filter((text) => text !== '').sort((a, b) => b.length - a.length);
}
