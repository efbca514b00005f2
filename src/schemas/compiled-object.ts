/**
 * Object schemas that parse through a compiled parser.
 *
 * zod/mini's `z.looseObject` and `z.strictObject` check every field through zod's interpreted
 * object parser. Classic zod's objects use `$ZodObjectJIT` instead, which compiles one parser per
 * shape (with `new Function`), and that is the cost that matters on the hot path: a MessageLog
 * parsed in 0.6 µs instead of 1.9 µs on the bench machine, about a third of the SDK's whole
 * per-request overhead. Classic zod itself costs ~40 ms more to import, which a cold start
 * would pay; this keeps zod/mini and borrows only the compiled object parser from zod's core.
 *
 * `$constructor` + `init` is how zod's own packages build their schema classes (zod/mini's
 * `ZodMiniObject` is this same composition with `$ZodObject` in place of `$ZodObjectJIT`). Where
 * code generation is not allowed (`jitless`, or a runtime without `new Function`), zod falls back
 * to the interpreted parser by itself. The results and issues are the same either way; the
 * schema tests run through this path.
 */
import { $constructor, type $loose, type $strict, $ZodObjectJIT } from 'zod/v4/core';
import * as z from './zod.js';

type Shape = z.ZodMiniObject['shape'];

const CompiledObject = $constructor<z.ZodMiniObject>('TenantMessagingCompiledObject', (inst, def) => {
  $ZodObjectJIT.init(inst, def);
  z.ZodMiniType.init(inst, def);
  // As zod/mini's own objects have it (they are not `instanceof ZodMiniObject`, though).
  Object.defineProperty(inst, 'shape', { get: () => def.shape, enumerable: false, configurable: true });
});

function compiledObject<S extends Shape, Config extends $loose | $strict>(
  shape: S,
  catchall: z.ZodMiniType,
): z.ZodMiniObject<S, Config> {
  return new CompiledObject({ type: 'object', shape, catchall }) as unknown as z.ZodMiniObject<S, Config>;
}

/** `z.looseObject` with a compiled parser: unknown fields pass through and are kept. */
export function compiledLooseObject<S extends Shape>(shape: S): z.ZodMiniObject<S, $loose> {
  return compiledObject<S, $loose>(shape, z.unknown());
}

/** `z.strictObject` with a compiled parser: an unknown field is an issue. */
export function compiledStrictObject<S extends Shape>(shape: S): z.ZodMiniObject<S, $strict> {
  return compiledObject<S, $strict>(shape, z.never());
}
