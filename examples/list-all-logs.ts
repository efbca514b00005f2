/**
 * Walk every message log of every page. `list()` is lazy: the first page is fetched when you
 * await it or start iterating, and the next page only when you reach it.
 *
 *   node examples/list-all-logs.ts
 */
import { MessagingClient } from 'tenant-messaging';

const client = new MessagingClient();

const counts = new Map<string, number>();
let total = 0;
for await (const log of client.messages.list()) {
  total++;
  counts.set(log.delivery_status, (counts.get(log.delivery_status) ?? 0) + 1);
}
console.log(`${total} logs:`, Object.fromEntries(counts));

// One page at a time, with the paginator's counters when the service sends them:
const first = await client.messages.list({ page: 1 });
console.log(`page 1 has ${first.data.length} logs; total ${first.meta?.total ?? 'not reported'}`);
