/**
 * Percent-encoding undone for the redaction (redact.ts): once, layer by layer (`%25%34%31` is
 * `%41`, then `A`), and each escape straight to its innermost byte however many times it was
 * encoded again (`%252525...41` is `A`: an encoder turns `%` into `%25` each time), so a secret
 * percent-encoded any number of times is found, in one pass, wherever it starts.
 */

/**
 * How many times a percent-encoding is undone in a row, at most: each undoing shortens the text.
 * Repeated encoding as encoders make it (`%` becoming `%25` each time) is undone whole in one
 * pass whatever its depth (NESTED); the layers count what only layer by layer undoes (`%25%34%31`).
 */
const PERCENT_LAYERS = 16;

/** A run of `%XX` escapes (ONCE), or of escapes each encoded again any number of times (NESTED: `%` `25`... `XX`). */
const ONCE = /(?:%[0-9A-Fa-f]{2})+/y;
const NESTED = /(?:%(?:25)*[0-9A-Fa-f]{2})+/y;

/** The bytes a run of escapes stands for: each escape's last two hex digits (`%252541` is 0x41). */
const bytesOf = (run: string) =>
  Buffer.from(
    run
      .split('%')
      .slice(1)
      .map((sequence) => sequence.slice(-2))
      .join(''),
    'hex',
  );

/** One layer of percent-decoding, each decoded character remembering the span of `text` it came from. */
interface Layer {
  readonly decoded: string;
  readonly from: readonly number[];
  readonly to: readonly number[];
}

/**
 * `text` percent-decoded once (`plus`: a `+` as written is a space; `nested`: each escape to its
 * innermost byte, however many times it was encoded); a run of escapes decodes as one.
 */
function decodeLayer(text: string, plus: boolean, nested: boolean): Layer {
  let decoded = '';
  const from: number[] = [];
  const to: number[] = [];
  const escapes = new RegExp(nested ? NESTED : ONCE);
  for (let at = 0; at < text.length; ) {
    escapes.lastIndex = at;
    const run = escapes.exec(text)?.[0];
    const piece = run ? bytesOf(run).toString('utf8') : (text[at] as string);
    const end = at + (run?.length ?? 1);
    // Only a `+` as written is a space: `%2B` is a plus sign.
    decoded += plus && run === undefined && piece === '+' ? ' ' : piece;
    for (let i = 0; i < piece.length; i++) {
      from.push(at);
      to.push(end);
    }
    at = end;
  }
  return { decoded, from, to };
}

/**
 * The spans of `text` (UTF-16 indexes, end excluded) that percent-decode (`plus`: with `+` as a
 * space), once, layer upon layer or nested any depth, to one of `secrets`.
 *
 * @example
 * ```ts
 * percentSpans('t=Tok%252Ben', ['Tok+en'], false) // [[2, 12]]
 * ```
 */
export function percentSpans(text: string, secrets: readonly string[], plus: boolean): [number, number][] {
  const spans = spansOf(text, secrets, plus, false);
  // Without an escaped `%`, nothing was encoded twice: undoing nested escapes would find the same.
  if (text.includes('%25')) spans.push(...spansOf(text, secrets, plus, true));
  return spans;
}

/** The spans of `text` that decode (layer by layer, each as decodeLayer undoes one) to a secret. */
function spansOf(text: string, secrets: readonly string[], plus: boolean, nested: boolean): [number, number][] {
  const spans: [number, number][] = [];
  let layer: Layer = {
    decoded: text,
    // UTF-16 indexes, as the spans are (Array.from(text) would walk code points: an emoji shifts them).
    from: Array.from({ length: text.length }, (_, i) => i),
    to: Array.from({ length: text.length }, (_, i) => i + 1),
  };
  for (let depth = 0; depth < PERCENT_LAYERS; depth++) {
    const next = decodeLayer(layer.decoded, plus, nested);
    if (next.decoded === layer.decoded) break;
    // Back to spans of `text`: each character of this layer came from a span of the one before.
    const previous = layer;
    layer = {
      decoded: next.decoded,
      from: next.from.map((at) => previous.from[at] as number),
      to: next.to.map((end) => previous.to[end - 1] as number),
    };
    for (const secret of secrets) {
      for (let i = layer.decoded.indexOf(secret); i !== -1; i = layer.decoded.indexOf(secret, i + 1)) {
        spans.push([layer.from[i] as number, layer.to[i + secret.length - 1] as number]);
      }
    }
    if (!layer.decoded.includes('%')) break;
  }
  return spans;
}

/**
 * What `text` reads as once percent-decoded: once (with and without `+` as a space), and undone
 * until nothing changes, layer by layer and nested.
 *
 * @example
 * ```ts
 * percentForms('a%252Bb') // ['a%2Bb', 'a%2Bb', 'a+b', ...]
 * ```
 */
export function percentForms(text: string): string[] {
  const forms = [percentDecoded(text), percentDecoded(text.replaceAll('+', ' '))];
  // Encoded again and again (a URL built from a URL): undone until nothing changes.
  for (const nested of text.includes('%25') ? [false, true] : [false]) {
    let layers = text;
    for (let i = 0; i < PERCENT_LAYERS && layers.includes('%'); i++) {
      const next = percentDecoded(layers, nested);
      if (next === layers) break;
      layers = next;
    }
    forms.push(layers);
  }
  return forms;
}

/**
 * `%XX` sequences as the UTF-8 bytes they stand for (`nested`: each escape's innermost byte,
 * `%2541` as `A`); a stray `%` is kept. Never throws.
 */
function percentDecoded(text: string, nested = false): string {
  return text.replace(new RegExp(nested ? NESTED : ONCE, 'g'), (run) => bytesOf(run).toString('utf8'));
}
