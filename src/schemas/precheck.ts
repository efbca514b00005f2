/**
 * A yes/no check derived from a Zod schema, for the hot path of response parsing.
 *
 * Zod's parse builds a new object and, per field, a `{ value, issues }` record and an issues
 * array: about 30 short-lived objects for one MessageLog. Measured on the bench machine, that
 * made response validation the largest single cost the SDK adds to a request (about 1.5 µs of
 * ~3 µs, most of it garbage collection). Almost every response is valid, so the common case
 * only needs the answer "valid, as is". `precheck` walks the schema's definition once and
 * returns a predicate that answers it without allocating; when it says no (or meets anything it
 * is unsure of), the caller runs the Zod schema itself, which gives the verdict and the issues.
 *
 * It is derived from the Zod schema, never written beside it, so the two cannot drift apart:
 * a construct it does not know makes `precheck` throw when the schema module loads, and
 * test/core/schema-fast-paths.test.ts checks that whatever it accepts, Zod accepts with the same value.
 */
import { isPlainObject } from '../internal/is-plain-object.js';
import type * as z from './zod.js';

/** A predicate that is true only for values the schema accepts unchanged. */
export type Precheck = (value: unknown) => boolean;

/** The parts of a Zod definition this reads (zod/v4/core's `_zod.def`). */
interface Def {
  readonly type: string;
  readonly checks?: readonly { readonly _zod: { readonly def: CheckDef } }[];
  readonly innerType?: z.ZodMiniType;
  readonly shape?: Readonly<Record<string, z.ZodMiniType>>;
  readonly catchall?: z.ZodMiniType;
  readonly fn?: (value: unknown) => unknown;
}

interface CheckDef {
  readonly check: string;
  readonly format?: string;
  readonly pattern?: RegExp;
}

/**
 * Builds the predicate for `schema`. Supports what the response schemas use: loose objects,
 * `nullable`, strings (with `regex` checks), numbers (with the `int` check), `custom`.
 * @throws Error naming the construct when the schema uses anything else.
 */
export function precheck(schema: z.ZodMiniType): Precheck {
  const def = schema._zod.def as unknown as Def;
  const where = `precheck: ${def.type}`;
  switch (def.type) {
    case 'string': {
      const patterns = (def.checks ?? []).map(({ _zod: { def: check } }) => {
        // Zod resets lastIndex before each test; a global or sticky pattern would need that too.
        const { pattern } = check;
        if (
          check.check === 'string_format' &&
          check.format === 'regex' &&
          pattern &&
          !pattern.global &&
          !pattern.sticky
        ) {
          return pattern;
        }
        throw new Error(`${where} with a ${check.format ?? check.check} check is not supported`);
      });
      const [pattern, ...others] = patterns;
      if (!pattern) return (value) => typeof value === 'string';
      if (others.length === 0) return (value) => typeof value === 'string' && pattern.test(value);
      return (value) => typeof value === 'string' && patterns.every((each) => each.test(value));
    }
    case 'number': {
      const checks = def.checks ?? [];
      for (const {
        _zod: { def: check },
      } of checks) {
        if (check.check !== 'number_format' || check.format !== 'safeint') {
          throw new Error(`${where} with a ${check.format ?? check.check} check is not supported`);
        }
      }
      return checks.length > 0
        ? (value) => Number.isSafeInteger(value)
        : (value) => typeof value === 'number' && Number.isFinite(value);
    }
    case 'nullable': {
      const inner = precheck(required(def.innerType, where));
      return (value) => value === null || inner(value);
    }
    case 'custom': {
      noChecks(def, where);
      const fn = def.fn;
      if (!fn) throw new Error(`${where} without a function is not supported`);
      return (value) => fn(value) === true;
    }
    case 'object':
      return objectPrecheck(def, where);
    default:
      throw new Error(`${where} is not supported`);
  }
}

function objectPrecheck(def: Def, where: string): Precheck {
  noChecks(def, where);
  // Only loose objects (unknown fields kept as they are): a strict or stripping object changes
  // or rejects values by their extra keys, which a field-by-field predicate does not see.
  if (required(def.catchall, where)._zod.def.type !== 'unknown') {
    throw new Error(`${where} that is not a looseObject is not supported`);
  }
  const keys: string[] = [];
  const checks: Precheck[] = [];
  for (const [key, field] of Object.entries(required(def.shape, where))) {
    if (field._zod.optin !== undefined) throw new Error(`${where} with an optional field (${key}) is not supported`);
    keys.push(key);
    checks.push(precheck(field));
  }
  return (value) => {
    if (!isPlainObject(value)) return false;
    // JSON.parse makes "__proto__" an own key, which Zod's copy leaves out: let Zod do it.
    if (Object.hasOwn(value, '__proto__')) return false;
    const record = value as Record<string, unknown>;
    // An indexed loop over two arrays: no iterator or destructuring on the hot path.
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      // Zod requires every non-optional key to be present, even when its schema accepts undefined.
      if (!(key in record) || !(checks[i] as Precheck)(record[key])) return false;
    }
    return true;
  };
}

function noChecks(def: Def, where: string): void {
  if (def.checks && def.checks.length > 0) throw new Error(`${where} with checks is not supported`);
}

function required<T>(value: T | undefined, where: string): T {
  if (value === undefined) throw new Error(`${where}: incomplete definition`);
  return value;
}
