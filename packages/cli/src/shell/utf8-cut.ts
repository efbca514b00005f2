/**
 * How many bytes at the end of `bytes` begin a UTF-8 character they do not finish (0 to 3): what a
 * reader of chunks holds back until the next one (send-many's files, the redacted streams).
 *
 * @example
 * ```ts
 * cutOff(Buffer.from([0x61, 0xc3])) // 1: 0xc3 begins a two-byte character
 * ```
 */
export function cutOff(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back] as number;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back
    const length = byte >= 0xf0 && byte <= 0xf4 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc2 ? 2 : 1;
    return byte >= 0xc2 && byte <= 0xf4 && length > back ? back : 0;
  }
  return 0;
}
