import { setFlagsFromString } from 'node:v8';

/**
 * Holds V8's heap near what a batch keeps alive, whatever the file's size. V8 sizes its heap for
 * a server, by the machine's memory: the young generation doubles up to its largest size, and the
 * old one may grow to several times its live size, so a long `send-many` run's RSS followed the
 * machine, not the file. The young generation is kept at its first size and the old one grows to
 * twice its live size (bench section 13 gives the peaks, with and without), for some more CPU time
 * when nothing else limits the run (a tenant's rate limit hides it). V8 reads both flags each time
 * it sizes a space; one that no longer did would only size them as before. Process-wide: only for
 * a process that runs one batch (the bin).
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
