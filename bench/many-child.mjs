/**
 * The measured client of the "many messages" bench (sections 7-9), in a fresh process run with
 * --expose-gc, so its heap figures are its own. One process per section; the parent (many.mjs)
 * drives it step by step with the servers' figures in between.
 */
import diagnostics from 'node:diagnostics_channel';
import { MessagingClient } from '../dist/index.js';
import { API_KEY, SENDER_PHONE, TO_PHONE } from './fixtures.mjs';
import { serveRpc } from './ipc.mjs';

const gc = /** @type {() => void} */ (globalThis.gc);
if (typeof gc !== 'function') throw new Error('run with --expose-gc');

/** `count` text sends, each with its own content, so the service's copies can be told apart. @param {number} count */
const textSends = (count) =>
  Array.from({ length: count }, (_, i) => ({
    sender_phone: SENDER_PHONE,
    to_phone: TO_PHONE,
    type: /** @type {const} */ ('text'),
    content: `bench many ${i}`,
  }));

/** @param {AsyncIterable<{ status: string, error?: unknown }>} results */
async function tally(results) {
  /** @type {Record<string, number>} */
  const byStatus = {};
  /** @type {string | undefined} */
  let firstError;
  for await (const result of results) {
    byStatus[result.status] = (byStatus[result.status] ?? 0) + 1;
    if (result.error !== undefined) firstError ??= String(result.error);
  }
  return { byStatus, firstError };
}

/** The most sends one `sendMany` takes at once (its `concurrency` bound). */
const MAX_CONCURRENCY = 256;

/** @typedef {import('../dist/index.js').SendMessageParams} SendMessageParams */
/** @typedef {import('../dist/index.js').SendResult} SendResult */

/**
 * The state of the heap section between its steps.
 * @type {{ client: MessagingClient, items: SendMessageParams[], heapBefore: number, runs: { results: AsyncGenerator<SendResult>, first: Promise<IteratorResult<SendResult>> }[] } | undefined}
 */
let held;
/** @type {MessagingClient | undefined} the tracking section's client, warmed up before `go` */
let tracker;

serveRpc(
  {
    /** Section 7: every item through sendMany against the rate-limited sandbox. */
    send: async (/** @type {{ url: string, key: string, messages: number, concurrency: number }} */ arg) => {
      const client = new MessagingClient({ baseUrl: arg.url, apiKey: arg.key });
      // The client's rate-limited waits by source: pacing, retry-after (a 429), fixed-rate...
      /** @type {Record<string, { count: number, waitMs: number }>} */
      const pauses = {};
      const onPause = (/** @type {{ source?: unknown, waitMs?: number } | undefined} */ message) => {
        const source = String(message?.source);
        pauses[source] ??= { count: 0, waitMs: 0 };
        const entry = pauses[source];
        entry.count++;
        entry.waitMs += message?.waitMs ?? 0;
      };
      diagnostics.subscribe('tenant-messaging:rate-limited', onPause);
      const started = performance.now();
      try {
        const outcome = await tally(
          client.messages.sendMany(textSends(arg.messages), { concurrency: arg.concurrency }),
        );
        return { ...outcome, totalMs: performance.now() - started, pauses };
      } finally {
        diagnostics.unsubscribe('tenant-messaging:rate-limited', onPause);
        await client.close();
      }
    },

    /** Section 8, step 1: a warmed-up client and the items, then the heap before any send. */
    prepareHeld: async (/** @type {{ url: string, count: number }} */ arg) => {
      const client = new MessagingClient({ baseUrl: arg.url, apiKey: API_KEY });
      // Warm-up (answered at once): undici, the schemas and the send path are loaded before measuring.
      await Array.fromAsync(client.messages.sendMany(textSends(16), { concurrency: 16 }));
      // The items are the caller's data, made before the baseline: the figure is what the SDK adds.
      const items = textSends(arg.count);
      await new Promise((resolve) => setTimeout(resolve, 50));
      gc();
      held = { client, items, heapBefore: process.memoryUsage().heapUsed, runs: [] };
      return { heapBefore: held.heapBefore };
    },
    /**
     * Step 2 (the server holds answers now): pulling each generator's first result starts its
     * sends. sendMany takes at most MAX_CONCURRENCY sends at once, so `count` in flight are split
     * evenly over as many generators as that needs (each one's own cost is shared by its items).
     */
    startHeld: () => {
      if (!held) throw new Error('prepareHeld first');
      const { client, items } = held;
      const generators = Math.ceil(items.length / MAX_CONCURRENCY);
      const size = Math.ceil(items.length / generators);
      for (let start = 0; start < items.length; start += size) {
        const slice = items.slice(start, start + size);
        const results = client.messages.sendMany(slice, { concurrency: slice.length });
        held.runs.push({ results, first: results.next() });
      }
      return { generators: held.runs.length };
    },
    /** Step 3 (the server saw its share, the gate holds the rest): the heap they all hold. */
    measureHeld: async () => {
      await new Promise((resolve) => setImmediate(resolve));
      gc();
      return { heapInFlight: process.memoryUsage().heapUsed };
    },
    /** Step 4 (the server released them): every result, then the client closed. */
    finishHeld: async () => {
      if (!held) throw new Error('prepareHeld first');
      const { client, runs } = held;
      /** @type {Record<string, number>} */
      const byStatus = {};
      /** @type {string | undefined} */
      let firstError;
      for (const { results, first } of runs) {
        const head = await first;
        const rest = await tally(results);
        if (!head.done) rest.byStatus[head.value.status] = (rest.byStatus[head.value.status] ?? 0) + 1;
        for (const [status, n] of Object.entries(rest.byStatus)) byStatus[status] = (byStatus[status] ?? 0) + n;
        firstError ??= rest.firstError;
      }
      held = undefined;
      await client.close();
      return { byStatus, firstError };
    },

    /** Section 9, step 1 (before the sandbox's `go`): a warmed-up client. */
    prepareTrack: async (/** @type {{ url: string, key: string, id: number, polling: object }} */ arg) => {
      tracker = new MessagingClient({ baseUrl: arg.url, apiKey: arg.key, polling: arg.polling });
      await tracker.messages.get(arg.id);
      return true;
    },
    /** Step 2 (after `go`): every id tracked to the end, counting the updates. */
    track: async (/** @type {{ ids: number[], interval: number, timeout: number }} */ arg) => {
      if (!tracker) throw new Error('prepareTrack first');
      const client = tracker;
      const started = performance.now();
      try {
        const outcome = await tally(client.trackDeliveries(arg.ids, { interval: arg.interval, timeout: arg.timeout }));
        return { ...outcome, totalMs: performance.now() - started };
      } finally {
        tracker = undefined;
        await client.close();
      }
    },
  },
  true,
);
process.on('disconnect', () => process.exit(0));
