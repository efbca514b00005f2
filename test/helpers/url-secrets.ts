import fc from 'fast-check';
import { vi } from 'vitest';

/**
 * Stubs the global fetch with one whose errors quote the URL as given, decoded and normalised, in
 * the error and in its cause, as Node's fetch quotes a URL with credentials: what a relay keeps
 * must not depend on fetch's words being harmless. Undo with `vi.unstubAllGlobals()`. (BullMQ and
 * the client use ioredis, pg and undici, never the global fetch.)
 */
export function stubQuotingFetch(): void {
  const real = globalThis.fetch;
  vi.stubGlobal('fetch', async (input: string | URL | Request, init?: RequestInit) => {
    try {
      return await real(input, init);
    } catch (error) {
      const url = input instanceof Request ? input.url : String(input);
      const quoted = `${url} (decoded ${decodeURIComponent(url)}; as ${new URL(url).href})`;
      const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
      throw new TypeError(`fetch failed for ${quoted}`, { cause: new Error(`${cause} at ${quoted}`) });
    }
  });
}

/**
 * A token: a marker and random text (any character, some needing percent-encoding in a URL), so
 * that finding it in a text can only mean it leaked.
 */
export const token = (marker: string) =>
  fc
    .oneof(
      fc.string({ minLength: 6, maxLength: 24, unit: 'grapheme-ascii' }),
      fc.string({ minLength: 6, maxLength: 12, unit: 'grapheme' }),
    )
    .map((rest) => `${marker}${rest}`);
