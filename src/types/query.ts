import type { JsonValue } from './json.js';

/** A query parameter value: scalars pass as text, arrays repeat the key, null and undefined are left out. */
export type QueryValue = string | number | boolean | null | undefined | readonly (string | number | boolean)[];

/** The query of a list call: the API's parameters pass through as given (`page`, filters...). */
export type ListQuery = Readonly<Record<string, QueryValue>>;

/** Paging counters, as Laravel's paginator sends them; any of them may be absent. */
export interface PageMeta {
  current_page?: number;
  last_page?: number;
  per_page?: number;
  total?: number;
  [key: string]: JsonValue | undefined;
}

/** Paging links, as Laravel's paginator sends them. The SDK reads `page` numbers from them but never requests them. */
export interface PageLinks {
  first?: string | null;
  last?: string | null;
  prev?: string | null;
  next?: string | null;
  [key: string]: JsonValue | undefined;
}

/** Query of `contacts.lookup`. */
export interface ContactLookupParams {
  /** The recipient phone to check. */
  phone: string;
  /** The sending number's phone. */
  sender_phone: string;
}
