/**
 * The processes of section 14, "lanes" (bench/lanes.mjs), run from the built package:
 *
 *   node lanes-child.mjs sandbox '<json>'  the sandbox with one tenant, its sender numbers, and the
 *                                          same lanes as the SDK's (`laneLimits`); `stats` reads
 *                                          what it accepted, on its own clock
 *   node lanes-child.mjs client            one MessagingClient with the lanes: `sendMany`
 *
 * The sandbox's key-wide limit is off: only the lanes bind. Both announce themselves over IPC.
 */
import diagnostics from 'node:diagnostics_channel';
import { serveRpc } from './ipc.mjs';

const ROUTE = 'POST /messages';
const TENANT = 'lanes';

/**
 * @typedef {{ id: string, sender: string, recipient: string, content: string }} LaneItem
 * @typedef {{ senders: string[], messages: number, perSender: number, minInterval: number }} SandboxSetup
 */

const [role, setup] = process.argv.slice(2);

if (role === 'sandbox') {
  const { startSandbox } = await import('../dist/sandbox/index.js');
  const config = /** @type {SandboxSetup} */ (JSON.parse(setup ?? '{}'));
  const sandbox = await startSandbox({
    tenants: [
      {
        slug: TENANT,
        messageLimit: config.messages + 100,
        senderNumbers: config.senders.map((phone) => ({ phone })),
      },
    ],
    laneLimits: { perSender: { perSecond: config.perSender }, perPair: { minInterval: config.minInterval } },
    onError: (error) => console.error('sandbox error:', error),
  });
  const tenant = /** @type {import('../dist/sandbox/index.js').SandboxTenant} */ (sandbox.tenants[TENANT]);
  // A send over a lane is answered 429 before the request log records it: counted from the server.
  let rejected429 = 0;
  diagnostics.subscribe('http.server.response.finish', (message) => {
    const { response } = /** @type {{ response: import('node:http').ServerResponse }} */ (message);
    if (response.statusCode === 429) rejected429++;
  });
  serveRpc(
    {
      /** What the service saw: every figure on its own clock. @param {{ recipients: string[] }} arg */
      stats: (arg) => {
        const log = sandbox.requestLog;
        /** @type {number[]} the stored sends (a send it refused, a 422, is logged without its parties) */
        const sends = [];
        /** @type {Record<string, { sends: number, busiestSecond: number, spanMs: number }>} */
        const bySender = {};
        for (const sender of config.senders) {
          const times = log.acceptedAt({ tenant: TENANT, route: ROUTE, sender });
          if (times.length === 0) continue;
          sends.push(...times);
          bySender[sender] = {
            sends: times.length,
            busiestSecond: log.maxInWindow(1_000, { tenant: TENANT, route: ROUTE, sender }),
            spanMs: /** @type {number} */ (times.at(-1)) - /** @type {number} */ (times[0]),
          };
        }
        /** @type {Record<string, { sends: number, minGapMs: number, spanMs: number }>} */
        const byRecipient = {};
        for (const recipient of arg.recipients) {
          const times = log.acceptedAt({ tenant: TENANT, route: ROUTE, recipient });
          byRecipient[recipient] = {
            sends: times.length,
            minGapMs: log.minGap({ tenant: TENANT, route: ROUTE, recipient }),
            spanMs: times.length > 0 ? /** @type {number} */ (times.at(-1)) - /** @type {number} */ (times[0]) : 0,
          };
        }
        /** @type {Map<string, number>} stored logs by content */
        const stored = new Map();
        for (const m of sandbox.messages(TENANT)) stored.set(m.content ?? '', (stored.get(m.content ?? '') ?? 0) + 1);
        sends.sort((a, b) => a - b);
        return {
          accepted: sends.length,
          // Every POST /messages past the key-wide limit, stored or refused (a 422): equal to `accepted` when none was refused.
          requests: log.acceptedAt({ tenant: TENANT, route: ROUTE }).length,
          firstAt: sends[0] ?? 0,
          lastAt: sends.at(-1) ?? 0,
          sendTimes: sends,
          bySender,
          byRecipient,
          rejected429,
          stored: stored.size,
          duplicates: [...stored.values()].reduce((sum, n) => sum + (n - 1), 0),
        };
      },
    },
    { url: tenant.baseUrl, key: tenant.keys.full },
  );
  process.on('SIGTERM', () => sandbox.close().then(() => process.exit(0)));
  process.on('disconnect', () => sandbox.close().then(() => process.exit(0)));
} else if (role === 'client') {
  const { MessagingClient } = await import('../dist/index.js');
  serveRpc(
    {
      /**
       * Every item through one `sendMany` of a client with the lanes (no key-wide limit).
       * @param {{ url: string, key: string, items: LaneItem[], concurrency: number, perSender: number, minInterval: number }} arg
       */
      sendMany: async (arg) => {
        const client = new MessagingClient({
          baseUrl: arg.url,
          apiKey: arg.key,
          rateLimit: {
            perSender: { requestsPerSecond: arg.perSender },
            perRecipient: { minInterval: arg.minInterval },
          },
        });
        /** @type {Record<string, number>} */
        const byStatus = {};
        /** @type {string | undefined} */
        let firstError;
        const started = performance.now();
        try {
          const params = arg.items.map((item) => ({
            sender_phone: item.sender,
            to_phone: item.recipient,
            type: /** @type {const} */ ('text'),
            content: item.content,
          }));
          for await (const result of client.messages.sendMany(params, { concurrency: arg.concurrency })) {
            byStatus[result.status] = (byStatus[result.status] ?? 0) + 1;
            if (result.error !== undefined) firstError ??= String(result.error);
          }
          return { byStatus, firstError, totalMs: performance.now() - started };
        } finally {
          await client.close();
        }
      },
    },
    { pid: process.pid },
  );
  process.on('SIGTERM', () => process.exit(0));
  process.on('disconnect', () => process.exit(0));
} else {
  throw new Error(`lanes-child.mjs: unknown role ${role} (sandbox or client)`);
}
