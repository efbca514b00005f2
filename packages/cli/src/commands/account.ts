import type { HttpMethod, JsonValue } from 'tenant-messaging';
import { UsageError } from '../shell/exit-codes.js';
import { quote } from '../shell/secrets.js';
import type { Context } from './messages.js';

/** `me`, `usage`, `subscription`: one read each, printed as JSON for people too (their shapes are not shown in the spec). */
export async function read(what: 'me' | 'usage' | 'subscription', { client, out, signal }: Context): Promise<void> {
  const value = await client[what]({ signal });
  out.value(value, () => JSON.stringify(value, null, 2));
}

/** `senders`: the tenant's sender numbers, as a table of the fields they carry. */
export async function senders({ client, out, signal }: Context): Promise<void> {
  const numbers = await client.senderNumbers.list({ signal });
  const columns = [...new Set(numbers.flatMap((n) => Object.keys(n)))].slice(0, 6);
  out.list(numbers, columns);
}

/** `lookup <phone> --from <phone>`: whether a recipient can receive messages. */
export async function lookup(phone: string, flags: { from: string }, { client, out, signal }: Context): Promise<void> {
  const answer = await client.contacts.lookup({ phone, sender_phone: flags.from }, { signal });
  out.value(answer, () => JSON.stringify(answer, null, 2));
}

const METHODS: readonly HttpMethod[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** `request <method> <path> [--data json]`: the escape hatch, through the SDK's `client.request()`. */
export async function request(
  method: string,
  path: string,
  flags: { data?: string },
  { client, out, signal }: Context,
): Promise<void> {
  const verb = method.toUpperCase() as HttpMethod;
  if (!METHODS.includes(verb))
    throw new UsageError(`the method must be one of ${METHODS.join(', ')}, got ${quote(method)}`);
  let body: JsonValue | undefined;
  if (flags.data !== undefined) {
    try {
      body = JSON.parse(flags.data) as JsonValue;
    } catch (error) {
      throw new UsageError(`--data must be JSON: ${(error as Error).message}`);
    }
  }
  const answer = await client.request({ method: verb, path, ...(body === undefined ? {} : { body }) }, { signal });
  out.value(answer, () => JSON.stringify(answer, null, 2));
}
