/**
 * The measured side of the polling bench, in a fresh process run with --expose-gc: it starts
 * every `waitForDelivery` at once and reports the heap they hold while pending, how they ended,
 * and the total time. The sandbox's `go` is sent (through the parent) just before they start.
 */
import { MessagingClient } from '../dist/index.js';
import { serveRpc } from './ipc.mjs';

const gc = /** @type {() => void} */ (globalThis.gc);
if (typeof gc !== 'function') throw new Error('run with --expose-gc');

serveRpc(
  {
    /** @param {{ url: string, key: string, ids: number[], polling: { maxPerSecond: number, maxConcurrent: number }, interval: number, timeout: number }} arg */
    run: async ({ url, key, ids, polling, interval, timeout }) => {
      const client = new MessagingClient({ baseUrl: url, apiKey: key, polling });
      // Warm-up: undici, the schemas and the code paths are loaded before the heap is measured.
      await client.messages.get(/** @type {number} */ (ids[0]));
      await new Promise((resolve) => setTimeout(resolve, 50));
      gc();
      const heapBefore = process.memoryUsage().heapUsed;
      const go = await new Promise((resolve) => {
        process.once('message', (/** @type {any} */ message) => message?.went && resolve(message.went));
        process.send?.({ go: true });
      });
      const started = performance.now();
      const waits = ids.map((id) => client.waitForDelivery(id, { interval, timeout }));
      await new Promise((resolve) => setImmediate(resolve));
      gc();
      const heapPending = process.memoryUsage().heapUsed;
      const outcomes = await Promise.allSettled(waits);
      const totalMs = performance.now() - started;
      const delivered = outcomes.filter(
        (o) => o.status === 'fulfilled' && ['delivered', 'read'].includes(o.value.delivery_status),
      ).length;
      const rejected = outcomes.filter((o) => o.status === 'rejected');
      await client.close();
      return {
        go,
        waits: ids.length,
        delivered,
        rejected: rejected.length,
        firstRejection: rejected[0] ? String(/** @type {PromiseRejectedResult} */ (rejected[0]).reason) : undefined,
        heapBefore,
        heapPending,
        totalMs,
      };
    },
  },
  true,
);
process.on('disconnect', () => process.exit(0));
