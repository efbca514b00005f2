/**
 * Hostile inputs, as data (so a counterexample prints readably) and the objects built from them:
 * Proxies whose traps throw, getters that throw or change their answer, media sources that fail
 * at a given byte, and odd ids.
 */
import { Readable } from 'node:stream';
import fc from 'fast-check';

/** What a hostile trap or getter throws: not always an Error, not always printable. */
export type Thrown = 'error' | 'string' | 'undefined' | 'bad-toString' | 'proxy';

export type Hostility =
  | { readonly kind: 'none' }
  | {
      readonly kind: 'proxy';
      readonly trap: 'ownKeys' | 'get' | 'getOwnPropertyDescriptor' | 'has' | 'getPrototypeOf';
      /** The trap works this many times, then throws. */
      readonly after: number;
      readonly thrown: Thrown;
    }
  | {
      readonly kind: 'getter';
      readonly field: string;
      readonly mode: 'throw' | 'flip';
      readonly after: number;
      readonly thrown: Thrown;
    };

export interface MediaRecipe {
  readonly source: 'readable' | 'iterable' | 'web' | 'blob';
  readonly size: number;
  readonly chunk: number;
  /** The byte at which the source fails; null: it does not. */
  readonly failAt: number | null;
  readonly declared: 'none' | 'exact' | 'less' | 'more';
  /** What the source fails with. */
  readonly thrown: Thrown;
}

const thrown = fc.constantFrom<Thrown>('error', 'string', 'undefined', 'bad-toString', 'proxy');

export function hostility(fields: readonly string[]): fc.Arbitrary<Hostility> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant({ kind: 'none' as const }) },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('proxy' as const),
        trap: fc.constantFrom(
          'ownKeys' as const,
          'get' as const,
          'getOwnPropertyDescriptor' as const,
          'has' as const,
          'getPrototypeOf' as const,
        ),
        after: fc.integer({ min: 0, max: 6 }),
        thrown,
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('getter' as const),
        field: fc.constantFrom(...fields),
        mode: fc.constantFrom('throw' as const, 'flip' as const),
        after: fc.integer({ min: 0, max: 3 }),
        thrown,
      }),
    },
  );
}

export const mediaRecipe: fc.Arbitrary<MediaRecipe> = fc.record({
  source: fc.constantFrom('readable' as const, 'iterable' as const, 'web' as const, 'blob' as const),
  size: fc.integer({ min: 0, max: 300_000 }),
  chunk: fc.integer({ min: 1, max: 70_000 }),
  failAt: fc.option(fc.integer({ min: 0, max: 300_000 }), { freq: 2 }),
  declared: fc.constantFrom('none' as const, 'exact' as const, 'less' as const, 'more' as const),
  thrown,
});

/** Ids the SDK must refuse (or accept) without a crash. */
export const hostileId = fc.constantFrom<unknown>(42, 42, 0, -1, 1.5, Number.NaN, 2 ** 53, '42', null, {
  valueOf: () => 42,
});

function makeThrown(kind: Thrown): unknown {
  switch (kind) {
    case 'error':
      return new Error('hostile input');
    case 'string':
      return 'hostile input';
    case 'undefined':
      return undefined;
    case 'bad-toString':
      return {
        toString() {
          throw new Error('cannot be shown');
        },
      };
    case 'proxy':
      return new Proxy(
        {},
        {
          get() {
            throw new Error('hostile thrown proxy');
          },
          getPrototypeOf() {
            throw new Error('hostile thrown proxy');
          },
        },
      );
  }
}

/** The alternative value a flipping getter gives every other read. */
const FLIPPED: Record<string, unknown> = {
  content: 42,
  to_phone: '',
  type: 'image',
  sender_phone: null,
  media: 'not media',
  phone: 7,
  timeout: -1,
  maxRetries: 99,
  interval: 0,
  page: { toString: () => '1' },
  until: 'never',
  onUpdate: 'not a function',
};

/** `base` made hostile as the recipe says. */
export function build(base: Record<string, unknown>, h: Hostility): Record<string, unknown> {
  if (h.kind === 'none') return base;
  if (h.kind === 'proxy') {
    let calls = 0;
    const trap = (...args: unknown[]) => {
      if (calls++ >= h.after) throw makeThrown(h.thrown);
      return (Reflect[h.trap] as (...a: unknown[]) => unknown)(...args);
    };
    return new Proxy(base, { [h.trap]: trap });
  }
  const copy = { ...base };
  let reads = 0;
  Object.defineProperty(copy, h.field, {
    enumerable: true,
    configurable: true,
    get() {
      reads++;
      if (h.mode === 'throw' && reads > h.after) throw makeThrown(h.thrown);
      return h.mode === 'flip' && reads > h.after && reads % 2 === 0 ? FLIPPED[h.field] : base[h.field];
    },
  });
  return copy;
}

/** A media input whose source yields `size` bytes in `chunk`s and fails at `failAt`, if set. */
export function buildMedia(r: MediaRecipe): Record<string, unknown> {
  const failAt = r.failAt === null || r.failAt >= r.size ? null : r.failAt;
  const pieces: Buffer[] = [];
  for (let at = 0; at < (failAt ?? r.size); at += r.chunk)
    pieces.push(Buffer.alloc(Math.min(r.chunk, (failAt ?? r.size) - at), 7));
  const failure = () => makeThrown(r.thrown);
  const size = { none: undefined, exact: r.size, less: Math.max(0, r.size - 1), more: r.size + 1 }[r.declared];
  let data: unknown;
  if (r.source === 'blob') data = new Blob(pieces as Uint8Array<ArrayBuffer>[]);
  else if (r.source === 'iterable') {
    data = (async function* () {
      for (const piece of pieces) yield piece;
      if (failAt !== null) throw failure();
    })();
  } else if (r.source === 'web') {
    let index = 0;
    data = new ReadableStream<Uint8Array>({
      pull(controller) {
        const piece = pieces[index++];
        if (piece) controller.enqueue(piece);
        else if (failAt !== null) controller.error(failure());
        else controller.close();
      },
    });
  } else {
    let index = 0;
    data = new Readable({
      read() {
        const piece = pieces[index++];
        if (piece) this.push(piece);
        else if (failAt !== null) this.destroy(failure() as Error);
        else this.push(null);
      },
    });
  }
  return { data, filename: 'fuzz.png', ...(size === undefined ? {} : { size }) };
}
