import type * as NodePath from 'node:path';
import { nodeBuiltin } from './builtin.js';

/**
 * `node:path`'s `basename` in the Workers build: the runtime's own, or the last segment of the
 * path in either separator.
 *
 * @default the stand-in, where `process.getBuiltinModule('node:path')` gives nothing
 * @example
 * ```ts
 * basename('/tmp/receipt.pdf') // 'receipt.pdf'
 * ```
 */
export const basename: (path: string) => string =
  nodeBuiltin<typeof NodePath>('node:path')?.basename ?? ((path) => path.split(/[\\/]/).at(-1) ?? path);
