// Cold start (a): import the built package and construct a client, nothing else.
import { MessagingClient } from '../../dist/index.js';

new MessagingClient({ baseUrl: process.env.BENCH_URL, apiKey: 'tm_bench_key' });
