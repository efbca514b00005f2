/**
 * `wait`'s result line says the status the log is in, for every status a wait can end on: a wait
 * for `delivered` that finds the log already `read` says read, not delivered; one that never sees
 * its status names neither.
 */
import { MessagingClient } from 'tenant-messaging';
import { SANDBOX_PHONES } from 'tenant-messaging/sandbox';
import { afterAll, describe, expect, it } from 'vitest';
import { SENDER, shellWithSandbox } from './shell-harness.js';

const shell = shellWithSandbox();
let client: MessagingClient | undefined;
afterAll(() => client?.close());

/** A log sent to `to`, once the sandbox has moved it to `status`. */
async function logIn(to: string, status: 'delivered' | 'read') {
  client ??= new MessagingClient({ baseUrl: shell.tenant.baseUrl, apiKey: shell.tenant.keys.full });
  const log = await client.messages.send({ sender_phone: SENDER, to_phone: to, type: 'text', content: 'Hello' });
  return client.waitForDelivery(log.id, { until: status, interval: 50, timeout: 10_000 });
}

describe('wait: the result line is the status reached', () => {
  it.each([
    { to: SANDBOX_PHONES.reads, status: 'read', until: 'delivered', line: 'read (past delivered)' },
    { to: SANDBOX_PHONES.reads, status: 'read', until: 'read', line: 'read' },
    { to: SANDBOX_PHONES.neverReads, status: 'delivered', until: 'delivered', line: 'delivered' },
  ] as const)('a $status log waited for $until: "$line: …"', async ({ to, status, until, line }) => {
    const log = await logIn(to, status);
    const run = await shell.run(['wait', String(log.id), '--until', until]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${line}: message log ${log.id}: text, ${status}\n`);
    // Nothing moved on the way: no status line repeats what the result says.
    expect(run.stderr).toBe('');
  });

  it('a delivered log waited for read times out, and no line calls it read', async () => {
    const log = await logIn(SANDBOX_PHONES.neverReads, 'delivered');
    const run = await shell.run([
      'wait',
      String(log.id),
      '--until',
      'read',
      '--timeout',
      '300ms',
      '--interval',
      '50ms',
    ]);
    expect(run.code).not.toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).not.toMatch(/^read\b/m);
    expect(run.stderr).toContain('DeliveryTimeoutError');
  });

  it('--json prints the log itself, whatever the status', async () => {
    const log = await logIn(SANDBOX_PHONES.reads, 'read');
    const run = await shell.run(['wait', String(log.id), '--json']);
    expect(JSON.parse(run.stdout)).toMatchObject({ id: log.id, delivery_status: 'read' });
  });
});
