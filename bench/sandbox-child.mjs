/**
 * The project's sandbox (`dist/sandbox`) in a process of its own, for the polling bench:
 * `node sandbox-child.mjs <logs> <minDelayMs> <maxDelayMs>`. It stores <logs> message logs, each
 * turning `delivered` a random 1-5 s (min..max) after the `go` command, by giving each a send time
 * on a clock that stands still until `go`. It records when each request arrived
 * (diagnostics_channel), so the bench can tell the busiest 1 s window the server saw.
 */
import diagnostics from 'node:diagnostics_channel';
import { startSandbox } from '../dist/sandbox/index.js';
import { SENDER_PHONE, TO_PHONE } from './fixtures.mjs';
import { serveRpc } from './ipc.mjs';
import { maxInWindow } from './stats.mjs';

const [logs = 500, minDelay = 1000, maxDelay = 5000] = process.argv.slice(2).map(Number);
const DELIVERED_AFTER = maxDelay + 1_000;
const epoch = Date.now();
/** @type {number | undefined} the send time the next stored log gets, while seeding */
let seedAt;
/** @type {number | undefined} when `go` came (Date.now()) */
let goAt;
const now = () => seedAt ?? (goAt === undefined ? epoch : epoch + (Date.now() - goAt));

const sandbox = await startSandbox({
  tenants: [{ slug: 'bench', messageLimit: logs + 10, senderNumbers: [{ phone: SENDER_PHONE }] }],
  delivery: { deliveredAfterMs: DELIVERED_AFTER, readAfterMs: DELIVERED_AFTER + 3_600_000 },
  now,
  onError: (error) => console.error('sandbox error:', error),
});
const tenant = /** @type {import('../dist/sandbox/index.js').SandboxTenant} */ (sandbox.tenants['bench']);
const key = tenant.keys.full;

// Seeded in-process through the sandbox's own handler: the same validation, no sockets.
/** @type {number[]} */
const ids = [];
let seed = 12_345;
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
  return seed / 2_147_483_648;
};
for (let i = 0; i < logs; i++) {
  seedAt = epoch - DELIVERED_AFTER + minDelay + random() * (maxDelay - minDelay);
  const response = await sandbox.handle(
    new Request(`${tenant.baseUrl}/api/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ sender_phone: SENDER_PHONE, to_phone: TO_PHONE, type: 'text', content: `bench ${i}` }),
    }),
  );
  if (response.status >= 300) throw new Error(`seeding answered ${response.status}: ${await response.text()}`);
  ids.push(/** @type {{ data: { id: number } }} */ (await response.json()).data.id);
}
seedAt = undefined;

/** @type {number[]} */
const arrivals = [];
let connections = 0;
diagnostics.subscribe('http.server.request.start', () => {
  if (arrivals.length < 5_000_000) arrivals.push(performance.now());
});
diagnostics.subscribe('net.server.socket', () => {
  connections++;
});

serveRpc(
  {
    go: () => {
      goAt = Date.now();
      arrivals.length = 0;
      connections = 0;
      return true;
    },
    stats: () => ({
      requests: arrivals.length,
      connections,
      maxRequestsIn1s: maxInWindow(arrivals, 1_000),
      spanMs: arrivals.length ? /** @type {number} */ (arrivals.at(-1)) - /** @type {number} */ (arrivals[0]) : 0,
    }),
  },
  { url: tenant.baseUrl, key, ids },
);
process.on('SIGTERM', () => sandbox.close().then(() => process.exit(0)));
process.on('disconnect', () => sandbox.close().then(() => process.exit(0)));
