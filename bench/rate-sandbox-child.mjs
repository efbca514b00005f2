/**
 * The project's sandbox (`dist/sandbox`) in a process of its own, with Laravel's per-second rate
 * limit on, for the `sendMany` rate bench: `node rate-sandbox-child.mjs <perSecond> <messages>`.
 * It counts the 429s it answers (diagnostics_channel), and reports the accepted sends from its own
 * request log (its own clock) and the contents it stored more than once.
 */
import diagnostics from 'node:diagnostics_channel';
import { startSandbox } from '../dist/sandbox/index.js';
import { SENDER_PHONE } from './fixtures.mjs';
import { serveRpc } from './ipc.mjs';

const [perSecond = 100, messages = 200] = process.argv.slice(2).map(Number);
const ROUTE = 'POST /messages';

const sandbox = await startSandbox({
  tenants: [{ slug: 'bench', messageLimit: messages + 10, senderNumbers: [{ phone: SENDER_PHONE }] }],
  rateLimit: { perSecond },
  onError: (error) => console.error('sandbox error:', error),
});
const tenant = /** @type {import('../dist/sandbox/index.js').SandboxTenant} */ (sandbox.tenants['bench']);

/** @type {Record<string, number>} answers by status code */
const statuses = {};
diagnostics.subscribe('http.server.response.finish', (message) => {
  const { response } = /** @type {{ response: import('node:http').ServerResponse }} */ (message);
  statuses[response.statusCode] = (statuses[response.statusCode] ?? 0) + 1;
});

serveRpc(
  {
    stats: () => {
      const accepted = sandbox.requestLog.acceptedAt({ tenant: 'bench', route: ROUTE }).sort((a, b) => a - b);
      const first = accepted[0] ?? 0;
      const last = accepted.at(-1) ?? 0;
      /** @type {Map<string, number>} */
      const stored = new Map();
      for (const log of sandbox.messages('bench'))
        stored.set(log.content ?? '', (stored.get(log.content ?? '') ?? 0) + 1);
      return {
        accepted: accepted.length,
        spanMs: last - first,
        // The achieved rate between the first and the last accepted send, on the service's clock.
        achievedPerSecond: accepted.length > 1 && last > first ? ((accepted.length - 1) / (last - first)) * 1000 : 0,
        maxIn1s: sandbox.requestLog.maxInWindow(1_000, { tenant: 'bench', route: ROUTE }),
        rejected429: statuses[429] ?? 0,
        statuses,
        stored: sandbox.counters.sendsStored,
        duplicates: [...stored.values()].reduce((sum, n) => sum + (n - 1), 0),
      };
    },
  },
  { url: tenant.baseUrl, key: tenant.keys.full, senderPhone: SENDER_PHONE },
);
process.on('SIGTERM', () => sandbox.close().then(() => process.exit(0)));
process.on('disconnect', () => sandbox.close().then(() => process.exit(0)));
