import type * as NodeFs from 'node:fs';
import { ValidationError } from '../../errors.js';
import { nodeBuiltin } from './builtin.js';

const fs = nodeBuiltin<typeof NodeFs>('node:fs');

/** `fs.ReadStream` where the runtime has no file system: a class nothing makes, so no value is one. */
class AbsentReadStream {}

/** A read of a file where the runtime has none: refused, saying what to pass instead. */
const noFile = async (): Promise<never> => {
  throw new ValidationError('This runtime has no file system', [
    {
      path: 'media',
      message:
        'a file cannot be read here: pass the bytes ({ data, filename }), a Blob or File, or a ReadableStream (e.g. an R2 object body)',
    },
  ]);
};

/**
 * `node:fs`'s `ReadStream` in the Workers build: the runtime's own, or a class no value belongs to.
 *
 * @default the stand-in, where `process.getBuiltinModule('node:fs')` gives nothing
 * @example
 * ```ts
 * if (media instanceof ReadStream) return basename(String(media.path))
 * ```
 */
export const ReadStream = (fs?.ReadStream ?? AbsentReadStream) as unknown as typeof NodeFs.ReadStream;

/**
 * `node:fs`'s `promises` in the Workers build: the runtime's own, or one whose reads are refused.
 *
 * @default the stand-in, where `process.getBuiltinModule('node:fs')` gives nothing
 * @example
 * ```ts
 * const stat = await promises.stat(path)
 * ```
 */
export const promises = (fs?.promises ?? { open: noFile, stat: noFile }) as unknown as typeof NodeFs.promises;
