/** Canonical base64 (RFC 4648, padded), as the Standard Webhooks reference reads and writes it. */
const CANONICAL = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Bytes as base64, padded. */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Padded base64 as bytes, or undefined when it is not canonical base64. */
export function fromBase64(text: string): Uint8Array | undefined {
  if (!CANONICAL.test(text)) return undefined;
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}
