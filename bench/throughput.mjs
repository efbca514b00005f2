/**
 * Sections 1, 2 and 6: `messages.get` and `messages.send` (text) throughput of the SDK against raw
 * `undici.request` on the same loopback server (in its own process), alternating raw and SDK runs
 * and taking the median of the rounds' ratios; and the TCP connections the server accepted from
 * each client meanwhile.
 */
import * as diagnostics from 'node:diagnostics_channel';
import { API_KEY, RAW_HEADERS, RAW_JSON_HEADERS, TEXT_SEND } from './fixtures.mjs';
import { forkChild } from './ipc.mjs';
import { median, round } from './stats.mjs';

/**
 * Runs `count` calls of `op`, `concurrency` at a time; stops with an error past `deadlineMs`.
 * @param {(i: number) => Promise<unknown>} op
 * @param {number} count
 * @param {number} concurrency
 * @param {number} deadlineMs
 */
async function drive(op, count, concurrency, deadlineMs) {
  let next = 0;
  const started = performance.now();
  const cpu = process.cpuUsage();
  const worker = async () => {
    while (next < count) {
      const i = next++;
      await op((i % 1000) + 1);
      if (performance.now() - started > deadlineMs) throw new Error(`run exceeded ${deadlineMs} ms`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { perSecond: (count / ms) * 1000, cpuMicrosPerRequest: (used.user + used.system) / count };
}

/**
 * @param {{ requests: number, warmup: number, concurrency: number, rounds: number, deadlineMs: number }} config
 */
export async function benchThroughput(config) {
  const server = await forkChild(new URL('./server-child.mjs', import.meta.url));
  const { MessagingClient } = await import('../dist/index.js');
  const undici = await import('undici');
  // The hand-written baseline: undici's keep-alive Agent as most code creates it (no connection
  // limit, so it may open more sockets than the SDK's bounded pool), JSON parsed by body.json().
  const agent = new undici.Agent({ keepAliveTimeout: 4_000 });
  const client = new MessagingClient({ baseUrl: server.ready.url, apiKey: API_KEY });
  const api = `${server.ready.url}/api/v1`;
  const sendBody = () => JSON.stringify(TEXT_SEND);

  /** @type {Record<string, Record<'raw' | 'sdk', (i: number) => Promise<unknown>>>} */
  const ops = {
    get: {
      // The bench server answers log 42 to every read (serialized once), so both sides ask for it.
      raw: async () => {
        const { statusCode, body } = await undici.request(`${api}/messages/42`, {
          method: 'GET',
          headers: RAW_HEADERS,
          dispatcher: agent,
        });
        const json = /** @type {{ data: unknown }} */ (await body.json());
        if (statusCode !== 200 || !json.data) throw new Error(`raw GET answered ${statusCode}`);
        return json.data;
      },
      sdk: () => client.messages.get(42),
    },
    send: {
      raw: async () => {
        const { statusCode, body } = await undici.request(`${api}/messages`, {
          method: 'POST',
          headers: RAW_JSON_HEADERS,
          body: sendBody(),
          dispatcher: agent,
        });
        const json = /** @type {{ data: unknown }} */ (await body.json());
        if (statusCode !== 201 || !json.data) throw new Error(`raw POST answered ${statusCode}`);
        return json.data;
      },
      sdk: () => client.messages.send(/** @type {any} */ ({ ...TEXT_SEND })),
    },
  };
  // The cost of tracing: `get` again, with one subscriber on every channel the SDK publishes on
  // (it only counts), to set beside the `get` row measured with none.
  /** @type {Record<string, () => () => void>} */
  const setups = {
    getTraced: () => {
      let events = 0;
      const count = () => {
        events++;
      };
      const handlers = { start: count, end: count, asyncStart: count, asyncEnd: count, error: count };
      const request = diagnostics.tracingChannel('tenant-messaging:request');
      request.subscribe(handlers);
      const names = ['retry', 'rate-limited', 'outcome-unknown', 'poll'].map((n) => `tenant-messaging:${n}`);
      for (const name of names) diagnostics.subscribe(name, count);
      return () => {
        request.unsubscribe(handlers);
        for (const name of names) diagnostics.unsubscribe(name, count);
        if (events === 0) throw new Error('the tracing subscriber saw nothing');
      };
    },
  };
  ops.getTraced = ops.get;

  /** @type {Record<string, any>} */
  const results = {};
  try {
    for (const [name, pair] of Object.entries(ops)) {
      const teardown = setups[name]?.();
      /** @type {Record<'raw' | 'sdk', { perSecond: number[], cpu: number[], connections: number }>} */
      const runs = { raw: { perSecond: [], cpu: [], connections: 0 }, sdk: { perSecond: [], cpu: [], connections: 0 } };
      /** One run, counting the connections the server accepted meanwhile (warm-up included). */
      const counted = async (/** @type {'raw' | 'sdk'} */ kind, /** @type {number} */ count) => {
        const before = await server.call('stats');
        const run = await drive(pair[kind], count, config.concurrency, config.deadlineMs);
        const after = await server.call('stats');
        runs[kind].connections += after.connections - before.connections;
        return run;
      };
      for (const kind of /** @type {const} */ (['raw', 'sdk'])) await counted(kind, config.warmup);
      for (let round = 0; round < config.rounds; round++) {
        // Rounds alternate which side goes first, so neither always inherits the other's garbage.
        const order = /** @type {const} */ (round % 2 === 0 ? ['raw', 'sdk'] : ['sdk', 'raw']);
        for (const kind of order) {
          const run = await counted(kind, config.requests);
          runs[kind].perSecond.push(run.perSecond);
          runs[kind].cpu.push(run.cpuMicrosPerRequest);
        }
      }
      // A shared 2-core VM drifts by tens of percent from one second to the next. Each round's raw
      // and SDK runs are back to back, so their ratio cancels the drift; the median of the rounds'
      // ratios is the figure (the median throughputs are reported beside it).
      const roundRatios = runs.sdk.perSecond.map((s, i) => s / /** @type {number} */ (runs.raw.perSecond[i]));
      results[name] = {
        requests: config.requests,
        concurrency: config.concurrency,
        rounds: config.rounds,
        rawPerSecond: round(median(runs.raw.perSecond), 0),
        sdkPerSecond: round(median(runs.sdk.perSecond), 0),
        ratio: round(median(roundRatios), 3),
        roundRatios: roundRatios.map((r) => round(r, 3)),
        rawCpuMicrosPerRequest: round(median(runs.raw.cpu), 1),
        sdkCpuMicrosPerRequest: round(median(runs.sdk.cpu), 1),
        rawConnections: runs.raw.connections,
        sdkConnections: runs.sdk.connections,
      };
      teardown?.();
    }
  } finally {
    await client.close();
    await agent.close();
    await server.close();
  }
  return results;
}
