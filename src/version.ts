/**
 * The SDK's version, sent in `User-Agent`. A test checks it against package.json.
 */
export const VERSION = '0.1.0';
