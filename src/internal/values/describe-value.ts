/** Node's `util.inspect`, where the runtime has it, found without a static `node:` import, so
 * that the light entries (`tenant-messaging/webhooks`) load on any runtime, a Worker included. */
type Inspect = (value: unknown, options: Record<string, unknown>) => string;
const inspect: Inspect | undefined = (
  (
    globalThis as { process?: { getBuiltinModule?: (id: string) => { inspect?: Inspect } | undefined } }
  ).process?.getBuiltinModule?.('node:util') ?? undefined
)?.inspect;

/**
 * A short, safe description of any value for an error message: never throws (BigInt, cycles,
 * Proxies and objects with a hostile `toString` included) and never prints more than a few dozen
 * characters of it.
 */
export function describeValue(value: unknown): string {
  try {
    if (typeof value === 'number') return String(value);
    if (typeof value === 'bigint') return `bigint ${value}n`;
    if (typeof value === 'string') return `string ${JSON.stringify(value.slice(0, 40))}${value.length > 40 ? '…' : ''}`;
    if (value === null) return 'null';
    if (typeof value !== 'object') return typeof value;
    const text = inspect
      ? inspect(value, { depth: 1, breakLength: Number.POSITIVE_INFINITY, customInspect: false })
      : (JSON.stringify(value) ?? Object.prototype.toString.call(value));
    return `${Array.isArray(value) ? 'array' : 'object'} ${text.slice(0, 60)}`;
  } catch {
    return typeof value;
  }
}
