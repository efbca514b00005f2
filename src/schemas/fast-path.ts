/**
 * The one place a schema opts into a faster parse than plain Zod.
 *
 * To add a schema, write plain zod. Opt in to `fastSchema` (and the compiled objects below) only
 * for a hot path, such as a response parsed on every call, and add the schema to the property
 * tests in test/unit/core/schema-fast-paths.test.ts, which check that the fast path and plain Zod agree
 * on the verdict, the value and the issues.
 *
 * Both tricks lean on zod internals (a schema's `_zod.def`, zod core's `$ZodObjectJIT`), so they
 * live here and in precheck.ts, which nothing else imports. zod/mini is bundled into the build,
 * so those internals cannot change under a user: a zod upgrade that changes them fails the tests
 * above instead of silently dropping to the slow path. Why they exist, in words: on `npm run
 * bench` (see README, Performance), Zod's interpreted parse and the garbage it leaves were the
 * largest cost the SDK adds to a request.
 */
import { $constructor, type $loose, type $strict, $ZodObjectJIT } from 'zod/v4/core';
import type { Schema } from '../core/call/parse.js';
import { precheck } from './precheck.js';
import * as z from './zod.js';

/** Options of {@link fastSchema}. */
export interface FastSchemaOptions<In, Out> {
  /**
   * Turns an accepted value into the one callers get, on both paths (so they return deep-equal
   * values). On the fast path its argument is the caller's own input: it must not change it, and
   * should return it itself when nothing needs changing, so that a valid value costs no copy.
   * @default the value unchanged
   * @example { afterParse: (log) => (Array.isArray(log.request_payload) ? { ...log, request_payload: {} } : log) }
   */
  readonly afterParse?: (value: In) => Out;
}

/** A schema built by {@link fastSchema}: the SDK's `Schema`, and whether its fast path is in use. */
export interface FastSchema<T> extends Schema<T> {
  /**
   * True when a precheck could be derived from the Zod schema; false when the schema uses a
   * construct precheck.ts does not know, and every value goes through Zod.
   * @default true for the schemas precheck.ts supports
   * @example expect(messageLogSchema.prechecked).toBe(true)
   */
  readonly prechecked: boolean;
}

/**
 * Wraps a Zod schema so that a value it accepts unchanged is returned as given, without the
 * copy and the garbage of Zod's parse. Everything else (a value Zod would reject or change, or
 * any value when the schema uses a construct the precheck does not know) goes through
 * `schema.safeParse`, which gives the verdict and the issues. The result is deep-equal either way.
 *
 * Only for values the caller owns (say, just parsed from JSON): the fast path hands them back.
 * @example const logSchema = fastSchema(compiledLooseObject({ id: z.int() }), { afterParse: normalise });
 */
export function fastSchema<S extends z.ZodMiniType, Out = z.output<S>>(
  schema: S,
  options: FastSchemaOptions<z.output<S>, Out> = {},
): FastSchema<Out> {
  return withPrecheck(schema, precheck(schema), options);
}

/**
 * `fastSchema` with a hand-written precheck, for a schema whose constructs precheck.ts cannot
 * derive one from (a discriminated union, a refinement across fields). `isValidAsIs` must return
 * true only for values the schema accepts unchanged; its property test compares it with the schema.
 * @example export const sendSchema = withPrecheck(sendZod, isPlainTextSend)
 */
export function withPrecheck<S extends z.ZodMiniType, Out = z.output<S>>(
  schema: S,
  isValidAsIs: ((value: unknown) => boolean) | undefined,
  options: FastSchemaOptions<z.output<S>, Out> = {},
): FastSchema<Out> {
  const after = options.afterParse ?? ((value: z.output<S>) => value as unknown as Out);
  const slow = (data: unknown): ReturnType<Schema<Out>['safeParse']> => {
    const result = schema.safeParse(data);
    return result.success ? { success: true, data: after(result.data) } : result;
  };
  if (isValidAsIs === undefined) return { prechecked: false, safeParse: slow };
  return {
    prechecked: true,
    safeParse: (data) => (isValidAsIs(data) ? { success: true, data: after(data as z.output<S>) } : slow(data)),
  };
}

type Shape = z.ZodMiniObject['shape'];

/**
 * zod/mini's objects check every field through zod's interpreted parser; classic zod's objects
 * use `$ZodObjectJIT`, which compiles one parser per shape (with `new Function`). Classic zod
 * costs more to import, which a cold start would pay, so this keeps zod/mini and borrows only the
 * compiled parser. `$constructor` + `init` is how zod's own packages build their schema classes
 * (zod/mini's `ZodMiniObject` is this composition with `$ZodObject` in place of `$ZodObjectJIT`).
 * Where code generation is not allowed (`jitless`, or no `new Function`), zod falls back to the
 * interpreted parser by itself. Results and issues are the same either way.
 */
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

/**
 * `z.looseObject` with a compiled parser: unknown fields pass through and are kept. Same results
 * and issues as `z.looseObject`; `fastSchema` can derive a precheck from it.
 * @example compiledLooseObject({ id: z.int(), note: z.nullable(z.string()) })
 */
export function compiledLooseObject<S extends Shape>(shape: S): z.ZodMiniObject<S, $loose> {
  return compiledObject<S, $loose>(shape, z.unknown());
}

/**
 * `z.strictObject` with a compiled parser: an unknown field is an issue. Same results and issues
 * as `z.strictObject`.
 * @example compiledStrictObject({ to_phone: z.string() })
 */
export function compiledStrictObject<S extends Shape>(shape: S): z.ZodMiniObject<S, $strict> {
  return compiledObject<S, $strict>(shape, z.never());
}
