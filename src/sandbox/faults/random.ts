import { randomBytes } from 'node:crypto';

/**
 * A seedable random source (mulberry32): fault ratios replay identically for the same seed,
 * which `Math.random` cannot do. Returns numbers in [0, 1).
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * An unguessable token for a media URL. Deliberately not from the seeded source: media URLs are
 * served without an API key, so only knowing the URL may grant access.
 */
export function mediaToken(): string {
  return randomBytes(24).toString('base64url');
}
