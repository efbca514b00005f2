// The sandbox as a service of its own, for the fleet test and the fleet bench: the built package
// (`npm run build` first), one tenant `fleet` limited to RPS requests per second per key, short
// delivery delays, and LOST answers sends whose answer is lost (stored, then the connection drops).
// `node fleet-sandbox.mjs [RPS] [MESSAGES]` (the arguments win over the environment).
// It announces { url, key, sender } over IPC, then answers { id, cmd } with { id, result }.
import diagnostics from 'node:diagnostics_channel';
import { startSandbox } from '../../../dist/sandbox/index.js';

const [rpsArg, messagesArg] = process.argv.slice(2);
const env = { ...process.env, ...(rpsArg ? { RPS: rpsArg } : {}), ...(messagesArg ? { MESSAGES: messagesArg } : {}) };
const SENDER = '+15550001001';
const TENANT = 'fleet';
const sandbox = await startSandbox({
  tenants: [{ slug: TENANT, messageLimit: Number(env.MESSAGES ?? 1000) + 100, senderNumbers: [{ phone: SENDER }] }],
  rateLimit: { perSecond: Number(env.RPS ?? 50) },
  delivery: { deliveredAfterMs: 100, readAfterMs: 200 },
  seed: Number(env.SEED ?? 1),
  onError: (error) => console.error('sandbox error:', error),
});
if (Number(env.LOST ?? 0) > 0)
  sandbox.faults.add({ kind: 'lost-answer', route: 'sendMessage', times: Number(env.LOST) });
// A ratio (LATENCY_RATIO, default all) of the sends held LATENCY_MS before they are counted and
// stored: the service counts them that much later than requests that started with them, and a
// kill at a random moment is likely to cut one.
if (Number(env.LATENCY_MS ?? 0) > 0) {
  const ratio = Number(env.LATENCY_RATIO ?? 1);
  sandbox.faults.add({ kind: 'latency', latencyMs: Number(env.LATENCY_MS), route: 'sendMessage', ratio });
}
const tenant = sandbox.tenants[TENANT];

// 429s are answered before the request log records anything: count them from the HTTP server.
let rejected = 0;
diagnostics.subscribe('http.server.response.finish', (message) => {
  if (message.response.statusCode === 429) rejected++;
});

const handlers = {
  stats: () => {
    const sends = sandbox.requestLog.acceptedAt({ tenant: TENANT, route: 'POST /messages' }).sort((a, b) => a - b);
    const all = sandbox.requestLog.acceptedAt({ tenant: TENANT }).sort((a, b) => a - b);
    const span = (all.at(-1) ?? 0) - (all[0] ?? 0);
    const first = sends[0] ?? 0;
    const last = sends.at(-1) ?? 0;
    /** @type {Record<string, number>} stored logs by content */
    const stored = {};
    for (const log of sandbox.messages(TENANT)) stored[log.content ?? ''] = (stored[log.content ?? ''] ?? 0) + 1;
    return {
      sends: sends.length,
      requests: all.length,
      polls: sandbox.requestLog.acceptedAt({ tenant: TENANT, route: 'GET /messages/{messageLog}' }).length,
      // On the service's clock, between its first and last accepted send.
      sendsPerSecond: sends.length > 1 && last > first ? ((sends.length - 1) / (last - first)) * 1000 : 0,
      // Every request of the key (sends, polls, reconciliation), between its first and last one.
      requestsPerSecond: all.length > 1 && span > 0 ? ((all.length - 1) / span) * 1000 : 0,
      // Every request of the key while the sends ran: what shared the limit with them.
      requestsDuringSends: all.filter((at) => at >= first && at <= last).length,
      busiestSecond: sandbox.requestLog.maxInWindow(1_000, { tenant: TENANT }),
      rejected,
      stored,
    };
  },
};
process.on('message', async ({ id, cmd }) => {
  try {
    process.send?.({ id, result: await handlers[cmd]() });
  } catch (error) {
    process.send?.({ id, error: String(error) });
  }
});
process.on('disconnect', () => sandbox.close().then(() => process.exit(0)));
process.on('SIGTERM', () => sandbox.close().then(() => process.exit(0)));
process.send?.({ ready: { url: tenant.baseUrl, key: tenant.keys.full, sender: SENDER } });
