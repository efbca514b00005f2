/**
 * The stop of the toolbox (drain.ts), in this process against the sandbox: a confirmation still
 * unanswered when the stop begins ends unsent, with a result that says so; a wait_for_delivery
 * ends at once; a send still waiting on
 * the API when the grace period ends is answered as of unknown outcome, never as unsent; a call
 * made once the stop began is refused without running.
 */
import type { CallToolResult, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { SANDBOX_PHONES } from 'tenant-messaging/sandbox';
import { describe, expect, it } from 'vitest';
import { type Connected, fixtureForFile, text } from './mcp-fixture.js';

const fx = fixtureForFile();

/** Until `check()` holds (polled every 5 ms); throws past 20 s, a hang, not a measure. */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 4_000; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`never: ${what}`);
}

/** The reads of one log (`GET /messages/{id}`) the sandbox has seen. */
const reads = () =>
  Object.entries(fx.sandbox.counters.requests)
    .filter(([route]) => route.startsWith('GET /messages/'))
    .reduce((sum, [, n]) => sum + n, 0);

async function prepare(server: Connected, content: string): Promise<string> {
  const prepared = await server.call('prepare_send', {
    sender_phone: '+15550001001',
    to_phone: SANDBOX_PHONES.reads,
    type: 'text',
    content,
  });
  return prepared.structuredContent?.['approval'] as string;
}

describe('the toolbox’s stop', () => {
  it('ends a confirmation nobody answered: nothing sent, and the result says the approval ends with the server', async () => {
    let asked: () => void = () => {};
    const question = new Promise<void>((resolve) => (asked = resolve));
    const server = await fx.connect(
      { allowSend: true },
      {
        capability: { form: {} },
        answer: () => {
          asked();
          return new Promise<ElicitResult>(() => {}); // the person never answers
        },
      },
    );
    const approval = await prepare(server, 'Never answered');
    const before = fx.posts();
    const sending = server.call('send_message', { approval });
    await question;
    await server.toolbox.stop(5_000);
    expect(text(await sending)).toMatch(/^The server is stopping and the person had not answered: nothing was sent/);
    expect(text(await server.call('get_usage'))).toMatch(/^The server is stopping: get_usage was not run/);
    expect(fx.posts()).toBe(before);
  });

  it('ends a wait_for_delivery at once, saying to call it again', async () => {
    const server = await fx.connect();
    const log = await fx.client().messages.send({
      sender_phone: '+15550001001',
      to_phone: SANDBOX_PHONES.neverDelivered,
      type: 'text',
      content: 'Never delivered',
    });
    const before = reads();
    const waiting = server.call('wait_for_delivery', { id: log.id, timeout: 60_000 });
    // Stopped once the wait is under way: its first read reached the service.
    await until(() => reads() > before, 'the wait read the log');
    await server.toolbox.stop(5_000);
    expect(text(await waiting)).toMatch(/^The server stopped before wait_for_delivery finished; nothing was sent/);
  });

  it('answers a send still waiting on the API at the end of the grace period as of unknown outcome', async () => {
    const server = await fx.connect({ allowSend: true });
    const approval = await prepare(server, 'Past the grace period');
    const before = fx.posts();
    fx.sandbox.faults.add({ kind: 'latency', latencyMs: 600, route: 'POST /messages', times: 1 });
    const sending: Promise<CallToolResult> = server.call('send_message', { approval });
    await until(() => fx.posts() > before, 'the send reached the service');
    await server.toolbox.stop(20);
    expect(text(await sending)).toMatch(/^The server stopped before this send finished: its outcome is unknown/);
    expect(fx.posts()).toBe(before + 1);
  });
});
