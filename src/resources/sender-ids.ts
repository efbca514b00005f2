import type { Executor } from '../core/call/executor.js';
import { openList } from '../core/call/parse.js';
import type { JsonObject } from '../types/json.js';

/** Sender phones to ids, read once per client (the list is small and rarely changes): what `reconcile` resolves a `sender_phone` with. */
export class SenderIds {
  readonly #executor: Executor;
  #read: Promise<Map<string, number>> | undefined;

  constructor(executor: Executor) {
    this.#executor = executor;
  }

  /**
   * The shared read, made without any caller's signal (each caller races its own against it):
   * one caller giving up must not fail the others waiting on the same read.
   */
  once(): Promise<Map<string, number>> {
    this.#read ??= this.#executor
      .run('listSenderNumbers', { request: {}, parse: (r) => senderIdsOf(openList(r, 'listSenderNumbers')) })
      .catch((error: unknown) => {
        this.#read = undefined; // a failed read is not cached
        throw error;
      });
    return this.#read;
  }
}

/** `{ phone -> id }` of the tenant's sender numbers, from the fields the sandbox and Laravel apps use. */
function senderIdsOf(numbers: readonly JsonObject[]): Map<string, number> {
  const ids = new Map<string, number>();
  for (const number of numbers) {
    const { id, phone } = number;
    if (typeof id === 'number' && typeof phone === 'string') ids.set(phone, id);
  }
  return ids;
}
