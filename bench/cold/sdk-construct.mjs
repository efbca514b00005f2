// Cold start (a): import the package by its name (installed: bench/cold-project.mjs) and construct a client, nothing else.
import { MessagingClient } from 'tenant-messaging';

new MessagingClient({ baseUrl: process.env.BENCH_URL, apiKey: 'tm_bench_key' });
