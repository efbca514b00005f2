/**
 * Recipients as the service's channels see them: one person written two ways (`+1 (555) 123-0001`
 * and `+15551230001`) is one recipient. libphonenumber-js is loaded on first use only: a client
 * that paces no recipient, and the first request of any client, never load it.
 */
let loading: Promise<PhoneTools> | undefined;
let loaded: PhoneTools | undefined;

/** What the SDK asks of a phone number. */
export interface PhoneTools {
  /**
   * The canonical E.164 form of `text` (`+15551230001`), for keys only: what the caller gave is
   * what goes on the wire. A text libphonenumber-js cannot read (a fictional or partial number)
   * falls back to `+` and its digits, so that spacing and punctuation still never make two keys.
   */
  canonical(text: string): string;
  /**
   * The ISO 3166 country of `text` (`US`), or undefined when the number does not say: one not
   * written in international form (`+` and its country code: `2025550123` could be a US number or
   * an Egyptian one), or one that calling code shares and no country's plan holds.
   */
  country(text: string): string | undefined;
}

/** Loads libphonenumber-js (once) and resolves with the tools built on it. */
export function loadPhoneTools(): Promise<PhoneTools> {
  loading ??= import('libphonenumber-js/min').then((lib) => {
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
    loaded = {
      canonical: (text) => parse(text)?.number ?? `+${text.replace(/\D+/g, '')}`,
      country: (text) => (text.trim().startsWith('+') ? parse(text)?.country : undefined),
    };
    return loaded;
  });
  return loading;
}

/** The tools once loaded, else undefined: a hot path reads them without awaiting a promise. */
export function loadedPhoneTools(): PhoneTools | undefined {
  return loaded;
}
