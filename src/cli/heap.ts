import { setFlagsFromString } from 'node:v8';

/**
 * Holds V8's heap near what a batch keeps alive (about 15 MB, whatever the file's size). V8 sizes
 * its heap for a server, by the machine's memory: here the young generation doubled, up to 2 x 64
 * MB on a 24 GB machine, and the old one was let grow to several times its live size, so a
 * 1,000,000-row run peaked at 260 MB of RSS. The young generation is kept at its first size and the
 * old one grows to twice its live size: the same run peaks at 135 MB (bench, section 13), for about
 * 15% more CPU time when nothing else limits the run (a loopback server; a tenant's rate limit
 * hides it). V8 reads both flags each time it sizes a space; one that no longer did would only
 * size them as before. Process-wide: only for a process that runs one batch (the bin).
 *
 * @example
 * ```ts
 * holdHeap() // then read and send a million rows in flat, small memory
 * ```
 */
export function holdHeap(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
  setFlagsFromString('--heap-growing-percent=100');
}
