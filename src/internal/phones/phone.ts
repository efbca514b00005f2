/**
 * Recipients as the service's channels see them: one person written two ways (`+1 (555) 123-0001`
 * and `+15551230001`) is one recipient. libphonenumber-js is an optional peer dependency, loaded
 * on first use only: a client that paces no recipient, and the first request of any client, never
 * load it, and a bundle of the main entry holds it only where it is installed (a Worker's bundler
 * leaves an import it cannot resolve inside a `try` to fail at run time, where we explain it).
 */
import { MessagingError, MissingPeerError } from '../../errors.js';

let loading: Promise<PhoneTools> | undefined;
let loaded: PhoneTools | undefined;

/** The optional peer dependency, as a user installs it (package.json's `peerDependencies`). */
const PHONE_PEER = 'libphonenumber-js';
/** The module of it we load: its smallest metadata, which tells countries and the E.164 form. */
export const PHONE_MODULE = 'libphonenumber-js/min';

/** What the SDK asks of a phone number. */
export interface PhoneTools {
  /**
   * The canonical E.164 form of `text` (`+15551230001`), for keys only: what the caller gave is
   * what goes on the wire. A text libphonenumber-js cannot read (a fictional or partial number)
   * falls back to `+` and its digits, so that spacing and punctuation still never make two keys.
   */
  canonical(text: string): string;
  /**
   * `text` parsed once: its canonical form (as `canonical` gives it), and its ISO 3166 country
   * (`US`), or undefined when the number does not say: one not written in international form (`+`
   * and its country code: `2025550123` could be a US number or an Egyptian one), or one that
   * calling code shares and no country's plan holds.
   */
  read(text: string): { readonly canonical: string; readonly country: string | undefined };
}

/**
 * The error for `feature` used without libphonenumber-js installed: what needs it and how to
 * install it, as the other optional peers say (`cause`: the runtime's own "cannot find").
 *
 * @example throw phonePeerMissing('rateLimit.perRecipient', error)
 */
export function phonePeerMissing(feature: string, cause?: unknown): MissingPeerError {
  return new MissingPeerError(
    `${feature} needs ${PHONE_PEER} (^1.13), an optional peer dependency that is not installed: run \`npm install ${PHONE_PEER}\` (it tells the country of a number, and one number written two ways).`,
    PHONE_PEER,
    `npm install ${PHONE_PEER}`,
    cause,
  );
}

/**
 * Whether `error` says the module is not there: Node's codes, or the specifier in the message
 * (workerd's "No such module", Deno's and Bun's own words). Anything else (a broken install) is
 * thrown as it is.
 */
function isMissing(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') return true;
  return typeof message === 'string' && message.includes(PHONE_MODULE);
}

async function load(feature: string): Promise<PhoneTools> {
  let lib: typeof import('libphonenumber-js/min');
  try {
    // Inside `try`: esbuild (and so wrangler) bundles this import when the package is there, and
    // leaves it to fail here when it is not, instead of failing the user's build.
    lib = await import('libphonenumber-js/min');
  } catch (error) {
    throw isMissing(error) ? phonePeerMissing(feature, error) : error;
  }
  const parse = (text: string) => {
    const trimmed = text.trim();
    // The spec's phones are E.164-like; one given without its `+` is read as if it had it.
    const international = trimmed.startsWith('+') ? trimmed : `+${trimmed}`;
    try {
      return lib.parsePhoneNumberFromString(international);
    } catch {
      return undefined;
    }
  };
  const read = (text: string) => {
    const parsed = parse(text);
    return {
      canonical: parsed?.number ?? `+${text.replace(/\D+/g, '')}`,
      country: text.trim().startsWith('+') ? parsed?.country : undefined,
    };
  };
  loaded = { canonical: (text) => read(text).canonical, read };
  return loaded;
}

/**
 * Loads libphonenumber-js (once) and resolves with the tools built on it; rejects with
 * `phonePeerMissing(feature)` when it is not installed (every later call too, at once, each
 * naming its own caller's option: the import's failure is kept, not the first caller's words).
 */
export async function loadPhoneTools(feature = 'rateLimit.perRecipient'): Promise<PhoneTools> {
  loading ??= load(feature);
  try {
    return await loading;
  } catch (error) {
    // The first caller's error names its option: a later caller's names its own.
    const cause = error instanceof MessagingError ? error.cause : undefined;
    throw isMissing(cause) ? phonePeerMissing(feature, cause) : error;
  }
}

/** The tools once loaded, else undefined: a hot path reads them without awaiting a promise. */
export function loadedPhoneTools(): PhoneTools | undefined {
  return loaded;
}
