/**
 * A yes/no check derived from a Zod schema: the allocation-free half of `fastSchema`
 * (fast-path.ts, the only module that imports this one).
 *
 * Zod's parse builds a new object and, per field, a `{ value, issues }` record and an issues
 * array, all short-lived: on `npm run bench` (see README, Performance) that garbage made response
 * validation the largest single cost the SDK adds to a request. Almost every response is valid,
 * so the common case only needs the answer "valid, as is". `precheck` walks the schema's
 * definition once and returns a predicate that answers it without allocating; when it says no,
 * the caller runs the Zod schema itself, which gives the verdict and the issues.
 *
 * It is derived from the Zod schema, never written beside it, so the two cannot drift apart. It
 * knows a few constructs; for a schema that uses anything else it returns `undefined` (the
 * schema is then parsed by Zod alone), never a guess. test/unit/core/schema-fast-paths.test.ts checks
 * that whatever a predicate accepts, Zod accepts with the same value.
 */
import type * as z from './zod.js';

/** A predicate that is true only for values the schema accepts unchanged. */
export type Precheck = (value: unknown) => boolean;

/** The parts of a Zod definition this reads (zod/v4/core's `_zod.def`). */
interface Def extends CheckDef {
  readonly type: string;
  readonly coerce?: boolean;
  readonly checks?: readonly { readonly _zod: { readonly def: CheckDef } }[];
  readonly innerType?: z.ZodMiniType;
  readonly shape?: Readonly<Record<string, z.ZodMiniType>>;
  readonly catchall?: z.ZodMiniType;
  readonly fn?: (value: unknown) => unknown;
}

/** A check's definition. A format schema such as `z.int()` or `z.email()` is itself one. */
interface CheckDef {
  readonly check?: string;
  readonly format?: string;
  readonly pattern?: RegExp;
}

/**
 * Builds the predicate for `schema`. Knows what the hot response schemas use: loose objects,
 * `nullable`, strings (with `regex` checks), numbers (with the `int` check, or `z.int()`), and
 * `custom`. Returns `undefined` when the schema uses anything else, at any depth.
 */
export function precheck(schema: z.ZodMiniType): Precheck | undefined {
  const def = schema._zod.def as unknown as Def;
  // A coerced schema returns a converted value, not the input: leave it to Zod.
  if (def.coerce) return undefined;
  switch (def.type) {
    case 'string':
      return stringPrecheck(checksOf(def));
    case 'number':
      return numberPrecheck(checksOf(def));
    case 'custom': {
      // `custom` is a check itself (`check: 'custom'`); any further check is not handled here.
      const fn = def.fn;
      if (hasAddedChecks(def) || !fn) return undefined;
      return (value) => fn(value) === true;
    }
    case 'nullable': {
      const inner = def.check === undefined && !hasAddedChecks(def) && def.innerType && precheck(def.innerType);
      return inner ? (value) => value === null || inner(value) : undefined;
    }
    case 'object':
      return objectPrecheck(def);
    default:
      return undefined;
  }
}

/**
 * Every check a value must pass: the definition's own, when the schema is a format (`z.int()`
 * has `check: 'number_format'`; forgetting it would accept 1.5), then those added with `.check()`.
 */
function checksOf(def: Def): CheckDef[] {
  const added = (def.checks ?? []).map(({ _zod }) => _zod.def);
  return def.check === undefined ? added : [def, ...added];
}

function hasAddedChecks(def: Def): boolean {
  return def.checks !== undefined && def.checks.length > 0;
}

function stringPrecheck(checks: readonly CheckDef[]): Precheck | undefined {
  const patterns: RegExp[] = [];
  for (const { check, format, pattern } of checks) {
    // Only plain `z.regex`: other formats (email, url, ...) may check more than their pattern.
    // Zod resets lastIndex before each test; a global or sticky pattern would need that too.
    if (check !== 'string_format' || format !== 'regex' || !pattern || pattern.global || pattern.sticky) {
      return undefined;
    }
    patterns.push(pattern);
  }
  const [pattern, ...others] = patterns;
  if (!pattern) return (value) => typeof value === 'string';
  if (others.length === 0) return (value) => typeof value === 'string' && pattern.test(value);
  return (value) => typeof value === 'string' && patterns.every((each) => each.test(value));
}

function numberPrecheck(checks: readonly CheckDef[]): Precheck | undefined {
  if (checks.some(({ check, format }) => check !== 'number_format' || format !== 'safeint')) return undefined;
  return checks.length > 0
    ? (value) => Number.isSafeInteger(value)
    : (value) => typeof value === 'number' && Number.isFinite(value);
}

function objectPrecheck(def: Def): Precheck | undefined {
  // Only loose objects (unknown fields kept as they are): a strict or stripping object changes
  // or rejects values by their extra keys, which a field-by-field predicate does not see.
  if (def.check !== undefined || hasAddedChecks(def) || !def.shape || def.catchall?._zod.def.type !== 'unknown') {
    return undefined;
  }
  const keys: string[] = [];
  const checks: Precheck[] = [];
  for (const [key, field] of Object.entries(def.shape)) {
    // Zod leaves an absent optional key out of its copy: not a yes/no question.
    const check = field._zod.optin === undefined ? precheck(field) : undefined;
    if (!check) return undefined;
    keys.push(key);
    checks.push(check);
  }
  return (value) => {
    // Zod's copy is a plain object holding what it read, inherited fields included: only an
    // input that is such an object already (as JSON.parse makes them) can be returned as is.
    if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return false;
    // JSON.parse makes "__proto__" an own key, which Zod's copy leaves out: let Zod do it.
    if (Object.hasOwn(value, '__proto__')) return false;
    const record = value as Record<string, unknown>;
    // An indexed loop over two arrays: no iterator or destructuring on the hot path.
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      // Zod requires every non-optional key to be present, even when its schema accepts undefined.
      if (!Object.hasOwn(record, key) || !(checks[i] as Precheck)(record[key])) return false;
    }
    return true;
  };
}
