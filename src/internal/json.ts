/** Nesting deeper than this is refused: no API answer comes near it. */
export const MAX_JSON_DEPTH = 512;

/** Bodies this short are parsed directly: even the deepest such text parses in bounded time. */
const SCAN_FROM = 64 * 1024;

/**
 * `JSON.parse`, refusing text nested deeper than `MAX_JSON_DEPTH`. Why: JSON.parse is linear, but
 * deeply nested arrays cost it far more per character than ordinary JSON, enough for a hostile
 * body of a few MiB to hold the event loop for seconds, where no deadline can fire. A longer
 * text is first scanned once (brackets inside strings do not count), which costs a fraction of
 * the parse itself. Throws a `SyntaxError` for text that is not JSON or is nested too deep.
 */
export function parseJson(text: string): unknown {
  if (text.length > SCAN_FROM && nestedTooDeep(text)) {
    throw new SyntaxError(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
  }
  return JSON.parse(text);
}

function nestedTooDeep(text: string): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c)
        i++; // a backslash escapes the next character
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x5b || code === 0x7b) {
      if (++depth > MAX_JSON_DEPTH) return true;
    } else if (code === 0x5d || code === 0x7d) depth--;
  }
  return false;
}
