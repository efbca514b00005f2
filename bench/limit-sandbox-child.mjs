/**
 * The sandbox of section 15, "the fleet at its limit" (bench/fleet-limit.mjs), in a process of its
 * own: `node limit-sandbox-child.mjs <answerMs> <messages>`. Every POST /messages is held
 * `answerMs` (a latency fault) and then counted and answered; the key-wide limit is off, so the
 * figures show what the fleet did, not what the sandbox refused. `stats` reads the sends it
 * counted, on its own clock, and the contents it stored more than once.
 */
import { startSandbox } from '../dist/sandbox/index.js';
import { SENDER_PHONE } from './fixtures.mjs';
import { serveRpc } from './ipc.mjs';

const [answerMs = 5, messages = 200] = process.argv.slice(2).map(Number);
const ROUTE = 'POST /messages';
const TENANT = 'limit';

const sandbox = await startSandbox({
  tenants: [{ slug: TENANT, messageLimit: messages + 10, senderNumbers: [{ phone: SENDER_PHONE }] }],
  onError: (error) => console.error('sandbox error:', error),
});
sandbox.faults.add({ kind: 'latency', latencyMs: answerMs, route: 'sendMessage', ratio: 1 });
const tenant = /** @type {import('../dist/sandbox/index.js').SandboxTenant} */ (sandbox.tenants[TENANT]);

serveRpc(
  {
    stats: () => {
      const times = sandbox.requestLog.acceptedAt({ tenant: TENANT, route: ROUTE }).sort((a, b) => a - b);
      /** @type {Map<string, number>} */
      const stored = new Map();
      for (const log of sandbox.messages(TENANT))
        stored.set(log.content ?? '', (stored.get(log.content ?? '') ?? 0) + 1);
      return {
        accepted: times.length,
        firstAt: times[0] ?? 0,
        lastAt: times.at(-1) ?? 0,
        busiestSecond: sandbox.requestLog.maxInWindow(1_000, { tenant: TENANT, route: ROUTE }),
        stored: stored.size,
        duplicates: [...stored.values()].reduce((sum, n) => sum + (n - 1), 0),
      };
    },
  },
  { url: tenant.baseUrl, key: tenant.keys.full, senderPhone: SENDER_PHONE },
);
process.on('SIGTERM', () => sandbox.close().then(() => process.exit(0)));
process.on('disconnect', () => sandbox.close().then(() => process.exit(0)));
