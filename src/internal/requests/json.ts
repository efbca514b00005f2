/** Nesting deeper than this is refused: no API answer comes near it. */
export const MAX_JSON_DEPTH = 512;

/** Bodies this short are parsed directly: even the deepest such text parses in bounded time. */
const SCAN_FROM = 64 * 1024;

/**
 * `JSON.parse`, refusing text nested deeper than `MAX_JSON_DEPTH`. Why: JSON.parse is linear, but
 * deeply nested arrays cost it far more per character than ordinary JSON, enough for a hostile
 * body of a few MiB to hold the event loop for seconds, where no deadline can fire. A longer
 * text that starts like an array or an object is first scanned once (brackets inside strings do
 * not count), which costs a fraction of the parse itself; anything else fails `JSON.parse` at once.
 * Throws a `SyntaxError` for text that is not JSON or is nested too deep.
 */
export function parseJson(text: string): unknown {
  if (text.length > SCAN_FROM && /^\s*[[{]/.test(text) && nestedTooDeep(text)) {
    throw new SyntaxError(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
  }
  return JSON.parse(text);
}

/** The characters that change the depth or the string state; everything else is skipped natively. */
const STRUCTURE = /["\\[\]{}]/g;

function nestedTooDeep(text: string): boolean {
  let depth = 0;
  let inString = false;
  STRUCTURE.lastIndex = 0;
  for (let match = STRUCTURE.exec(text); match !== null; match = STRUCTURE.exec(text)) {
    const char = match[0];
    if (inString) {
      if (char === '\\')
        STRUCTURE.lastIndex++; // a backslash escapes the next character
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '[' || char === '{') {
      if (++depth > MAX_JSON_DEPTH) return true;
    } else if (char === ']' || char === '}') depth--;
  }
  return false;
}
