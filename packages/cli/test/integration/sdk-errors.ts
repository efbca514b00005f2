/**
 * The SDK's errors as a user meets them, for the command line's error texts: each made by a
 * client whose fetch answers as a server would (a 401, a 403, a 404, a 429, a proxy's 502), or by
 * a media source that fails while it is sent. Made through the SDK's public surface, not its inside.
 */
import { MessagingClient } from 'tenant-messaging';

/** The errors {@link sdkErrors} makes. */
export type SdkErrorKey = '401' | '403' | '404' | '429' | '502' | 'media';

const ANSWERS: [key: SdkErrorKey, status: number, body: string, headers: Record<string, string>][] = [
  ['401', 401, '{"message":"Unauthenticated."}', {}],
  ['403', 403, '{"message":"Forbidden."}', {}],
  ['404', 404, '{"message":"Not found."}', {}],
  ['429', 429, '{"message":"Too Many Attempts."}', { 'retry-after': '1' }],
  ['502', 502, '<html><title>Bad Gateway</title></html>', {}],
];

/**
 * `count` fresh errors of each kind, and the function that takes one: each use gets its own, as
 * each command run meets its own (an error keeps the first command it was located in).
 */
export async function sdkErrors(count: number): Promise<(key: SdkErrorKey) => unknown> {
  const made = new Map<SdkErrorKey, unknown[]>();
  const makeAll = async (key: SdkErrorKey, make: () => Promise<unknown>) => {
    made.set(key, await Promise.all(Array.from({ length: count }, make)));
  };
  for (const [key, status, body, headers] of ANSWERS) {
    await makeAll(key, () => errorOf((client) => client.me(), new Response(body, { status, headers })));
  }
  const failing = async function* () {
    yield* [];
    throw new Error('EIO: i/o error');
  };
  const sending = (client: MessagingClient) =>
    client.messages.send({
      sender_phone: '+15550001001',
      to_phone: '+15551234567',
      type: 'image',
      media: { data: failing(), filename: 'receipt.png' },
    });
  await makeAll('media', () => errorOf(sending, new Response('{}', { status: 500 })));
  return (key) => made.get(key)?.pop();
}

/**
 * What `call` throws with a client whose every request is answered `answer` (after its body was
 * read, as a server does), without retries.
 */
async function errorOf(call: (client: MessagingClient) => Promise<unknown>, answer: Response): Promise<unknown> {
  const fetch = async (_url: string | URL | Request, init?: RequestInit) => {
    await new Response(init?.body ?? null).arrayBuffer();
    return answer.clone();
  };
  const client = new MessagingClient({ baseUrl: 'https://example.com', apiKey: 'tm_test_key', fetch, maxRetries: 0 });
  try {
    await call(client);
  } catch (error) {
    return error;
  } finally {
    await client.close();
  }
  throw new Error('the call did not fail');
}
