// Cold start (b), SDK: import by name, construct, complete one messages.get.
import { MessagingClient } from 'tenant-messaging';

const client = new MessagingClient({ baseUrl: process.env.BENCH_URL, apiKey: 'tm_bench_key' });
const log = await client.messages.get(42);
if (log.id !== 42) throw new Error('unexpected log');
