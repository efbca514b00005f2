/**
 * Testing code that waits, with node:test's mock.timers: a reminder that escalates when it is not
 * read in 10 minutes, and a reminder planned for 09:00 tomorrow across a daylight-saving change.
 * The SDK's waits and the in-process sandbox follow the fake clock: nothing waits for real.
 *
 *   node --test examples/testing/node-test.ts
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { DeliveryTimeoutError, MessagingClient } from 'tenant-messaging';
import { createSandbox, SANDBOX_PHONES } from 'tenant-messaging/sandbox';

const MINUTE = 60_000;
const SENDER = '+15550001001';
const SUPERVISOR = '+15550009999';

/** Your application code: remind, and tell a supervisor when the reminder is not read in 10 minutes. */
async function remindOrEscalate(client: MessagingClient, to: string): Promise<'read' | 'escalated'> {
  const sent = await client.messages.send({
    sender_phone: SENDER,
    to_phone: to,
    type: 'text',
    content: 'Your appointment is at 9:00 tomorrow',
  });
  try {
    await client.waitForDelivery(sent.id, { until: 'read', interval: MINUTE, timeout: 10 * MINUTE });
    return 'read';
  } catch (error) {
    if (!(error instanceof DeliveryTimeoutError)) throw error;
    await client.messages.send({
      sender_phone: SENDER,
      to_phone: SUPERVISOR,
      type: 'text',
      content: `Unread after 10 minutes: ${to}`,
    });
    return 'escalated';
  }
}

/** Your application code: 09:00 tomorrow on the wall clock of `timeZone`, as an instant. */
function nineTomorrow(timeZone: string, now = new Date()): Date {
  const day = new Intl.DateTimeFormat('en-CA', { timeZone, dateStyle: 'short' }).format(now.getTime() + 86_400_000);
  const offsetAt = (ms: number) => {
    const name = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' }).formatToParts(ms);
    const [, sign, hours, minutes] =
      /GMT([+-])(\d\d):(\d\d)/.exec(name.find((p) => p.type === 'timeZoneName')?.value ?? '') ?? [];
    return sign === undefined ? 0 : (sign === '-' ? -1 : 1) * (Number(hours) * 60 + Number(minutes)) * MINUTE;
  };
  const wall = Date.parse(`${day}T09:00:00Z`);
  return new Date(wall - offsetAt(wall - offsetAt(wall)));
}

/**
 * Moves node:test's fake clock by `ms`. Its `tick()` runs the timers due at once and shows them
 * the end of the move, so move a second at a time and let promises run (a real turn of the loop,
 * taken before the mock replaces setImmediate) before each move.
 */
const realImmediate = setImmediate;
async function advance(ms: number, step = 1_000): Promise<void> {
  for (let moved = 0; moved < ms; moved += step) {
    await new Promise((resolve) => realImmediate(resolve));
    mock.timers.tick(Math.min(step, ms - moved));
  }
  await new Promise((resolve) => realImmediate(resolve));
}

describe('remindOrEscalate', () => {
  const sandbox = createSandbox({ delivery: { deliveredAfterMs: MINUTE, readAfterMs: 4 * MINUTE } });
  const { baseUrl, keys } = sandbox.tenants.acme as { baseUrl: string; keys: Record<string, string> };
  const client = new MessagingClient({ baseUrl, apiKey: keys.full, fetch: sandbox.fetch });

  beforeEach(() => {
    mock.timers.enable({
      apis: ['setTimeout', 'setInterval', 'setImmediate', 'Date'],
      now: Date.parse('2026-11-28T09:00:00Z'),
    });
    sandbox.reset();
    sandbox.requestLog.reset();
  });
  afterEach(() => mock.timers.reset());

  it('does not escalate a reminder read within 10 minutes', async () => {
    const outcome = remindOrEscalate(client, SANDBOX_PHONES.reads);
    await advance(10 * MINUTE);
    assert.equal(await outcome, 'read');
    assert.deepEqual(sandbox.requestLog.recipients(), [SANDBOX_PHONES.reads]);
  });

  it('escalates at 10 minutes, exactly, when the reminder is not read', async () => {
    const outcome = remindOrEscalate(client, SANDBOX_PHONES.neverReads);
    await advance(10 * MINUTE);
    assert.equal(await outcome, 'escalated');
    const [reminder, escalation] = sandbox.requestLog.acceptedAt({ route: 'POST /messages' });
    assert.equal((escalation as number) - (reminder as number), 10 * MINUTE);
  });
});

describe('nineTomorrow, across the change to daylight-saving time', () => {
  afterEach(() => mock.timers.reset());

  it('New York springs forward on 8 March 2026: 09:00 is 13:00 UTC that day, 14:00 UTC the day before', () => {
    mock.timers.enable({ apis: ['Date'], now: new Date('2026-03-07T01:00:00Z') }); // 20:00 on 6 March in New York
    assert.equal(nineTomorrow('America/New_York').toISOString(), '2026-03-07T14:00:00.000Z');
    mock.timers.setTime(Date.parse('2026-03-08T01:00:00Z')); // 20:00 on 7 March, the night of the change
    assert.equal(nineTomorrow('America/New_York').toISOString(), '2026-03-08T13:00:00.000Z');
  });
});
