/**
 * Percent-encoding undone for the redaction (redact.ts): once, layer by layer (`%25%34%31` is
 * `%41`, then `A`), and many layers at once however many times it was encoded again
 * (`%252525...41`: an encoder turns `%` into `%25` each time), so a secret percent-encoded any
 * number of times is found, in one pass a depth, wherever it starts. A secret's own `%` is one
 * layer deeper than the characters encoded with it (`%00` in a secret encoded d times is `%`,
 * d times `25`, `00`; a space is `%`, d - 1 times `25`, `20`): each depth the text shows is tried.
 */

/**
 * How many times a percent-encoding is undone in a row, at most: each undoing shortens the text.
 * Repeated encoding as encoders make it (`%` becoming `%25` each time) is undone in one step a
 * depth (DEPTHS); the layers count what only layer by layer undoes (`%25%34%31`).
 */
const PERCENT_LAYERS = 16;

/** How many depths of nested escapes are tried, at most: a text encoded n times shows two or three. */
const DEPTHS = 24;

/** A run of `%XX` escapes (ONCE), or of escapes each encoded again any number of times (NESTED: `%` `25`... `XX`). */
const ONCE = /(?:%[0-9A-Fa-f]{2})+/y;
const NESTED = /(?:%(?:25)*[0-9A-Fa-f]{2})+/y;

/**
 * What a run of escapes reads as once `layers` layers are undone: an escape encoded `layers`
 * times or more keeps the rest of its `25`s (`%252541` less one layer is `%2541`); the others
 * are their innermost byte, consecutive bytes decoded as UTF-8 together.
 */
function undoRun(run: string, layers: number): string {
  let text = '';
  let bytes = '';
  const flush = () => {
    text += Buffer.from(bytes, 'hex').toString('utf8');
    bytes = '';
  };
  for (const sequence of run.split('%').slice(1)) {
    const nesting = (sequence.length - 2) / 2;
    if (nesting >= layers) {
      flush();
      text += `%${'25'.repeat(nesting - layers)}${sequence.slice(-2)}`;
    } else bytes += sequence.slice(-2);
  }
  flush();
  return text;
}

/** One step of percent-decoding, each decoded character remembering the span of `text` it came from. */
interface Layer {
  readonly decoded: string;
  readonly from: readonly number[];
  readonly to: readonly number[];
}

/**
 * `text` percent-decoded one layer (`layers` 1), or `layers` layers at once from every escape
 * encoded again (`%` `25`... `XX`); `plus`: a `+` as written is a space. A run of escapes
 * decodes as one.
 */
function decodeLayer(text: string, plus: boolean, layers: number): Layer {
  let decoded = '';
  const from: number[] = [];
  const to: number[] = [];
  const escapes = new RegExp(layers > 1 ? NESTED : ONCE);
  for (let at = 0; at < text.length; ) {
    escapes.lastIndex = at;
    const run = escapes.exec(text)?.[0];
    const piece = run ? undoRun(run, layers) : (text[at] as string);
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
 * The numbers of layers worth undoing at once in `text`: for each depth of nesting its escapes
 * show (`%2525XX` is 2), that depth and one more (the characters encoded with a secret's own `%`
 * are one layer shallower), and up to `below` fewer (a secret's own `%2541` adds its `25` to the
 * depth the encoder gave it). Empty when nothing was encoded twice.
 */
function depthsOf(text: string, below = 0): number[] {
  const depths = new Set<number>();
  for (const [, nested] of text.matchAll(/%((?:25)+)[0-9A-Fa-f]{2}/g)) {
    const nesting = (nested as string).length / 2;
    for (let layers = nesting - below; layers <= nesting + 1; layers++) if (layers > 1) depths.add(layers);
    if (depths.size >= DEPTHS) break;
  }
  return [...depths];
}

/** How many `25`s the deepest escape written in one of `secrets` holds (`%2541` 1, `%41` 0); -1 for none. */
function ownNesting(secrets: readonly string[]): number {
  let deepest = -1;
  for (const secret of secrets) {
    for (const [, nested] of secret.matchAll(/%((?:25)*)[0-9A-Fa-f]{2}/g)) {
      deepest = Math.max(deepest, (nested as string).length / 2);
    }
  }
  return deepest;
}

/**
 * The spans of `text` (UTF-16 indexes, end excluded) that percent-decode (`plus`: with `+` as a
 * space), once, layer upon layer or many layers at once, to one of `secrets`.
 *
 * @example
 * ```ts
 * percentSpans('t=Tok%252Ben', ['Tok+en'], false) // [[2, 12]]
 * ```
 */
export function percentSpans(text: string, secrets: readonly string[], plus: boolean): [number, number][] {
  const spans = spansOf(text, secrets, plus, 1);
  // A secret's own escape reads one `25` deeper than its nesting (`%41` encoded d times shows d).
  for (const layers of depthsOf(text, ownNesting(secrets) + 1)) spans.push(...spansOf(text, secrets, plus, layers));
  return spans;
}

/**
 * The spans of `text` that decode to a secret: `first` layers undone at once, then layer by layer
 * (each as decodeLayer undoes one).
 */
function spansOf(text: string, secrets: readonly string[], plus: boolean, first: number): [number, number][] {
  const spans: [number, number][] = [];
  let layer: Layer = {
    decoded: text,
    // UTF-16 indexes, as the spans are (Array.from(text) would walk code points: an emoji shifts them).
    from: Array.from({ length: text.length }, (_, i) => i),
    to: Array.from({ length: text.length }, (_, i) => i + 1),
  };
  for (let depth = 0; depth < PERCENT_LAYERS; depth++) {
    const next = decodeLayer(layer.decoded, plus, depth === 0 ? first : 1);
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
 * until nothing changes, layer by layer and from each depth of nesting it shows.
 *
 * @example
 * ```ts
 * percentForms('a%252Bb') // ['a%2Bb', 'a%2Bb', 'a+b', ...]
 * ```
 */
export function percentForms(text: string): string[] {
  const forms = [percentDecoded(text, 1), percentDecoded(text.replaceAll('+', ' '), 1)];
  // Encoded again and again (a URL built from a URL): undone until nothing changes.
  for (const first of [1, ...depthsOf(text)]) {
    let layers = percentDecoded(text, first);
    for (let i = 1; i < PERCENT_LAYERS && layers.includes('%'); i++) {
      const next = percentDecoded(layers, 1);
      if (next === layers) break;
      layers = next;
    }
    forms.push(layers);
  }
  return forms;
}

/** `text` with `layers` layers of percent-encoding undone (decodeLayer's); a stray `%` is kept. Never throws. */
function percentDecoded(text: string, layers: number): string {
  return text.replace(new RegExp(layers > 1 ? NESTED : ONCE, 'g'), (run) => undoRun(run, layers));
}
