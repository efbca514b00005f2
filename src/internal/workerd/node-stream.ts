import type * as NodeStream from 'node:stream';
import { nodeBuiltin } from './builtin.js';

/**
 * `Readable` where the runtime has no `node:stream`: a class nothing makes, so no value is one,
 * and `Readable.from` keeps the SDK's multipart body as the async iterable it is (the fetch
 * transport reads it as such).
 */
const AbsentReadable = Object.assign(class AbsentReadable {}, {
  from: <T>(iterable: AsyncIterable<T>): AsyncIterable<T> => iterable,
});

/**
 * `node:stream`'s `Readable` in the Workers build: the runtime's own, or the stand-in.
 *
 * @default the stand-in, where `process.getBuiltinModule('node:stream')` gives nothing
 * @example
 * ```ts
 * if (media instanceof Readable) watchStream(media)
 * ```
 */
export const Readable = (nodeBuiltin<typeof NodeStream>('node:stream')?.Readable ??
  AbsentReadable) as unknown as typeof NodeStream.Readable;
