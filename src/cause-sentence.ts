/**
 * A cause's message quoted as a sentence of the SDK's own message: trimmed, with a full stop
 * added if it has no closing punctuation, and never otherwise changed.
 *
 * Why not lower its first letter to run it on after a comma: the cause's text is not ours. Its
 * first word may be a name or an acronym ("HTTP 502 Bad Gateway", "ECONNRESET", a service's own
 * message), and a reader searching logs for the cause's text must find it as it was.
 */
export function causeSentence(message: string): string {
  const trimmed = message.trim();
  if (trimmed === '') return '';
  return /[.!?…]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}
